/**
 * The library in a folder on this computer (docs/sync.md, "Folder on this computer"), through the
 * File System Access API: a folder the user picked (`showDirectoryPicker`), such as
 * `~/.claude/skills` or one Syncthing or Dropbox keeps. Other agents read and edit the same files.
 *
 * A folder has no history, so its "head" is a version id of its listing: a hash of every file's
 * path, size and last-modified time. A file's id is git's blob id of its bytes (the same id a
 * GitHub tree gives), computed once per path, size and time and remembered. A commit lists the
 * folder again and refuses (RemoteMovedError) if the listing changed since the head it was based
 * on, then writes each file through `createWritable` (Chromium writes a swap file and replaces the
 * original on close, so a reader never sees half a file) and removes deleted files and the
 * folders they leave empty. Every path is checked to stay inside the picked folder.
 */
import { RemoteMovedError, SyncPlaceError, type RemoteChange, type RemoteEntry, type RemoteTree, type SyncTransport } from './transport';
import { gitBlobId } from './gitBlobId';

const FILE_MODE = 0o644;
const IN_FLIGHT = 32;
/** Never library files: other tools' bookkeeping, and Chromium's swap files while a write is open. */
const IGNORED_NAMES = new Set(['.git', '.DS_Store', 'Thumbs.db', 'desktop.ini', '__MACOSX']);
const IGNORED_SUFFIXES = ['.crswap'];

/** The parts of FileSystemDirectoryHandle this module uses that TypeScript's DOM library lacks. */
interface ListableDirectory extends FileSystemDirectoryHandle {
  entries(): AsyncIterable<[string, FileSystemDirectoryHandle | FileSystemFileHandle]>;
}
interface PermissionHandle {
  queryPermission?(descriptor: { mode: 'read' | 'readwrite' }): Promise<PermissionState>;
  requestPermission?(descriptor: { mode: 'read' | 'readwrite' }): Promise<PermissionState>;
}

interface ListedFile {
  /** The file as listed: reading it fails if it changed since (NotReadableError). */
  file: File;
  size: number;
  lastModified: number;
}

interface Listing {
  id: string | null;
  files: Map<string, ListedFile>;
}

/** `work` on every item, at most IN_FLIGHT at a time; results in the items' order. */
async function inPool<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(IN_FLIGHT, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

/** Whether this browser can open a folder on this computer at all. */
export function folderAccessAvailable(): boolean {
  return typeof globalThis !== 'undefined' && 'showDirectoryPicker' in globalThis;
}

export const FOLDER_UNAVAILABLE_MESSAGE =
  'This browser cannot open a folder on this computer (File System Access is in Chromium-based browsers on desktop and Android; Firefox and Safari do not have it). Sync with a GitHub repository or a git server instead, or use Export.';

/** Asks the user for a folder (must run in a user gesture). Throws SyncPlaceError where the browser has no File System Access. */
export async function pickSyncFolder(): Promise<FileSystemDirectoryHandle> {
  if (!folderAccessAvailable()) throw new SyncPlaceError(FOLDER_UNAVAILABLE_MESSAGE, 'refused');
  const picker = (globalThis as unknown as { showDirectoryPicker(options: { id: string; mode: 'readwrite' }): Promise<FileSystemDirectoryHandle> }).showDirectoryPicker;
  try {
    return await picker({ id: 'knack-sync', mode: 'readwrite' });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') {
      throw new SyncPlaceError('No folder was chosen (or the browser refused a system folder): choose a folder of your own, such as ~/.claude/skills.', 'refused');
    }
    throw error;
  }
}

/**
 * Permission to read and write the folder. Browsers drop it between visits unless the user chose
 * "allow on every visit"; asking again needs a user gesture, so `request` is true only when called
 * from a click (Connect, Sync now).
 */
export async function folderPermission(handle: FileSystemDirectoryHandle, request: boolean): Promise<boolean> {
  const withPermission = handle as unknown as PermissionHandle;
  if (typeof withPermission.queryPermission !== 'function') return true; // origin-private folders need none
  if ((await withPermission.queryPermission({ mode: 'readwrite' })) === 'granted') return true;
  if (!request || typeof withPermission.requestPermission !== 'function') return false;
  return (await withPermission.requestPermission({ mode: 'readwrite' })) === 'granted';
}

/** A path inside the library as folder names and a file name, or a refusal if it could leave the folder. */
export function folderPathParts(path: string): string[] {
  const parts = path.split('/');
  const unsafe = parts.some((part) => part === '' || part === '.' || part === '..' || /[\\:\0]/.test(part));
  if (unsafe || path.startsWith('/')) throw new SyncPlaceError(`Refused to touch "${path}": every path must stay inside the chosen folder.`, 'refused');
  return parts;
}

export class FolderTransport implements SyncTransport {
  readonly kind = 'folder' as const;
  /** Blob ids by `path\0size\0lastModified`: a file is read again only when it changed. */
  private readonly ids = new Map<string, string>();
  private lastListing: Listing | null = null;

  constructor(private readonly root: FileSystemDirectoryHandle) {}

  /** Whether `handle` is the folder this transport works in. */
  sameFolder(handle: FileSystemDirectoryHandle): Promise<boolean> {
    return this.root.isSameEntry(handle);
  }

  /** The folder's name, for the status line. */
  get name(): string {
    return this.root.name;
  }

  async readHead(signal?: AbortSignal): Promise<string | null> {
    await this.requirePermission();
    this.lastListing = await this.list(signal);
    return this.lastListing.id;
  }

  async readTree(head: string, signal?: AbortSignal): Promise<RemoteTree> {
    let listing = this.lastListing;
    if (!listing || listing.id !== head) {
      await this.requirePermission();
      listing = await this.list(signal);
      if (listing.id !== head) throw new RemoteMovedError(listing.id);
    }
    const listed = [...listing.files];
    let ids: string[];
    try {
      ids = await inPool(listed, ([path, file]) => {
        signal?.throwIfAborted();
        return this.blobId(path, file);
      });
    } catch (error) {
      // A file changed between the listing and its read: the head is already stale.
      if (error instanceof DOMException && (error.name === 'NotReadableError' || error.name === 'NotFoundError')) throw new RemoteMovedError((await this.list(signal)).id);
      throw error;
    }
    const entries = new Map<string, RemoteEntry>();
    listed.forEach(([path], index) => entries.set(path, { id: ids[index]!, mode: FILE_MODE }));
    return { head, entries };
  }

  async readFiles(_head: string, paths: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    await this.requirePermission();
    const files = new Map<string, Uint8Array>();
    for (const path of paths) {
      signal?.throwIfAborted();
      const handle = await this.fileHandle(path, false);
      if (!handle) throw new SyncPlaceError(`${path} is no longer in the folder ${this.root.name}; run Sync now again.`, 'other');
      files.set(path, new Uint8Array(await (await handle.getFile()).arrayBuffer()));
    }
    return files;
  }

  async commit(change: RemoteChange, signal?: AbortSignal): Promise<string> {
    await this.requirePermission();
    for (const path of [...change.writes.keys(), ...change.deletes]) folderPathParts(path);
    const before = await this.list(signal);
    if (before.id !== change.expectedHead) throw new RemoteMovedError(before.id);
    for (const [path, { bytes }] of change.writes) {
      signal?.throwIfAborted();
      const handle = (await this.fileHandle(path, true))!;
      const writable = await handle.createWritable();
      try {
        await writable.write(bytes as Uint8Array<ArrayBuffer>);
        await writable.close();
      } catch (error) {
        await writable.abort().catch(() => undefined);
        throw new SyncPlaceError(`Could not write ${path} in the folder ${this.root.name} (${(error as Error).message}); nothing else was lost. Check the disk and run Sync now.`, 'other');
      }
    }
    for (const path of change.deletes) {
      signal?.throwIfAborted();
      await this.remove(path);
    }
    this.lastListing = await this.list(signal);
    if (this.lastListing.id === null) throw new SyncPlaceError(`The folder ${this.root.name} is empty after the sync wrote to it; check that nothing else is clearing it.`, 'other');
    return this.lastListing.id;
  }

  private async requirePermission(): Promise<void> {
    // Asking works only right after a click (Sync now); otherwise the browser refuses and the
    // message says to press it. The transport lives between syncs, so it asks itself.
    if (!(await folderPermission(this.root, true).catch(() => false))) {
      throw new SyncPlaceError(`Knack needs your permission to use the folder ${this.root.name} again: press Sync now and allow it.`, 'auth');
    }
  }

  private async list(signal?: AbortSignal): Promise<Listing> {
    // Sibling folders are listed together and files stat'ed IN_FLIGHT at a time: each call is a
    // round trip to the browser process, and one at a time is several times slower (docs/sync.md).
    const handles: [string, FileSystemFileHandle][] = [];
    const walk = async (directory: FileSystemDirectoryHandle, base: string): Promise<void> => {
      const folders: Promise<void>[] = [];
      for await (const [name, handle] of (directory as ListableDirectory).entries()) {
        signal?.throwIfAborted();
        if (IGNORED_NAMES.has(name) || IGNORED_SUFFIXES.some((suffix) => name.endsWith(suffix))) continue;
        if (handle.kind === 'directory') folders.push(walk(handle as FileSystemDirectoryHandle, `${base}${name}/`));
        else handles.push([base + name, handle as FileSystemFileHandle]);
      }
      await Promise.all(folders);
    };
    const files = new Map<string, ListedFile>();
    try {
      await walk(this.root, '');
      const stats = await inPool(handles, async ([, handle]) => {
        signal?.throwIfAborted();
        return handle.getFile();
      });
      handles.forEach(([path], index) => files.set(path, { file: stats[index]!, size: stats[index]!.size, lastModified: stats[index]!.lastModified }));
    } catch (error) {
      if (error instanceof DOMException && error.name === 'NotFoundError') {
        throw new SyncPlaceError(`The folder ${this.root.name} changed while it was read, or is gone: run Sync now again, or choose it again with Connect.`, 'not-found');
      }
      throw error;
    }
    if (files.size === 0) return { id: null, files };
    const lines = [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, file]) => `${path}\0${file.size}\0${file.lastModified}\n`);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(lines.join(''))));
    const id = Array.from(digest.subarray(0, 20), (byte) => byte.toString(16).padStart(2, '0')).join('');
    return { id, files };
  }

  private async blobId(path: string, file: ListedFile): Promise<string> {
    const key = `${path}\0${file.size}\0${file.lastModified}`;
    let id = this.ids.get(key);
    if (!id) {
      id = await gitBlobId(new Uint8Array(await file.file.arrayBuffer()));
      this.ids.set(key, id);
    }
    return id;
  }

  private async fileHandle(path: string, create: boolean): Promise<FileSystemFileHandle | null> {
    const parts = folderPathParts(path);
    let directory = this.root;
    try {
      for (const part of parts.slice(0, -1)) directory = await directory.getDirectoryHandle(part, { create });
      return await directory.getFileHandle(parts.at(-1)!, { create });
    } catch (error) {
      if (!create && error instanceof DOMException && (error.name === 'NotFoundError' || error.name === 'TypeMismatchError')) return null;
      throw error;
    }
  }

  /** Removes a file, then each folder it leaves empty (never the chosen folder itself). */
  private async remove(path: string): Promise<void> {
    const parts = folderPathParts(path);
    const chain: FileSystemDirectoryHandle[] = [this.root];
    try {
      for (const part of parts.slice(0, -1)) chain.push(await chain.at(-1)!.getDirectoryHandle(part));
      await chain.at(-1)!.removeEntry(parts.at(-1)!);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'NotFoundError') return; // already gone: what the change wanted
      throw error;
    }
    for (let depth = chain.length - 1; depth > 0; depth -= 1) {
      const entries = (chain[depth] as ListableDirectory).entries()[Symbol.asyncIterator]();
      if (!(await entries.next()).done) break;
      await chain[depth - 1]!.removeEntry(parts[depth - 1]!);
    }
  }
}
