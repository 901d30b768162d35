/**
 * Storage helpers the browser benches share: the app's file store under a bench's own folder in
 * OPFS, and removing a bench's IndexedDB database before and after a run (bench/README.md).
 */
import type { FileData, FileEntry, FileStore } from '../../src/storage/fileStore';

/** The app's file store seen through a prefix: `skills/…` is `<prefix>/skills/…` in OPFS. */
export function prefixedFiles(files: FileStore, prefix: string): FileStore {
  const at = (path: string) => (path ? `${prefix}/${path}` : prefix);
  const strip = (path: string) => path.slice(prefix.length + 1);
  return {
    read: (path) => files.read(at(path)),
    readText: (path) => files.readText(at(path)),
    write: (path: string, data: FileData) => files.write(at(path), data),
    delete: (path) => files.delete(at(path)),
    deleteTree: (path) => files.deleteTree(at(path)),
    move: (from, to) => files.move(at(from), at(to)),
    exists: (path) => files.exists(at(path)),
    list: (dir): Promise<FileEntry[]> => files.list(at(dir)),
    walk: async (dir) => (await files.walk(at(dir))).map(strip),
  };
}

/** Deletes a database; a connection still open elsewhere (blocked) does not hold the bench up. */
export function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error);
    request.onblocked = () => resolve();
  });
}
