/**
 * The file store the core writes skills and memory through.
 *
 * Paths are POSIX-style and relative to the store root ("skills/git/commit-style/SKILL.md").
 * Implemented on OPFS for the app (`opfsFileStore.ts`) and in memory for unit tests only
 * (`memoryFileStore.ts`). Callers never see a partially written file: `write` is atomic.
 */
export type FileData = Uint8Array | string;

export interface FileEntry {
  name: string;
  kind: 'file' | 'directory';
}

export interface FileStore {
  /** Bytes of a file, or null when it does not exist. */
  read(path: string): Promise<Uint8Array | null>;
  /** UTF-8 text of a file, or null when it does not exist. */
  readText(path: string): Promise<string | null>;
  /** Atomically replace (or create) a file; parent directories are created. */
  write(path: string, data: FileData): Promise<void>;
  /** Delete a file. Returns false when there was nothing to delete. */
  delete(path: string): Promise<boolean>;
  /** Delete a directory and everything under it. Returns false when it did not exist. */
  deleteTree(path: string): Promise<boolean>;
  /** Move one file onto another name, replacing the destination (POSIX rename). */
  move(from: string, to: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Direct children of a directory, sorted by name; [] when it does not exist. */
  list(dir: string): Promise<FileEntry[]>;
  /** Every file path under a directory (recursive), sorted; [] when it does not exist. */
  walk(dir: string): Promise<string[]>;
  /**
   * Optional: `walk` with a reader for each file bound to what the walk found, so reading it
   * needs no lookup of its own (an export reads thousands). A file gone meanwhile reads null.
   */
  walkFiles?(dir: string): Promise<WalkedFile[]>;
  /**
   * Optional: `list`, plus the text of the listed files named in `read`, read through the
   * handles the listing gave (no lookup per file: a rescan reads one SKILL.md per folder).
   */
  listAndRead?(dir: string, read: readonly string[]): Promise<{ entries: FileEntry[]; texts: Map<string, string> }>;
}

/** Serialises read-modify-write sections across tabs and workers (Web Locks in the browser). */
export interface LockManager {
  withLock<T>(key: string, fn: () => Promise<T>, options?: { signal?: AbortSignal }): Promise<T>;
}

/** Suffix of temp files written before an atomic publish; recovery sweeps stray ones. */
export const TEMP_SUFFIX = '.knack-tmp';

export function splitPath(path: string): string[] {
  return path.split('/').filter((part) => part.length > 0 && part !== '.');
}

export function joinPath(...parts: string[]): string {
  return parts.flatMap(splitPath).join('/');
}

export function parentOf(path: string): string {
  const parts = splitPath(path);
  parts.pop();
  return parts.join('/');
}

export function baseName(path: string): string {
  const parts = splitPath(path);
  return parts[parts.length - 1] ?? '';
}

export const textEncoder = new TextEncoder();
export const textDecoder = new TextDecoder('utf-8');

export function toBytes(data: FileData): Uint8Array {
  return typeof data === 'string' ? textEncoder.encode(data) : data;
}

/** A file found by `walkFiles`. */
export interface WalkedFile {
  path: string;
  read(): Promise<Uint8Array | null>;
}
