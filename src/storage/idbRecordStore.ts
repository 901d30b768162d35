/**
 * RecordStore on one IndexedDB object store with out-of-line keys (see db.ts for which
 * stores those are). Each call is its own transaction. A write that fails for lack of space
 * (QuotaExceededError, or the bare transaction abort Chromium sometimes gives near quota)
 * becomes StorageFullError; the transaction is rolled back, so earlier records are intact.
 */
import type { IDBPDatabase, IDBPObjectStore } from 'idb';
import type { RecordStore } from './recordStore';
import { isQuotaError, toStorageFullError } from './quota';

export interface IdbRecordStoreOptions {
  /**
   * 'strict' waits until the commit is on disk. The journal uses it: its records must be
   * durable before the file moves they announce.
   */
  durability?: IDBTransactionDurability;
  /** Called (not awaited) before the first write, e.g. requestPersistenceOnce. */
  onFirstWrite?: () => unknown;
}

export class IdbRecordStore<T> implements RecordStore<T> {
  private readonly db: IDBPDatabase<unknown>;
  private wrote = false;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- accepts the typed KnackDb as well as test databases
    db: IDBPDatabase<any>,
    readonly storeName: string,
    private readonly options: IdbRecordStoreOptions = {},
  ) {
    this.db = db as IDBPDatabase<unknown>;
  }

  async get(key: string): Promise<T | undefined> {
    return (await this.db.get(this.storeName, key)) as T | undefined;
  }

  async put(key: string, value: T): Promise<void> {
    await this.write(`a record in ${this.storeName}`, (store) => store.put(value, key));
  }

  /** Puts several records in one transaction: all of them are stored or none. */
  async putMany(entries: Iterable<[string, T]>): Promise<void> {
    await this.write(`records in ${this.storeName}`, (store) =>
      Promise.all([...entries].map(([key, value]) => store.put(value, key))),
    );
  }

  async updateMany(keys: string[], change: (current: (T | undefined)[]) => { put: [string, T][]; remove?: string[] }): Promise<void> {
    await this.write(`records in ${this.storeName}`, async (store) => {
      // Only IndexedDB requests are awaited in here, so the transaction stays open.
      const current = (await Promise.all(keys.map((key) => store.get(key)))) as (T | undefined)[];
      const { put, remove = [] } = change(current);
      await Promise.all([...put.map(([key, value]) => store.put(value, key)), ...remove.map((key) => store.delete(key))]);
    });
  }

  async delete(key: string): Promise<void> {
    await this.write(`a change to ${this.storeName}`, (store) => store.delete(key));
  }

  async getAll(): Promise<T[]> {
    return (await this.db.getAll(this.storeName)) as T[];
  }

  async getAllByIndex(index: string, value: string): Promise<T[]> {
    return (await this.db.getAllFromIndex(this.storeName, index, value)) as T[];
  }

  async keys(): Promise<string[]> {
    return (await this.db.getAllKeys(this.storeName)).map(String);
  }

  async clear(): Promise<void> {
    await this.write(`a change to ${this.storeName}`, (store) => store.clear());
  }

  private async write(
    what: string,
    body: (store: IDBPObjectStore<unknown, [string], string, 'readwrite'>) => Promise<unknown>,
  ): Promise<void> {
    if (!this.wrote) {
      this.wrote = true;
      void Promise.resolve()
        .then(() => this.options.onFirstWrite?.())
        .catch(() => undefined);
    }
    try {
      const tx = this.db.transaction(this.storeName, 'readwrite', { durability: this.options.durability ?? 'default' });
      // Awaiting both: a request error rejects the first, a commit failure (quota) the second.
      await Promise.all([body(tx.store), tx.done]);
    } catch (err) {
      if (isQuotaError(err, { duringWrite: true })) throw await toStorageFullError(err, what);
      throw err;
    }
  }
}
