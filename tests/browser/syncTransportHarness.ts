/**
 * The GitHub and folder transports (src/sync) bundled for the page, as providerHarness.ts does for
 * providers: specs evaluate this bundle in the app's page and call `knackSyncHarness` with plain
 * JSON, so the transports run in Chromium with real fetch, CORS and OPFS. Bytes cross as arrays
 * of numbers; text as strings.
 */
import { GitHubTransport, type GitHubPlace } from '../../src/sync/githubTransport';
import { FolderTransport, folderPermission } from '../../src/sync/folderTransport';
import { loadSyncFolder, saveSyncFolder } from '../../src/sync/folderHandleStore';
import { RemoteMovedError, SyncPlaceError, type RemoteChange, type SyncTransport } from '../../src/sync/transport';

export type Content = string | number[];

export type CommitOutcome =
  | { ok: true; head: string }
  | { ok: false; name: string; problem: string | null; message: string; actualHead: string | null; resetAt: string | null };

export interface Snapshot {
  head: string | null;
  /** path → text (binary files as arrays of numbers) */
  files: Record<string, Content>;
  ids: Record<string, string>;
}

async function folderRoot(name: string): Promise<FileSystemDirectoryHandle> {
  const root = await navigator.storage.getDirectory();
  return root.getDirectoryHandle(name, { create: true });
}

function toBytes(content: Content): Uint8Array {
  return typeof content === 'string' ? new TextEncoder().encode(content) : new Uint8Array(content);
}

function fromBytes(bytes: Uint8Array): Content {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return [...bytes];
  }
}

async function snapshot(transport: SyncTransport): Promise<Snapshot> {
  const head = await transport.readHead();
  if (head === null) return { head, files: {}, ids: {} };
  const tree = await transport.readTree(head);
  const paths = [...tree.entries.keys()].sort();
  const bytes = await transport.readFiles(head, paths);
  const files: Record<string, Content> = {};
  const ids: Record<string, string> = {};
  for (const path of paths) {
    files[path] = fromBytes(bytes.get(path)!);
    ids[path] = tree.entries.get(path)!.id;
  }
  return { head, files, ids };
}

async function commit(transport: SyncTransport, expectedHead: string | null, writes: Record<string, Content>, deletes: string[] = []): Promise<CommitOutcome> {
  const change: RemoteChange = {
    expectedHead,
    writes: new Map(Object.entries(writes).map(([path, content]) => [path, { bytes: toBytes(content), mode: 0o644 }])),
    deletes,
    message: 'Knack sync',
  };
  try {
    return { ok: true, head: await transport.commit(change) };
  } catch (error) {
    return describeError(error);
  }
}

function describeError(error: unknown): CommitOutcome & { ok: false } {
  return {
    ok: false,
    name: (error as Error).name,
    problem: error instanceof SyncPlaceError ? error.problem : null,
    message: (error as Error).message,
    actualHead: error instanceof RemoteMovedError ? error.actualHead : null,
    resetAt: error instanceof SyncPlaceError ? error.resetAt : null,
  };
}

async function walkFolder(directory: FileSystemDirectoryHandle, base: string, out: Record<string, Content>): Promise<void> {
  for await (const [name, handle] of (directory as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
    if (handle.kind === 'directory') await walkFolder(handle as FileSystemDirectoryHandle, `${base}${name}/`, out);
    else out[base + name] = fromBytes(new Uint8Array(await (await (handle as FileSystemFileHandle).getFile()).arrayBuffer()));
  }
}

const harness = {
  github: {
    snapshot: (place: GitHubPlace) => snapshot(new GitHubTransport(place)).catch((error: unknown) => describeError(error)),
    readHead: (place: GitHubPlace) => new GitHubTransport(place).readHead().catch((error: unknown) => describeError(error)),
    commit: (place: GitHubPlace, expectedHead: string | null, writes: Record<string, Content>, deletes?: string[]) => commit(new GitHubTransport(place), expectedHead, writes, deletes),
  },
  folder: {
    snapshot: async (name: string) => snapshot(new FolderTransport(await folderRoot(name))),
    commit: async (name: string, expectedHead: string | null, writes: Record<string, Content>, deletes?: string[]) => commit(new FolderTransport(await folderRoot(name)), expectedHead, writes, deletes),
    /** What is really in the folder, read without the transport. */
    contents: async (name: string) => {
      const out: Record<string, Content> = {};
      await walkFolder(await folderRoot(name), '', out);
      return out;
    },
    /** Another agent (or the user's editor) writes a file in the folder. */
    writeAsOtherAgent: async (name: string, path: string, content: Content) => {
      let directory = await folderRoot(name);
      const parts = path.split('/');
      for (const part of parts.slice(0, -1)) directory = await directory.getDirectoryHandle(part, { create: true });
      const writable = await (await directory.getFileHandle(parts.at(-1)!, { create: true })).createWritable();
      await writable.write(toBytes(content) as Uint8Array<ArrayBuffer>);
      await writable.close();
    },
    remember: async (name: string) => saveSyncFolder(await folderRoot(name)),
    recall: async () => {
      const handle = await loadSyncFolder();
      return handle ? { name: handle.name, permitted: await folderPermission(handle, false) } : null;
    },
  },
};

(globalThis as unknown as { knackSyncHarness: typeof harness }).knackSyncHarness = harness;
export type SyncHarness = typeof harness;
