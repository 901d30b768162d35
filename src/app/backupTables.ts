/**
 * The profile's record tables as a backup and a restore see them (docs/storage.md, "Backup and
 * restore"): every record of a table with its key, and one atomic apply of many changes across
 * tables. On IndexedDB the apply is one transaction over every store it touches, so a restore's
 * records land all together or not at all; the in-memory version (unit tests) undoes what it did
 * when a write fails, which is what a transaction abort does.
 */
import type { KnackDb } from '../storage/db';
import type { RecordStore } from '../storage/recordStore';
import type { RecordStoreOpener } from '../storage/recordStores';
import { isQuotaError, toStorageFullError } from '../storage/quota';

/**
 * The tables a backup carries. Caches and bookkeeping are left out and rebuilt: `replays` (the
 * gate's replay cache), `index` (the skill-index snapshot), `searchIndex` (the session search),
 * `journal` (unfinished operations of this device).
 */
export const BACKUP_TABLES = ['settings', 'usage', 'ledger', 'blobs', 'verdicts', 'pending', 'activity', 'sessions', 'messages'] as const;
export type BackupTable = (typeof BACKUP_TABLES)[number];

/** Tables whose records carry their key as `id` (IndexedDB inline keys). */
const INLINE_KEY_TABLES: ReadonlySet<string> = new Set(['sessions', 'messages']);

/**
 * The caches a restore empties in the same transaction as its records, so they are rebuilt from
 * what was restored: the skill-index snapshot and the saved session search.
 */
export const DERIVED_TABLES = ['index', 'searchIndex'] as const;
export type DerivedTable = (typeof DERIVED_TABLES)[number];

export interface TableChange {
  table: BackupTable | DerivedTable;
  /** Remove every record first (derived tables only). */
  clear?: boolean;
  put: [string, unknown][];
  remove?: string[];
}

function isEmptyChange(change: TableChange): boolean {
  return !change.clear && change.put.length === 0 && (change.remove?.length ?? 0) === 0;
}

export interface ProfileTables {
  /** The tables this profile has (in-memory storage has no sessions). */
  readonly tables: readonly BackupTable[];
  /** Every record of a table with its key, in key order. */
  entries(table: BackupTable): Promise<[string, unknown][]>;
  /** Applies every change or none. */
  apply(changes: readonly TableChange[]): Promise<void>;
}

/** The app's tables: the IndexedDB database `knack`. */
export function idbProfileTables(db: KnackDb): ProfileTables {
  return {
    tables: BACKUP_TABLES,
    async entries(table) {
      const tx = db.transaction(table, 'readonly');
      const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll(), tx.done]);
      return keys.map((key, i) => [String(key), values[i]]);
    },
    async apply(changes) {
      const touched = [...new Set(changes.filter((c) => !isEmptyChange(c)).map((c) => c.table))];
      if (touched.length === 0) return;
      try {
        const tx = db.transaction(touched, 'readwrite', { durability: 'strict' });
        const requests: Promise<unknown>[] = [];
        for (const change of changes) {
          if (isEmptyChange(change)) continue;
          const store = tx.objectStore(change.table);
          if (change.clear) requests.push(store.clear());
          for (const key of change.remove ?? []) requests.push(store.delete(key));
          for (const [key, value] of change.put) {
            requests.push(INLINE_KEY_TABLES.has(change.table) ? store.put(value as never) : store.put(value as never, key));
          }
        }
        await Promise.all([...requests, tx.done]);
      } catch (err) {
        if (isQuotaError(err, { duringWrite: true })) throw await toStorageFullError(err, 'the restored records');
        throw err;
      }
    },
  };
}

/**
 * Tables over record stores: unit tests, and in-memory storage (whose opener has no sessions).
 * A failed apply puts back what it had changed, as a transaction abort would.
 */
export function recordStoreTables(stores: Partial<Record<BackupTable | DerivedTable, RecordStore<unknown>>>): ProfileTables {
  const tables = BACKUP_TABLES.filter((table) => stores[table] !== undefined);
  const storeOf = (table: BackupTable | DerivedTable): RecordStore<unknown> => {
    const store = stores[table];
    if (!store) throw new Error(`This profile has no table '${table}'.`);
    return store;
  };
  return {
    tables,
    async entries(table) {
      const store = storeOf(table);
      const keys = await store.keys();
      const values = await Promise.all(keys.map((key) => store.get(key)));
      return keys.map((key, i) => [key, values[i]]);
    },
    async apply(changes) {
      const undo: { store: RecordStore<unknown>; key: string; before: unknown }[] = [];
      try {
        for (const change of changes) {
          if (isEmptyChange(change)) continue;
          // A derived table the profile lacks has nothing to rebuild.
          if (change.clear && stores[change.table] === undefined) continue;
          const store = storeOf(change.table);
          const cleared = change.clear ? await store.keys() : [];
          for (const key of [...cleared, ...(change.remove ?? []), ...change.put.map(([k]) => k)]) {
            undo.push({ store, key, before: await store.get(key) });
          }
          for (const key of [...cleared, ...(change.remove ?? [])]) await store.delete(key);
          if (change.put.length > 0) await store.putMany(change.put);
        }
      } catch (err) {
        for (const { store, key, before } of undo.reverse()) {
          if (before === undefined) await store.delete(key);
          else await store.put(key, before);
        }
        throw err;
      }
    },
  };
}

/** In-memory storage's tables: what its record-store opener has. */
export function openerTables(open: RecordStoreOpener): ProfileTables {
  const stores: Partial<Record<BackupTable | DerivedTable, RecordStore<unknown>>> = {};
  for (const table of [...BACKUP_TABLES, ...DERIVED_TABLES]) {
    if (!INLINE_KEY_TABLES.has(table)) stores[table] = open<unknown>(table as Exclude<BackupTable | DerivedTable, 'sessions' | 'messages'>);
  }
  return recordStoreTables(stores);
}
