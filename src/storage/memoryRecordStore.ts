import type { RecordStore } from './recordStore';

/** In-memory RecordStore for unit tests only; the app always uses IndexedDB. */
export interface MemoryRecordStoreOptions {
  /** Index name → the record property it indexes, as the IndexedDB store declares it (db.ts). */
  indexes?: Record<string, string>;
  /**
   * Awaited at the start of every write, before anything is read or stored: a test holds one
   * write here to let a second one start first (the concurrency tests, docs/storage.md "No lost
   * update"). The write itself then runs in one step, as an IndexedDB transaction does.
   */
  beforeWrite?: (keys: string[]) => Promise<void> | void;
}

export class MemoryRecordStore<T> implements RecordStore<T> {
  private records = new Map<string, T>();

  constructor(private readonly options: MemoryRecordStoreOptions = {}) {}

  async get(key: string): Promise<T | undefined> {
    const value = this.records.get(key);
    return value === undefined ? undefined : structuredClone(value);
  }
  async put(key: string, value: T): Promise<void> {
    if (this.options.beforeWrite) await this.options.beforeWrite([key]);
    this.records.set(key, structuredClone(value));
  }
  async putMany(entries: Iterable<[string, T]>): Promise<void> {
    const list = [...entries];
    if (this.options.beforeWrite) await this.options.beforeWrite(list.map(([key]) => key));
    for (const [key, value] of list) this.records.set(key, structuredClone(value));
  }
  async updateMany(keys: string[], change: (current: (T | undefined)[]) => { put: [string, T][]; remove?: string[] }): Promise<void> {
    if (this.options.beforeWrite) await this.options.beforeWrite(keys);
    const { put, remove = [] } = change(keys.map((key) => (this.records.has(key) ? structuredClone(this.records.get(key)!) : undefined)));
    for (const [key, value] of put) this.records.set(key, structuredClone(value));
    for (const key of remove) this.records.delete(key);
  }
  async delete(key: string): Promise<void> {
    if (this.options.beforeWrite) await this.options.beforeWrite([key]);
    this.records.delete(key);
  }
  async getAll(): Promise<T[]> {
    return [...this.records.keys()].sort().map((k) => structuredClone(this.records.get(k)!));
  }
  async getAllByIndex(index: string, value: string): Promise<T[]> {
    const property = this.options.indexes?.[index];
    if (property === undefined) throw new Error(`This store has no index named '${index}'.`);
    return (await this.getAll()).filter((record) => (record as Record<string, unknown>)[property] === value);
  }
  async keys(): Promise<string[]> {
    return [...this.records.keys()].sort();
  }
  async clear(): Promise<void> {
    this.records.clear();
  }
}
