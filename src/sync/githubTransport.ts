/**
 * The library in a GitHub repository (docs/sync.md, "GitHub repository"), through GitHub's REST
 * and GraphQL APIs, which allow any origin (git's own HTTP protocol does not). Every request goes
 * to https://api.github.com and only there carries the token.
 *
 * Requests per sync: readHead is one `GET git/ref/heads/<branch>`; readTree one recursive
 * `GET git/trees`; readFiles one GraphQL query per 100 files (binary or very large files add one
 * `GET git/blobs` each); commit one GraphQL `createCommitOnBranch` with `expectedHeadOid`, GitHub's
 * compare-and-swap. A branch that does not exist yet is created through the REST Git Data API
 * (trees, commits, then `POST git/refs`, which refuses an existing ref); a repository with no
 * commit at all needs its first commit from the contents API (GitHub answers 409 to the Git
 * Data API there), on the fixed path `.knack/repository-created`, which readTree hides.
 */
import { RemoteMovedError, SyncPlaceError, type RemoteChange, type RemoteEntry, type RemoteTree, type SyncTransport } from './transport';
import { base64ToBytes, bytesToBase64, gitBlobId } from './gitBlobId';

export const GITHUB_API = 'https://api.github.com';
/** The file the contents API writes as an empty repository's first commit (see above). */
export const FIRST_COMMIT_MARKER = '.knack/repository-created';
const FILES_PER_QUERY = 100;
const FILE_MODE = 0o644;

export interface GitHubPlace {
  owner: string;
  repo: string;
  branch: string;
  /** A folder inside the repository ('' for the root), without leading or trailing slashes. */
  folder: string;
  /** A fine-grained personal access token with Contents: Read and write on this repository. */
  token: string;
}

export interface GitHubTransportOptions {
  /** The fetch to use (the bench counts requests through it); it is only ever given api.github.com URLs. */
  fetch?: typeof fetch;
}

/**
 * `owner/repo`, `github.com/owner/repo` or `https://github.com/owner/repo(.git)` (a `/tree/<branch>`
 * tail is ignored); null when the text names no repository.
 */
export function parseGitHubRepository(text: string): { owner: string; repo: string } | null {
  const trimmed = text.trim().replace(/^https?:\/\//, '').replace(/^(www\.)?github\.com\//, '');
  const match = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]+?)(?:\.git)?(?:\/.*)?$/.exec(trimmed);
  if (!match || match[2] === '.' || match[2] === '..') return null;
  return { owner: match[1]!, repo: match[2]! };
}

/** The folder in the repository as a clean prefix (`'skills/'`, or `''`); null when it leaves the repository. */
export function normaliseRepositoryFolder(folder: string): string | null {
  const parts = folder.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..' || part.includes('\\'))) return null;
  return parts.length ? `${parts.join('/')}/` : '';
}

interface GitHubTreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
}

interface GraphQLError {
  type?: string;
  message: string;
}

interface BlobNode {
  oid: string;
  byteSize: number;
  isBinary: boolean | null;
  isTruncated: boolean;
  text: string | null;
}

type Access = 'read' | 'write';

export class GitHubTransport implements SyncTransport {
  readonly kind = 'github' as const;
  private readonly prefix: string;
  private readonly fetcher: typeof fetch;
  /**
   * The listing at the last head this transport read or wrote. After a commit it is derived from
   * the listing it was based on and the change (git ids of the written bytes): the compare-and-swap
   * guarantees the new commit is exactly that, so reading it back costs no request.
   */
  private knownTree: RemoteTree | null = null;
  /** A recursive folder listing already fetched by folderTree, used once by collectTree. */
  private prefetched: { tree: string; listing: { tree: GitHubTreeEntry[]; truncated: boolean } } | null = null;

  constructor(
    private readonly place: GitHubPlace,
    options: GitHubTransportOptions = {},
  ) {
    const prefix = normaliseRepositoryFolder(place.folder);
    if (prefix === null) throw new SyncPlaceError(`The folder "${place.folder}" leaves the repository: use a path inside it, such as skills.`, 'refused');
    this.prefix = prefix;
    this.fetcher = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  private get repository(): string {
    return `${this.place.owner}/${this.place.repo}`;
  }

  async readHead(signal?: AbortSignal): Promise<string | null> {
    const response = await this.request('GET', `/git/ref/heads/${encodeBranch(this.place.branch)}`, undefined, 'read', signal, [404, 409]);
    if (response.status === 409) return null; // "Git Repository is empty."
    if (response.status === 404) {
      // Either the branch does not exist yet, or the token cannot see the repository: ask once.
      await this.request('GET', '', undefined, 'read', signal);
      return null;
    }
    const body = (await response.json()) as { object?: { sha?: string } };
    if (!body.object?.sha) throw new SyncPlaceError('GitHub answered the branch request without a commit; try Sync now again.', 'other');
    return body.object.sha;
  }

  async readTree(head: string, signal?: AbortSignal): Promise<RemoteTree> {
    if (this.knownTree?.head === head) return { head, entries: new Map(this.knownTree.entries) };
    const entries = new Map<string, RemoteEntry>();
    const root = this.prefix ? await this.folderTree(head, signal) : head;
    if (root !== null) await this.collectTree(root, '', entries, signal);
    entries.delete(FIRST_COMMIT_MARKER);
    this.knownTree = { head, entries: new Map(entries) };
    return { head, entries };
  }

  /**
   * The tree of the configured folder at `head`, or null when the folder is not there. GitHub
   * resolves `<commit>:<folder>` as a tree name, so this usually costs no request of its own; if
   * that answers 404 the folder is looked up level by level, to tell "not there" from a refusal.
   */
  private async folderTree(head: string, signal?: AbortSignal): Promise<string | null> {
    const folder = this.prefix.slice(0, -1);
    const direct = await this.request('GET', `/git/trees/${head}:${folder.split('/').map(encodeURIComponent).join('/')}?recursive=1`, undefined, 'read', signal, [404, 422]);
    if (direct.ok) {
      const listing = (await direct.json()) as { sha: string; tree: GitHubTreeEntry[]; truncated: boolean };
      if (!listing.truncated) {
        this.prefetched = { tree: listing.sha, listing };
        return listing.sha;
      }
    }
    let tree = head;
    for (const part of folder.split('/')) {
      const listing = await this.treeListing(tree, false, signal);
      const next = listing.tree.find((entry) => entry.path === part && entry.type === 'tree');
      if (!next) return null;
      tree = next.sha;
    }
    return tree;
  }

  /** Every blob under `tree`: one recursive listing, walked level by level only where GitHub truncated it. */
  private async collectTree(tree: string, base: string, entries: Map<string, RemoteEntry>, signal?: AbortSignal): Promise<void> {
    const prefetched = this.prefetched?.tree === tree ? this.prefetched.listing : null;
    this.prefetched = null;
    const recursive = prefetched ?? (await this.treeListing(tree, true, signal));
    if (!recursive.truncated) {
      for (const entry of recursive.tree) addBlob(entries, base + entry.path, entry);
      return;
    }
    const level = await this.treeListing(tree, false, signal);
    for (const entry of level.tree) {
      if (entry.type === 'tree') await this.collectTree(entry.sha, `${base}${entry.path}/`, entries, signal);
      else addBlob(entries, base + entry.path, entry);
    }
  }

  private async treeListing(tree: string, recursive: boolean, signal?: AbortSignal): Promise<{ tree: GitHubTreeEntry[]; truncated: boolean }> {
    const response = await this.request('GET', `/git/trees/${tree}${recursive ? '?recursive=1' : ''}`, undefined, 'read', signal);
    return (await response.json()) as { tree: GitHubTreeEntry[]; truncated: boolean };
  }

  async readFiles(head: string, paths: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    const files = new Map<string, Uint8Array>();
    const viaBlobs: { path: string; oid: string }[] = [];
    for (let start = 0; start < paths.length; start += FILES_PER_QUERY) {
      const batch = paths.slice(start, start + FILES_PER_QUERY);
      const variables: Record<string, string> = { owner: this.place.owner, name: this.place.repo };
      const fields = batch.map((path, index) => {
        variables[`e${index}`] = `${head}:${this.prefix}${path}`;
        return `f${index}: object(expression: $e${index}) { ... on Blob { oid byteSize isBinary isTruncated text } }`;
      });
      const declarations = batch.map((_, index) => `$e${index}: String!`).join(', ');
      const query = `query KnackReadBlobs($owner: String!, $name: String!, ${declarations}) {\n  repository(owner: $owner, name: $name) {\n    ${fields.join('\n    ')}\n  }\n}`;
      const data = (await this.graphql(query, variables, 'read', signal)) as { repository: Record<string, BlobNode | null> | null };
      if (!data.repository) throw this.notFound();
      for (const [index, path] of batch.entries()) {
        const node = data.repository[`f${index}`];
        if (!node?.oid) throw new SyncPlaceError(`${path} is not in ${this.repository} at ${head.slice(0, 7)}; run Sync now again.`, 'other');
        // GraphQL gives text only for whole UTF-8 files; anything else, or text that does not hash
        // back to the blob's id, is read as bytes from the Git Data API.
        if (node.isBinary !== false || node.isTruncated || node.text === null) {
          viaBlobs.push({ path, oid: node.oid });
          continue;
        }
        const bytes = new TextEncoder().encode(node.text);
        if ((await gitBlobId(bytes)) === node.oid) files.set(path, bytes);
        else viaBlobs.push({ path, oid: node.oid });
      }
    }
    for (const { path, oid } of viaBlobs) {
      const response = await this.request('GET', `/git/blobs/${oid}`, undefined, 'read', signal);
      const body = (await response.json()) as { content: string; encoding: string };
      const bytes = body.encoding === 'base64' ? base64ToBytes(body.content) : new TextEncoder().encode(body.content);
      if ((await gitBlobId(bytes)) !== oid) throw new SyncPlaceError(`GitHub sent ${path} with bytes that do not match its id; nothing was changed. Run Sync now again.`, 'other');
      files.set(path, bytes);
    }
    return files;
  }

  async commit(change: RemoteChange, signal?: AbortSignal): Promise<string> {
    if (change.expectedHead === null) return this.createBranch(change, signal);
    if (change.writes.size === 0 && change.deletes.length === 0) {
      const head = await this.readHead(signal);
      if (head !== change.expectedHead) throw new RemoteMovedError(head);
      return head;
    }
    return this.commitOnBranch(change.expectedHead, change, signal);
  }

  private async commitOnBranch(expectedHead: string, change: RemoteChange, signal?: AbortSignal): Promise<string> {
    const [headline, ...rest] = change.message.split('\n');
    const input = {
      branch: { repositoryNameWithOwner: this.repository, branchName: this.place.branch },
      expectedHeadOid: expectedHead,
      message: { headline: headline || 'Knack sync', ...(rest.join('\n').trim() ? { body: rest.join('\n').trim() } : {}) },
      fileChanges: {
        additions: [...change.writes].map(([path, { bytes }]) => ({ path: this.prefix + path, contents: bytesToBase64(bytes) })),
        deletions: change.deletes.map((path) => ({ path: this.prefix + path })),
      },
    };
    const query = 'mutation KnackCreateCommit($input: CreateCommitOnBranchInput!) {\n  createCommitOnBranch(input: $input) { commit { oid } }\n}';
    let data: { createCommitOnBranch: { commit: { oid: string } } | null };
    try {
      data = (await this.graphql(query, { input }, 'write', signal)) as typeof data;
    } catch (error) {
      if (error instanceof BranchMovedSignal) throw new RemoteMovedError(await this.readHead(signal));
      throw error;
    }
    const oid = data.createCommitOnBranch?.commit.oid;
    if (!oid) throw new SyncPlaceError('GitHub accepted the commit but sent no commit id; run Sync now to check.', 'other');
    await this.rememberCommit(expectedHead, oid, change);
    return oid;
  }

  /** The branch does not exist: build its first commit with the REST Git Data API and create the ref only if it is still absent. */
  private async createBranch(change: RemoteChange, signal?: AbortSignal): Promise<string> {
    if (change.writes.size === 0) {
      const head = await this.readHead(signal);
      if (head !== null) throw new RemoteMovedError(head);
      throw new SyncPlaceError(`${this.repository} has no branch ${this.place.branch} and there is nothing to write to it yet.`, 'other');
    }
    const tree: { path: string; mode: string; type: 'blob'; content?: string; sha?: string }[] = [];
    for (const [path, { bytes }] of change.writes) {
      const text = utf8Text(bytes);
      if (text !== null) {
        tree.push({ path: this.prefix + path, mode: '100644', type: 'blob', content: text });
        continue;
      }
      const blob = await this.request('POST', '/git/blobs', { content: bytesToBase64(bytes), encoding: 'base64' }, 'write', signal, [409]);
      if (blob.status === 409) return this.firstCommit(change, signal);
      tree.push({ path: this.prefix + path, mode: '100644', type: 'blob', sha: ((await blob.json()) as { sha: string }).sha });
    }
    const treeResponse = await this.request('POST', '/git/trees', { tree }, 'write', signal, [409]);
    if (treeResponse.status === 409) return this.firstCommit(change, signal);
    const treeSha = ((await treeResponse.json()) as { sha: string }).sha;
    const commitResponse = await this.request('POST', '/git/commits', { message: change.message, tree: treeSha, parents: [] }, 'write', signal);
    const commitSha = ((await commitResponse.json()) as { sha: string }).sha;
    const ref = await this.request('POST', '/git/refs', { ref: `refs/heads/${this.place.branch}`, sha: commitSha }, 'write', signal, [422]);
    if (ref.status === 422) throw new RemoteMovedError(await this.readHead(signal)); // "Reference already exists"
    this.knownTree = { head: commitSha, entries: new Map() };
    await this.rememberCommit(commitSha, commitSha, { ...change, deletes: [] });
    return commitSha;
  }

  /**
   * A repository with no commit: the contents API writes the marker file as the first commit (it
   * refuses if the file is already there, so two devices cannot both start the branch), then the
   * change goes on top with the usual compare-and-swap.
   */
  private async firstCommit(change: RemoteChange, signal?: AbortSignal): Promise<string> {
    const marker = new TextEncoder().encode('This branch was started by Knack (docs/sync.md). Other agents can ignore the .knack folder.\n');
    const path = `${this.prefix}${FIRST_COMMIT_MARKER}`.split('/').map(encodeURIComponent).join('/');
    const response = await this.request('PUT', `/contents/${path}`, { message: 'Start the Knack library', content: bytesToBase64(marker), branch: this.place.branch }, 'write', signal, [404, 409, 422]);
    if (response.status !== 200 && response.status !== 201) throw new RemoteMovedError(await this.readHead(signal));
    const first = ((await response.json()) as { commit: { sha: string } }).commit.sha;
    this.knownTree = { head: first, entries: new Map() };
    return this.commitOnBranch(first, change, signal);
  }

  /** The listing at `head` after `change` landed on `base`, when the listing at `base` is known. */
  private async rememberCommit(base: string, head: string, change: RemoteChange): Promise<void> {
    if (this.knownTree?.head !== base) {
      this.knownTree = null;
      return;
    }
    const entries = new Map(this.knownTree.entries);
    for (const path of change.deletes) entries.delete(path);
    for (const [path, { bytes }] of change.writes) entries.set(path, { id: await gitBlobId(bytes), mode: FILE_MODE });
    entries.delete(FIRST_COMMIT_MARKER);
    this.knownTree = { head, entries };
  }

  private async graphql(query: string, variables: Record<string, unknown>, access: Access, signal?: AbortSignal): Promise<unknown> {
    const response = await this.send(`${GITHUB_API}/graphql`, 'POST', { query, variables }, access, signal, []);
    const body = (await response.json()) as { data?: unknown; errors?: GraphQLError[] };
    const errors = body.errors ?? [];
    if (errors.some((error) => error.type === 'STALE_DATA' || /Expected branch to point to/.test(error.message))) throw new BranchMovedSignal();
    const first = errors[0];
    if (first) {
      if (first.type === 'RATE_LIMITED') throw this.rateLimited(response);
      if (first.type === 'FORBIDDEN') throw this.forbidden(access);
      if (first.type === 'NOT_FOUND' && /ref|branch/i.test(first.message)) throw new BranchMovedSignal();
      if (first.type === 'NOT_FOUND') throw this.notFound();
      throw new SyncPlaceError(`GitHub refused the request: ${first.message}`, 'refused');
    }
    return body.data;
  }

  private request(method: string, path: string, body: unknown, access: Access, signal: AbortSignal | undefined, allowed: number[] = []): Promise<Response> {
    return this.send(`${GITHUB_API}/repos/${encodeURIComponent(this.place.owner)}/${encodeURIComponent(this.place.repo)}${path}`, method, body, access, signal, allowed);
  }

  /** One request to api.github.com; statuses in `allowed` come back to the caller, other failures become a SyncPlaceError. */
  private async send(url: string, method: string, body: unknown, access: Access, signal: AbortSignal | undefined, allowed: number[]): Promise<Response> {
    let response: Response;
    try {
      response = await this.fetcher(url, {
        method,
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${this.place.token}`,
          'X-GitHub-Api-Version': '2022-11-28',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        // Revalidate: GitHub lets the browser cache answers for a minute, and a stale head would
        // make every push a conflict. A 304 does not count against the rate limit.
        cache: 'no-cache',
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (typeof navigator !== 'undefined' && navigator.onLine === false) {
        throw new SyncPlaceError('This device is offline; changes wait here and go out when it is back online.', 'offline');
      }
      throw new SyncPlaceError('Could not reach api.github.com: check the connection. A proxy or browser extension that strips CORS headers causes this too.', 'cors');
    }
    if (response.ok || allowed.includes(response.status)) return response;
    if (response.status === 401) {
      throw new SyncPlaceError(`GitHub refused the token (bad credentials): it is wrong, expired or revoked. Create a fine-grained token with Contents: Read and write on ${this.repository} and paste it in Token.`, 'auth');
    }
    if (response.status === 403 || response.status === 429) {
      if (response.headers.get('x-ratelimit-remaining') === '0' || response.headers.has('retry-after')) throw this.rateLimited(response);
      throw this.forbidden(access);
    }
    if (response.status === 404) throw this.notFound();
    throw new SyncPlaceError(`GitHub answered ${response.status} to ${method} ${new URL(url).pathname}; run Sync now again later.`, 'other');
  }

  private rateLimited(response: Response): SyncPlaceError {
    const retryAfter = Number(response.headers.get('retry-after'));
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    const resetAt = retryAfter > 0 ? new Date(Date.now() + retryAfter * 1000) : reset > 0 ? new Date(reset * 1000) : null;
    const when = resetAt ? ` It resets at ${resetAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}; sync continues then.` : ' Sync continues when it resets.';
    return new SyncPlaceError(`GitHub's rate limit for this token is used up.${when}`, 'rate-limit', resetAt?.toISOString() ?? null);
  }

  private forbidden(access: Access): SyncPlaceError {
    const permission = access === 'write' ? 'Contents: Read and write' : 'Contents: Read-only (Read and write to sync)';
    return new SyncPlaceError(`The token may not ${access} ${this.repository}: give it the repository permission ${permission} on that repository.`, 'auth');
  }

  private notFound(): SyncPlaceError {
    return new SyncPlaceError(`${this.repository} was not found, or the token cannot see it: check the name, and list the repository under the token's Repository access with Contents: Read and write.`, 'not-found');
  }
}

/** Thrown inside the transport when GitHub says the branch moved; commit turns it into RemoteMovedError. */
class BranchMovedSignal extends Error {}

function addBlob(entries: Map<string, RemoteEntry>, path: string, entry: GitHubTreeEntry): void {
  // Only files: folders are implied by paths, submodules and symlinks are never library files.
  if (entry.type !== 'blob' || entry.mode === '120000') return;
  // createCommitOnBranch cannot set modes; the core keeps them in .knack/ (docs/sync.md).
  entries.set(path, { id: entry.sha, mode: FILE_MODE });
}

function encodeBranch(branch: string): string {
  return branch.split('/').map(encodeURIComponent).join('/');
}

function utf8Text(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}
