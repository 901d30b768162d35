import {
  type FileData,
  type FileEntry,
  type FileStore,
  type LockManager,
  splitPath,
  textDecoder,
  toBytes,
} from './fileStore';

/** In-memory FileStore for unit tests only; the app always uses OPFS. */
export class MemoryFileStore implements FileStore {
  private files = new Map<string, Uint8Array>();

  private norm(path: string): string {
    return splitPath(path).join('/');
  }

  async read(path: string): Promise<Uint8Array | null> {
    const data = this.files.get(this.norm(path));
    return data ? data.slice() : null;
  }

  async readText(path: string): Promise<string | null> {
    const data = await this.read(path);
    return data === null ? null : textDecoder.decode(data);
  }

  async write(path: string, data: FileData): Promise<void> {
    this.files.set(this.norm(path), toBytes(data).slice());
  }

  async delete(path: string): Promise<boolean> {
    return this.files.delete(this.norm(path));
  }

  async deleteTree(path: string): Promise<boolean> {
    const prefix = this.norm(path) + '/';
    let found = false;
    for (const key of [...this.files.keys()]) {
      if (key.startsWith(prefix)) {
        this.files.delete(key);
        found = true;
      }
    }
    return found;
  }

  async move(from: string, to: string): Promise<void> {
    const data = this.files.get(this.norm(from));
    if (!data) throw new DOMException(`No file at ${from}`, 'NotFoundError');
    this.files.delete(this.norm(from));
    this.files.set(this.norm(to), data);
  }

  async exists(path: string): Promise<boolean> {
    const key = this.norm(path);
    if (this.files.has(key)) return true;
    const prefix = key + '/';
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  async list(dir: string): Promise<FileEntry[]> {
    const base = this.norm(dir);
    const prefix = base ? base + '/' : '';
    const seen = new Map<string, FileEntry['kind']>();
    for (const key of this.files.keys()) {
      if (!key.startsWith(prefix)) continue;
      const rest = key.slice(prefix.length).split('/');
      const name = rest[0]!;
      if (rest.length === 1) seen.set(name, 'file');
      else if (!seen.has(name)) seen.set(name, 'directory');
    }
    return [...seen.entries()]
      .map(([name, kind]) => ({ name, kind }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async walk(dir: string): Promise<string[]> {
    const base = this.norm(dir);
    const prefix = base ? base + '/' : '';
    return [...this.files.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}

/** In-process lock manager for unit tests: a promise chain per key. */
export class MemoryLockManager implements LockManager {
  private tails = new Map<string, Promise<unknown>>();

  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(fn);
    this.tails.set(key, run.catch(() => undefined));
    return run;
  }
}
