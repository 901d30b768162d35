/**
 * Record stores: small keyed collections the core keeps its records in (usage, ledger,
 * blobs, pending writes, index snapshot, settings…). Implemented on IndexedDB for the app
 * (`idbRecordStore.ts`) and in memory for unit tests only (`memoryRecordStore.ts`).
 */
export interface RecordStore<T> {
  get(key: string): Promise<T | undefined>;
  put(key: string, value: T): Promise<void>;
  /** Several records in one transaction: all are stored or none. */
  putMany(entries: Iterable<[string, T]>): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Read-modify-write in one transaction: reads `keys`, then stores what `change` returns
   * (and deletes the keys in `remove`), so another tab or worker cannot write in between.
   * `change` must be synchronous. Every read-modify-write of a record goes through here (or
   * holds a Web Lock): a get, an await and a put lose whatever landed in between
   * (docs/storage.md, "No lost update").
   */
  updateMany(keys: string[], change: (current: (T | undefined)[]) => { put: [string, T][]; remove?: string[] }): Promise<void>;
  getAll(): Promise<T[]>;
  /**
   * Records whose indexed property equals `value`, in key order (IndexedDB `getAllFromIndex`).
   * Optional: only stores opened with that index have it (see db.ts for which stores do), and
   * callers fall back to `getAll` and a filter without it.
   */
  getAllByIndex?(index: string, value: string): Promise<T[]>;
  keys(): Promise<string[]>;
  clear(): Promise<void>;
}
