/**
 * The git server place (docs/sync.md, "The git server"): a repository on a server that speaks
 * git's smart HTTP and allows this app's origin (Gitea/Forgejo with
 * `[repository] ACCESS_CONTROL_ALLOW_ORIGIN`, Gogs, Soft Serve). Built on isomorphic-git, loaded
 * on first use (gitOps.ts), over an in-memory object store (memoryGitFs.ts) filled by shallow
 * fetches.
 *
 * - `readHead` is one request (the ref advertisement).
 * - `commit` builds one commit whose parent is `expectedHead` and pushes it. The push goes only if
 *   the server still advertises `expectedHead` for the branch (checked in `onPrePush`, and the
 *   server's own ref update checks the old value again), so it is a compare-and-swap;
 *   otherwise `RemoteMovedError`.
 * - A browser refusal (no CORS) becomes `SyncPlaceError('cors')` naming the exact server setting.
 */
import { RemoteMovedError, SyncPlaceError, type RemoteChange, type RemoteEntry, type RemoteTree, type SyncTransport } from './transport';
import { createMemoryGitFs } from './memoryGitFs';
import type { GitHttpRequest, GitHttpResponse, HttpClient, TreeEntry } from './gitOps';
import { concatBytes } from '../storage/bytes';

export interface GitPlaceConfig {
  /** The clone URL, `https://host/owner/repo.git`. */
  url: string;
  branch: string;
  /** The library's folder inside the repository; '' for the root. */
  folder: string;
  /** Sent as HTTP Basic auth to this URL's host only; '' for none. */
  token: string;
  /** The user name sent with the token (Gitea and Forgejo accept any name with a token). */
  username?: string;
  /** This app's origin, for the message that says what to allow on the server. */
  appOrigin: string;
  /** Counts what went over the wire (the bench reads it). */
  onRequest?: (request: { method: string; url: string; status: number; bytesIn: number; bytesOut: number }) => void;
}

type GitOps = typeof import('./gitOps');
let opsLoading: Promise<GitOps> | null = null;
const loadOps = (): Promise<GitOps> => (opsLoading ??= import('./gitOps'));

const GITDIR = '/library.git';
const LOCAL_REF = 'refs/heads/knack-sync';

/** 'skills/x' → ['skills', 'x']; refuses `..` and empty segments. */
export function folderSegments(folder: string): string[] {
  const segments = folder.split('/').filter((part) => part !== '' && part !== '.');
  if (segments.some((part) => part === '..' || part.includes('\\'))) {
    throw new SyncPlaceError(`"${folder}" is not a folder inside the repository: use a path like skills or agents/skills.`, 'other');
  }
  return segments;
}

function modeOf(gitMode: string): number | null {
  if (gitMode === '100755') return 0o755;
  if (gitMode === '100644') return 0o644;
  return null; // symbolic links and submodules never enter the library
}

async function collect(body: AsyncIterableIterator<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return concatBytes(parts);
}

export class GitTransport implements SyncTransport {
  readonly kind = 'git' as const;
  readonly #config: GitPlaceConfig;
  readonly #fs = createMemoryGitFs();
  readonly #prefix: string[];
  #initialised = false;
  #signal: AbortSignal | undefined;

  constructor(config: GitPlaceConfig) {
    this.#config = config;
    this.#prefix = folderSegments(config.folder);
    const url = new URL(config.url);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new SyncPlaceError('The repository URL must start with https://.', 'other');
  }

  get #headers(): Record<string, string> {
    const { token, username } = this.#config;
    if (!token) return {};
    return { authorization: `Basic ${btoa(`${username || 'knack'}:${token}`)}` };
  }

  /** The HTTP client isomorphic-git calls: fetch with our abort signal, byte counts and error words. */
  readonly #http: HttpClient = {
    request: async (request: GitHttpRequest): Promise<GitHttpResponse> => {
      const body = await collect(request.body);
      let response: Response;
      try {
        response = await fetch(request.url, {
          method: request.method ?? 'GET',
          headers: request.headers,
          body: body as BodyInit | undefined,
          signal: this.#signal,
        });
      } catch (error) {
        if ((error as Error).name === 'AbortError') throw error;
        throw this.#unreachable();
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      this.#config.onRequest?.({ method: request.method ?? 'GET', url: request.url, status: response.status, bytesIn: bytes.length, bytesOut: body?.length ?? 0 });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return {
        url: response.url,
        method: request.method,
        statusCode: response.status,
        statusMessage: response.statusText,
        headers,
        body: (async function* () {
          yield bytes;
        })(),
      };
    },
  };

  #unreachable(): SyncPlaceError {
    const host = new URL(this.#config.url).host;
    if (typeof navigator !== 'undefined' && navigator.onLine === false) {
      return new SyncPlaceError(`This device is offline; changes wait and go to ${host} when it is back online.`, 'offline');
    }
    return new SyncPlaceError(
      `The git server ${host} could not be reached from this app, or it does not allow this app's origin (${this.#config.appOrigin}). ` +
        `On Gitea or Forgejo add to app.ini: [repository] ACCESS_CONTROL_ALLOW_ORIGIN = ${this.#config.appOrigin} — then restart the server. ` +
        `GitHub, GitLab and Bitbucket never allow it: choose "GitHub repository" for GitHub.`,
      'cors',
    );
  }

  /** isomorphic-git's errors in words a user can act on. */
  #translate(error: unknown): unknown {
    if (error instanceof SyncPlaceError || error instanceof RemoteMovedError) return error;
    const { code, data } = error as { code?: string; data?: { statusCode?: number } };
    if (code === 'HttpError') {
      const status = data?.statusCode ?? 0;
      const host = new URL(this.#config.url).host;
      if (status === 401 || status === 403) {
        return new SyncPlaceError(`${host} refused the token (HTTP ${status}): paste a token that can read and write this repository.`, 'auth');
      }
      if (status === 404) return new SyncPlaceError(`${host} has no repository at ${this.#config.url}: check the Repository URL.`, 'not-found');
      return new SyncPlaceError(`${host} answered HTTP ${status}; try Sync now again later.`, 'other');
    }
    return error;
  }

  async #ops(signal: AbortSignal | undefined): Promise<GitOps> {
    this.#signal = signal;
    const ops = await loadOps();
    if (!this.#initialised) {
      await ops.init({ fs: this.#fs, gitdir: GITDIR, bare: true, defaultBranch: 'main' });
      await ops.setConfig({ fs: this.#fs, gitdir: GITDIR, path: 'remote.origin.url', value: this.#config.url });
      await ops.setConfig({ fs: this.#fs, gitdir: GITDIR, path: 'remote.origin.fetch', value: '+refs/heads/*:refs/remotes/origin/*' });
      this.#initialised = true;
    }
    return ops;
  }

  async readHead(signal?: AbortSignal): Promise<string | null> {
    const ops = await this.#ops(signal);
    try {
      const info = await ops.getRemoteInfo2({ http: this.#http, url: this.#config.url, headers: this.#headers, protocolVersion: 1 });
      const ref = info.refs?.find((entry) => entry.ref === `refs/heads/${this.#config.branch}`);
      return ref?.oid ?? null;
    } catch (error) {
      throw this.#translate(error);
    }
  }

  /** Makes sure the commit `head` and its tree are in the object store (one shallow fetch if not). */
  async #ensure(ops: GitOps, head: string): Promise<void> {
    try {
      await ops.readCommit({ fs: this.#fs, gitdir: GITDIR, oid: head });
      return;
    } catch {
      // not here yet: fetch it
    }
    let fetched: string | null;
    try {
      const result = await ops.fetch({
        fs: this.#fs,
        http: this.#http,
        gitdir: GITDIR,
        remote: 'origin',
        ref: this.#config.branch,
        singleBranch: true,
        depth: 1,
        tags: false,
        headers: this.#headers,
      });
      fetched = result.fetchHead;
    } catch (error) {
      throw this.#translate(error);
    }
    if (fetched !== head) throw new RemoteMovedError(fetched);
  }

  async #libraryTree(ops: GitOps, head: string): Promise<string | null> {
    const commit = await ops.readCommit({ fs: this.#fs, gitdir: GITDIR, oid: head });
    let tree: string | null = commit.commit.tree;
    for (const segment of this.#prefix) {
      if (!tree) return null;
      const { tree: entries } = await ops.readTree({ fs: this.#fs, gitdir: GITDIR, oid: tree });
      const next: TreeEntry | undefined = entries.find((entry) => entry.path === segment && entry.type === 'tree');
      tree = next?.oid ?? null;
    }
    return tree;
  }

  async readTree(head: string, signal?: AbortSignal): Promise<RemoteTree> {
    const ops = await this.#ops(signal);
    await this.#ensure(ops, head);
    const entries = new Map<string, RemoteEntry>();
    const walk = async (oid: string, base: string): Promise<void> => {
      const { tree } = await ops.readTree({ fs: this.#fs, gitdir: GITDIR, oid });
      for (const entry of tree) {
        const path = base ? `${base}/${entry.path}` : entry.path;
        if (entry.type === 'tree') await walk(entry.oid, path);
        else if (entry.type === 'blob') {
          const mode = modeOf(entry.mode);
          if (mode !== null) entries.set(path, { id: entry.oid, mode });
        }
      }
    };
    const root = await this.#libraryTree(ops, head);
    if (root) await walk(root, '');
    return { head, entries };
  }

  async readFiles(head: string, paths: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    const ops = await this.#ops(signal);
    await this.#ensure(ops, head);
    const files = new Map<string, Uint8Array>();
    const prefix = this.#prefix.join('/');
    for (const path of paths) {
      try {
        const { blob } = await ops.readBlob({ fs: this.#fs, gitdir: GITDIR, oid: head, filepath: prefix ? `${prefix}/${path}` : path });
        files.set(path, blob);
      } catch {
        throw new SyncPlaceError(`The repository has no file ${path} at ${head.slice(0, 7)}; try Sync now again.`, 'other');
      }
    }
    return files;
  }

  async commit(change: RemoteChange, signal?: AbortSignal): Promise<string> {
    const ops = await this.#ops(signal);
    let rootTree: string | null = null;
    if (change.expectedHead) {
      await this.#ensure(ops, change.expectedHead);
      rootTree = (await ops.readCommit({ fs: this.#fs, gitdir: GITDIR, oid: change.expectedHead })).commit.tree;
    }
    // Every changed path, under the library's folder, as segments.
    const edits = new Map<string, { bytes: Uint8Array; mode: number } | null>();
    const prefix = this.#prefix.join('/');
    const full = (path: string) => (prefix ? `${prefix}/${path}` : path);
    for (const path of change.deletes) edits.set(full(path), null);
    for (const [path, file] of change.writes) edits.set(full(path), file);

    const fs = this.#fs;
    const rebuild = async (treeOid: string | null, changes: Map<string, { bytes: Uint8Array; mode: number } | null>): Promise<string | null> => {
      const entries = new Map<string, TreeEntry>();
      if (treeOid) for (const entry of (await ops.readTree({ fs, gitdir: GITDIR, oid: treeOid })).tree) entries.set(entry.path, entry);
      const below = new Map<string, Map<string, { bytes: Uint8Array; mode: number } | null>>();
      for (const [path, file] of changes) {
        const slash = path.indexOf('/');
        if (slash < 0) {
          if (file === null) entries.delete(path);
          else {
            const oid = await ops.writeBlob({ fs, gitdir: GITDIR, blob: file.bytes });
            entries.set(path, { path, oid, type: 'blob', mode: file.mode === 0o755 ? '100755' : '100644' });
          }
        } else {
          const head = path.slice(0, slash);
          if (!below.has(head)) below.set(head, new Map());
          below.get(head)!.set(path.slice(slash + 1), file);
        }
      }
      for (const [name, inner] of below) {
        const existing = entries.get(name);
        const subtree = await rebuild(existing?.type === 'tree' ? existing.oid : null, inner);
        if (subtree) entries.set(name, { path: name, oid: subtree, type: 'tree', mode: '040000' });
        else entries.delete(name);
      }
      if (entries.size === 0) return null;
      return ops.writeTree({ fs, gitdir: GITDIR, tree: [...entries.values()] });
    };
    const tree = (await rebuild(rootTree, edits)) ?? (await ops.writeTree({ fs, gitdir: GITDIR, tree: [] }));
    const now = Math.floor(Date.now() / 1000);
    const person = { name: 'Knack', email: 'knack@localhost', timestamp: now, timezoneOffset: 0 };
    const oid = await ops.writeCommit({
      fs,
      gitdir: GITDIR,
      commit: { tree, parent: change.expectedHead ? [change.expectedHead] : [], author: person, committer: person, message: `${change.message}\n` },
    });
    await ops.writeRef({ fs, gitdir: GITDIR, ref: LOCAL_REF, value: oid, force: true });
    const zero = '0000000000000000000000000000000000000000';
    let advertised: string | null = null;
    try {
      const result = await ops.push({
        fs,
        http: this.#http,
        gitdir: GITDIR,
        url: this.#config.url,
        ref: LOCAL_REF,
        remoteRef: `refs/heads/${this.#config.branch}`,
        headers: this.#headers,
        // The compare-and-swap: push only onto the head this change was built on.
        onPrePush: ({ remoteRef }) => {
          advertised = remoteRef.oid === zero ? null : remoteRef.oid;
          return advertised === change.expectedHead;
        },
      });
      const outcome = result.refs?.[`refs/heads/${this.#config.branch}`];
      if (!result.ok || (outcome && !outcome.ok)) throw new RemoteMovedError(advertised);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'UserCanceledError' || code === 'PushRejectedError' || code === 'GitPushError') throw new RemoteMovedError(advertised);
      throw this.#translate(error);
    }
    return oid;
  }
}
