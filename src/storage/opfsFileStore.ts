/**
 * FileStore on the Origin Private File System. Works on the UI thread and in workers
 * (it only uses the async handle API, never sync access handles).
 *
 * Every write goes to a temp file in the same directory and is published with
 * `FileSystemFileHandle.move(dir, name)`, which replaces the destination like POSIX
 * rename() in Chromium, Firefox and current Safari: a reader sees the old file or the new
 * one, never a mix (docs/storage.md, guarantee 1).
 */
import {
  type FileData,
  type FileEntry,
  type FileStore,
  type WalkedFile,
  baseName,
  parentOf,
  splitPath,
  textDecoder,
  toBytes,
} from './fileStore';
import { type Liveness, contextLiveness, randomId } from './liveness';
import { isQuotaError, toStorageFullError } from './quota';
import { isTempPath, tempPathFor } from './tempFiles';

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
/** Past this many cached directory handles the cache starts over (10,000 skills need ~10,050). */
const DIRECTORY_CACHE_LIMIT = 50_000;

export class OpfsFileStore implements FileStore {
  private rootHandle: Promise<FileSystemDirectoryHandle> | undefined;
  /**
   * Directory handles by path ("skills/git/commit-style"). Resolving a path from the root
   * costs one `getDirectoryHandle` per level on every call otherwise. A cached handle can go
   * stale when another tab or worker removes the directory: an operation that fails with
   * NotFoundError or InvalidStateError through a cached handle looks the path up afresh and
   * runs once more (`inDirectory`).
   */
  private readonly directories = new Map<string, FileSystemDirectoryHandle>();
  private readonly liveness: Liveness;
  private firstWriteSeen = false;

  constructor(private readonly options: OpfsFileStoreOptions = {}) {
    this.liveness = options.liveness ?? contextLiveness();
  }

  async read(path: string): Promise<Uint8Array | null> {
    const name = requireName(path);
    // A missing file, a directory of that name, or a file deleted between lookup and read: null.
    return this.inDirectory(parentOf(path), false, null, async (dir) => {
      const handle = await fileIn(dir, name);
      return handle && new Uint8Array(await (await handle.getFile()).arrayBuffer());
    });
  }

  async readText(path: string): Promise<string | null> {
    const bytes = await this.read(path);
    return bytes === null ? null : textDecoder.decode(bytes);
  }

  async write(path: string, data: FileData): Promise<void> {
    const name = requireName(path);
    this.noteWrite();
    await this.liveness.hold?.();
    const bytes = toBytes(data);
    // A directory removed elsewhere fails the temp file's creation (NotFoundError); the
    // retry in inDirectory recreates it. Nothing was published by the failed attempt.
    await this.inDirectory(parentOf(path), true, undefined, (dir) => (isTempPath(path) ? this.writeTemp(dir, name, path, bytes) : this.writeIn(dir, name, path, bytes)));
  }

  /**
   * A temp path (the journal's staged copy) is invisible to readers and swept when its writer
   * is gone, so it is written in place: a temp file and a move around it would only add two
   * round trips per staged file (docs/skill-tools.md, "At scale").
   */
  private async writeTemp(dir: FileSystemDirectoryHandle, name: string, path: string, bytes: Uint8Array): Promise<void> {
    const handle = await dir.getFileHandle(name, { create: true });
    try {
      await this.withBusyRetry(() => writeWhole(handle, bytes));
    } catch (err) {
      await dir.removeEntry(name).catch(() => undefined);
      throw isQuotaError(err, { duringWrite: true }) ? await toStorageFullError(err, path) : err;
    }
  }

  private async writeIn(dir: FileSystemDirectoryHandle, name: string, path: string, bytes: Uint8Array): Promise<void> {
    const tempPath = tempPathFor(path, this.liveness.self, randomId(6));
    const tempName = baseName(tempPath);
    this.liveness.markInUse(tempPath);
    try {
      const temp = (await dir.getFileHandle(tempName, { create: true })) as MovableFileHandle;
      try {
        await this.withBusyRetry(() => writeWhole(temp, bytes));
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
    return this.inDirectory(parentOf(path), false, false, async (dir) => {
      // Refuse directories: removeEntry would delete an empty one silently.
      await dir.getFileHandle(name);
      return this.withBusyRetry(async () => {
        await dir.removeEntry(name);
        return true;
      });
    });
  }

  async deleteTree(path: string): Promise<boolean> {
    const parts = splitPath(path);
    if (parts.length === 0) {
      // The root itself cannot be removed; empty it instead.
      this.directories.clear();
      const root = await this.root();
      const names: string[] = [];
      for await (const [name] of (root as IterableDirectoryHandle).entries()) names.push(name);
      await Promise.all(names.map((name) => this.withBusyRetry(() => root.removeEntry(name, { recursive: true }))));
      return names.length > 0;
    }
    const name = parts[parts.length - 1]!;
    try {
      return await this.inDirectory(parentOf(path), false, false, (parent) =>
        this.withBusyRetry(async () => {
          await parent.removeEntry(name, { recursive: true });
          return true;
        }),
      );
    } finally {
      // Forgotten even when the removal failed part-way: some of the tree may be gone.
      this.forgetDirectory(parts.join('/'));
    }
  }

  /** Moves one file (Chromium cannot move directories; this store never tries). */
  async move(from: string, to: string): Promise<void> {
    const fromName = requireName(from);
    const toName = requireName(to);
    const missing = Symbol('missing');
    const source = await this.inDirectory(parentOf(from), false, missing, async (dir) => (await fileIn(dir, fromName)) ?? missing);
    if (source === missing) throw new DOMException(`No file at ${from}`, 'NotFoundError');
    await this.inDirectory(parentOf(to), true, undefined, (targetDir) =>
      this.publish(source as MovableFileHandle, targetDir, toName, to),
    );
  }

  async exists(path: string): Promise<boolean> {
    const parts = splitPath(path);
    if (parts.length === 0) return true;
    const name = parts[parts.length - 1]!;
    return this.inDirectory(parentOf(path), false, false, async (dir) => {
      for (const lookup of [() => dir.getFileHandle(name), () => dir.getDirectoryHandle(name)]) {
        try {
          await lookup();
          return true;
        } catch (err) {
          if (!isNotFound(err) && !isTypeMismatch(err)) throw err;
        }
      }
      // Thrown rather than returned so that a stale cached directory gets a fresh lookup.
      throw new DOMException(`Nothing at ${path}`, 'NotFoundError');
    });
  }

  async list(dir: string): Promise<FileEntry[]> {
    return (await this.listAndRead(dir, [])).entries;
  }

  async listAndRead(dir: string, read: readonly string[]): Promise<{ entries: FileEntry[]; texts: Map<string, string> }> {
    const key = splitPath(dir).join('/');
    const texts = new Map<string, string>();
    const entries = await this.inDirectory(
      dir,
      false,
      [],
      async (handle) => {
        const found: FileEntry[] = [];
        const reads: Promise<void>[] = [];
        for await (const [name, child] of (handle as IterableDirectoryHandle).entries()) {
          found.push({ name, kind: child.kind });
          // Listing hands out the subdirectories' handles: a scan that lists a category and
          // then reads each skill in it saves one lookup per skill.
          if (child.kind === 'directory') this.rememberDirectory(key ? `${key}/${name}` : name, child as FileSystemDirectoryHandle);
          else if (read.includes(name)) {
            reads.push(
              readHandle(child as FileSystemFileHandle).then((bytes) => {
                if (bytes !== null) texts.set(name, textDecoder.decode(bytes));
              }),
            );
          }
        }
        await Promise.all(reads);
        return found;
      },
      { notFoundIsMissing: false },
    );
    return { entries: entries.sort(byName), texts };
  }

  /** Every file under `dir`, temp files included (the recovery sweep needs to see them). */
  async walk(dir: string): Promise<string[]> {
    const out = await this.inDirectory(
      dir,
      false,
      [],
      async (handle) => {
        const found: string[] = [];
        await walkInto(handle, splitPath(dir).join('/'), (path) => found.push(path), (key, child) => this.rememberDirectory(key, child));
        return found;
      },
      { notFoundIsMissing: false },
    );
    return out.sort();
  }

  /** `walk`, keeping each file's handle: reading it later is one call to the file, not a lookup and a read. */
  async walkFiles(dir: string): Promise<WalkedFile[]> {
    const out = await this.inDirectory(
      dir,
      false,
      [] as WalkedFile[],
      async (handle) => {
        const found: WalkedFile[] = [];
        await walkInto(
          handle,
          splitPath(dir).join('/'),
          (path, file) => found.push({ path, read: () => readHandle(file) }),
          (key, child) => this.rememberDirectory(key, child),
        );
        return found;
      },
      { notFoundIsMissing: false },
    );
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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

  /**
   * Runs `operation` on the directory at `path` (created when `create`); gives `missing` when
   * the directory does not exist, and, unless `notFoundIsMissing` is false, when the
   * operation fails with NotFoundError (a missing file, or one removed meanwhile). When the
   * handle came from the cache and the operation fails with NotFoundError or
   * InvalidStateError, the handle may be stale (another tab removed the directory): the path
   * is looked up afresh from the root and the operation runs once more.
   */
  private async inDirectory<T, M>(
    path: string,
    create: boolean,
    missing: M,
    operation: (dir: FileSystemDirectoryHandle) => Promise<T>,
    options: { notFoundIsMissing?: boolean } = {},
  ): Promise<T | M> {
    const key = splitPath(path).join('/');
    for (let attempt = 0; ; attempt++) {
      const lookup = await this.directory(key, create, attempt > 0);
      if (!lookup) return missing;
      try {
        return await operation(lookup.dir);
      } catch (err) {
        if (attempt === 0 && lookup.cached && (isNotFound(err) || isInvalidState(err))) continue;
        if (!create && isNotFound(err) && (options.notFoundIsMissing ?? true)) return missing;
        throw err;
      }
    }
  }

  /**
   * The directory at `key` (a normalised path), or null when `create` is false and it does not
   * exist. `cached` says whether the lookup started from a cached handle; `fresh` starts from
   * the root and refreshes the cache along the way.
   */
  private async directory(
    key: string,
    create: boolean,
    fresh: boolean,
  ): Promise<{ dir: FileSystemDirectoryHandle; cached: boolean } | null> {
    const parts = key ? key.split('/') : [];
    // Start at the deepest cached directory on the path (the path itself on a hit).
    let depth = fresh ? 0 : parts.length;
    let dir: FileSystemDirectoryHandle | undefined;
    for (; depth > 0; depth--) {
      dir = this.directories.get(parts.slice(0, depth).join('/'));
      if (dir) break;
    }
    const cached = dir !== undefined;
    dir ??= await this.root();
    for (; depth < parts.length; depth++) {
      const levelKey = parts.slice(0, depth + 1).join('/');
      try {
        dir = await dir.getDirectoryHandle(parts[depth]!, { create });
      } catch (err) {
        const missing = isNotFound(err) || (!create && isTypeMismatch(err));
        // Below a cached directory, "not found" may only mean that handle is stale.
        if (cached && (missing || isInvalidState(err))) return this.directory(key, create, true);
        if (missing && !create) {
          for (let gone = depth; gone < parts.length; gone++) this.directories.delete(parts.slice(0, gone + 1).join('/'));
          return null;
        }
        if (isQuotaError(err)) throw await toStorageFullError(err, key);
        throw err;
      }
      this.rememberDirectory(levelKey, dir);
    }
    return { dir, cached };
  }

  private rememberDirectory(key: string, dir: FileSystemDirectoryHandle): void {
    if (this.directories.size >= DIRECTORY_CACHE_LIMIT) this.directories.clear();
    this.directories.set(key, dir);
  }

  /** Drops the cached handles of `key` and of every directory under it. */
  private forgetDirectory(key: string): void {
    if (!key) {
      this.directories.clear();
      return;
    }
    this.directories.delete(key);
    const prefix = `${key}/`;
    for (const cachedKey of this.directories.keys()) if (cachedKey.startsWith(prefix)) this.directories.delete(cachedKey);
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

async function walkInto(
  dir: FileSystemDirectoryHandle,
  prefix: string,
  onFile: (path: string, file: FileSystemFileHandle) => void,
  remember: (key: string, dir: FileSystemDirectoryHandle) => void,
): Promise<void> {
  const subdirs: Promise<void>[] = [];
  for await (const [name, child] of (dir as IterableDirectoryHandle).entries()) {
    const path = prefix ? `${prefix}/${name}` : name;
    if (child.kind === 'file') onFile(path, child as FileSystemFileHandle);
    else {
      // Like list(): a walk followed by reads of what it found (an export) saves a lookup per folder.
      remember(path, child as FileSystemDirectoryHandle);
      // Sibling directories are read in parallel: sequential OPFS reads are ~3× slower.
      subdirs.push(walkInto(child as FileSystemDirectoryHandle, path, onFile, remember));
    }
  }
  await Promise.all(subdirs);
}

/** A walked file's bytes; null when it was removed since the walk. */
async function readHandle(file: FileSystemFileHandle): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await (await file.getFile()).arrayBuffer());
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The file `name` in `dir`, or null when there is a directory of that name instead. */
async function fileIn(dir: FileSystemDirectoryHandle, name: string): Promise<FileSystemFileHandle | null> {
  try {
    return await dir.getFileHandle(name);
  } catch (err) {
    if (isTypeMismatch(err)) return null;
    throw err;
  }
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
const isInvalidState = (err: unknown) => errorName(err) === 'InvalidStateError';
const isBusy = (err: unknown) => errorName(err) === 'NoModificationAllowedError';
const byName = (a: FileEntry, b: FileEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const describe = (err: unknown) => `${errorName(err) ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
