/**
 * FileStore on the Origin Private File System. Works on the UI thread and in workers
 * (it only uses the async handle API, never sync access handles).
 *
 * Every write goes to a temp file in the same directory and is published with
 * `FileSystemFileHandle.move(dir, name)`, which replaces the destination like POSIX
 * rename() in Chromium, Firefox and current Safari: a reader sees the old file or the new
 * one, never a mix (SPEC §3.3 inv. 1, browser-platform §1.1).
 */
import {
  type FileData,
  type FileEntry,
  type FileStore,
  baseName,
  parentOf,
  splitPath,
  textDecoder,
  toBytes,
} from './fileStore';
import { type Liveness, contextLiveness, randomId } from './liveness';
import { isQuotaError, toStorageFullError } from './quota';
import { tempPathFor } from './tempFiles';

/** `move()` is shipped by every engine but is not in the spec, so not in TypeScript's DOM lib. */
interface MovableFileHandle extends FileSystemFileHandle {
  move(destination: FileSystemDirectoryHandle, newName: string): Promise<void>;
}

/** Async iteration is in lib.dom.asynciterable, which this project does not load. */
interface IterableDirectoryHandle extends FileSystemDirectoryHandle {
  entries(): AsyncIterable<[string, FileSystemHandle]>;
}

export interface OpfsFileStoreOptions {
  /** The directory that acts as the store root; defaults to the OPFS root. */
  root?: () => Promise<FileSystemDirectoryHandle>;
  liveness?: Liveness;
  /** Called (not awaited) before the first write, e.g. requestPersistenceOnce. */
  onFirstWrite?: () => unknown;
  /** Attempts for operations that fail with NoModificationAllowedError (another writer). */
  busyRetries?: number;
}

const BUSY_BACKOFF_MS = [5, 10, 20, 40, 80, 160, 320, 640];

export class OpfsFileStore implements FileStore {
  private rootHandle: Promise<FileSystemDirectoryHandle> | undefined;
  private readonly liveness: Liveness;
  private firstWriteSeen = false;

  constructor(private readonly options: OpfsFileStoreOptions = {}) {
    this.liveness = options.liveness ?? contextLiveness();
  }

  async read(path: string): Promise<Uint8Array | null> {
    const handle = await this.fileHandle(path);
    if (!handle) return null;
    try {
      return new Uint8Array(await (await handle.getFile()).arrayBuffer());
    } catch (err) {
      if (isNotFound(err)) return null; // deleted between lookup and read
      throw err;
    }
  }

  async readText(path: string): Promise<string | null> {
    const bytes = await this.read(path);
    return bytes === null ? null : textDecoder.decode(bytes);
  }

  async write(path: string, data: FileData): Promise<void> {
    const name = requireName(path);
    this.noteWrite();
    await this.liveness.hold?.();
    const dir = await this.directory(parentOf(path), true);
    const tempPath = tempPathFor(path, this.liveness.self, randomId(6));
    const tempName = baseName(tempPath);
    this.liveness.markInUse(tempPath);
    try {
      const temp = (await dir.getFileHandle(tempName, { create: true })) as MovableFileHandle;
      try {
        await this.withBusyRetry(() => writeWhole(temp, toBytes(data)));
      } catch (err) {
        await dir.removeEntry(tempName).catch(() => undefined);
        if (isQuotaError(err, { duringWrite: true })) throw await toStorageFullError(err, path);
        throw err;
      }
      try {
        await this.publish(temp, dir, name, path);
      } catch (err) {
        await dir.removeEntry(tempName).catch(() => undefined);
        throw isQuotaError(err) ? await toStorageFullError(err, path) : err;
      }
    } finally {
      this.liveness.release(tempPath);
    }
  }

  async delete(path: string): Promise<boolean> {
    const name = requireName(path);
    const dir = await this.directory(parentOf(path), false);
    if (!dir) return false;
    // Refuse directories: removeEntry would delete an empty one silently.
    try {
      await dir.getFileHandle(name);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return this.withBusyRetry(async () => {
      try {
        await dir.removeEntry(name);
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    });
  }

  async deleteTree(path: string): Promise<boolean> {
    const parts = splitPath(path);
    if (parts.length === 0) {
      // The root itself cannot be removed; empty it instead.
      const root = await this.root();
      const names: string[] = [];
      for await (const [name] of (root as IterableDirectoryHandle).entries()) names.push(name);
      await Promise.all(names.map((name) => this.withBusyRetry(() => root.removeEntry(name, { recursive: true }))));
      return names.length > 0;
    }
    const parent = await this.directory(parentOf(path), false);
    if (!parent) return false;
    const name = parts[parts.length - 1]!;
    return this.withBusyRetry(async () => {
      try {
        await parent.removeEntry(name, { recursive: true });
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    });
  }

  /** Moves one file (Chromium cannot move directories; this store never tries). */
  async move(from: string, to: string): Promise<void> {
    const source = (await this.fileHandle(from)) as MovableFileHandle | null;
    if (!source) throw new DOMException(`No file at ${from}`, 'NotFoundError');
    const targetDir = await this.directory(parentOf(to), true);
    await this.publish(source, targetDir, requireName(to), to);
  }

  async exists(path: string): Promise<boolean> {
    const parts = splitPath(path);
    if (parts.length === 0) return true;
    const dir = await this.directory(parentOf(path), false);
    if (!dir) return false;
    const name = parts[parts.length - 1]!;
    for (const lookup of [() => dir.getFileHandle(name), () => dir.getDirectoryHandle(name)]) {
      try {
        await lookup();
        return true;
      } catch (err) {
        if (!isNotFound(err) && !isTypeMismatch(err)) throw err;
      }
    }
    return false;
  }

  async list(dir: string): Promise<FileEntry[]> {
    const handle = await this.directory(dir, false);
    if (!handle) return [];
    const entries: FileEntry[] = [];
    for await (const [name, child] of (handle as IterableDirectoryHandle).entries()) {
      entries.push({ name, kind: child.kind });
    }
    return entries.sort(byName);
  }

  /** Every file under `dir`, temp files included (the recovery sweep needs to see them). */
  async walk(dir: string): Promise<string[]> {
    const handle = await this.directory(dir, false);
    if (!handle) return [];
    const out: string[] = [];
    await walkInto(handle, splitPath(dir).join('/'), out);
    return out.sort();
  }

  // --- internals ---------------------------------------------------------------------

  private root(): Promise<FileSystemDirectoryHandle> {
    this.rootHandle ??= (this.options.root ?? (() => navigator.storage.getDirectory()))();
    return this.rootHandle;
  }

  private noteWrite(): void {
    if (this.firstWriteSeen) return;
    this.firstWriteSeen = true;
    void Promise.resolve()
      .then(() => this.options.onFirstWrite?.())
      .catch(() => undefined);
  }

  private directory(path: string, create: true): Promise<FileSystemDirectoryHandle>;
  private directory(path: string, create: false): Promise<FileSystemDirectoryHandle | null>;
  private async directory(path: string, create: boolean): Promise<FileSystemDirectoryHandle | null> {
    let dir = await this.root();
    for (const part of splitPath(path)) {
      try {
        dir = await dir.getDirectoryHandle(part, { create });
      } catch (err) {
        if (!create && (isNotFound(err) || isTypeMismatch(err))) return null;
        if (isQuotaError(err)) throw await toStorageFullError(err, path);
        throw err;
      }
    }
    return dir;
  }

  private async fileHandle(path: string): Promise<FileSystemFileHandle | null> {
    const name = requireName(path);
    const dir = await this.directory(parentOf(path), false);
    if (!dir) return null;
    try {
      return await dir.getFileHandle(name);
    } catch (err) {
      if (isNotFound(err) || isTypeMismatch(err)) return null;
      throw err;
    }
  }

  /**
   * Moves `handle` onto `dir/name`, replacing what is there. If the engine refuses to
   * overwrite (Safari before 2023), falls back to remove-then-move, which is not atomic,
   * and says so in the console.
   */
  private async publish(handle: MovableFileHandle, dir: FileSystemDirectoryHandle, name: string, path: string) {
    try {
      await this.withBusyRetry(() => handle.move(dir, name));
    } catch (err) {
      if (isQuotaError(err) || isNotFound(err)) throw err;
      console.warn(`[knack] atomic move onto ${path} failed (${describe(err)}); replacing non-atomically`);
      await this.withBusyRetry(async () => {
        await dir.removeEntry(name).catch((removeErr: unknown) => {
          if (!isNotFound(removeErr)) throw removeErr;
        });
        await handle.move(dir, name);
      });
    }
  }

  /** Retries while another tab or worker holds the file (NoModificationAllowedError). */
  private async withBusyRetry<T>(operation: () => Promise<T>): Promise<T> {
    const attempts = this.options.busyRetries ?? BUSY_BACKOFF_MS.length;
    for (let attempt = 0; ; attempt++) {
      try {
        return await operation();
      } catch (err) {
        if (!isBusy(err) || attempt >= attempts) throw err;
        const base = BUSY_BACKOFF_MS[Math.min(attempt, BUSY_BACKOFF_MS.length - 1)]!;
        await sleep(base + Math.random() * base);
      }
    }
  }
}

async function writeWhole(handle: FileSystemFileHandle, bytes: Uint8Array): Promise<void> {
  const writable = await handle.createWritable();
  try {
    await writable.write(bytes as Uint8Array<ArrayBuffer>);
    await writable.close();
  } catch (err) {
    await writable.abort().catch(() => undefined);
    throw err;
  }
}

async function walkInto(dir: FileSystemDirectoryHandle, prefix: string, out: string[]): Promise<void> {
  const subdirs: Promise<void>[] = [];
  for await (const [name, child] of (dir as IterableDirectoryHandle).entries()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (child.kind === 'file') out.push(path);
    // Sibling directories are read in parallel: sequential OPFS reads are ~3× slower.
    else subdirs.push(walkInto(child as FileSystemDirectoryHandle, path, out));
  }
  await Promise.all(subdirs);
}

function requireName(path: string): string {
  const name = baseName(path);
  if (!name) throw new TypeError(`Not a file path: "${path}"`);
  return name;
}

function errorName(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null ? (err as { name?: string }).name : undefined;
}
const isNotFound = (err: unknown) => errorName(err) === 'NotFoundError';
const isTypeMismatch = (err: unknown) => errorName(err) === 'TypeMismatchError';
const isBusy = (err: unknown) => errorName(err) === 'NoModificationAllowedError';
const byName = (a: FileEntry, b: FileEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const describe = (err: unknown) => `${errorName(err) ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
