import type { KnackDb, RecordStoreName } from './db';
import { IdbRecordStore } from './idbRecordStore';
import type { RecordStore } from './recordStore';
import type { IntentRecord } from './journal';

/**
 * Opens the out-of-line-key stores of the `knack` database, one RecordStore per store for
 * the life of the context. Only the composition root (src/app/knackStores.ts) and the console
 * handle use it: everything else receives typed stores (usage, ledger, pending…) instead.
 */
export type RecordStoreOpener = <T>(store: RecordStoreName) => RecordStore<T>;

export function idbRecordStores(db: KnackDb, options: { onFirstWrite?: () => unknown } = {}): RecordStoreOpener {
  const opened = new Map<RecordStoreName, RecordStore<unknown>>();
  return <T>(store: RecordStoreName): RecordStore<T> => {
    if (!opened.has(store)) opened.set(store, new IdbRecordStore<unknown>(db, store, { onFirstWrite: options.onFirstWrite }));
    return opened.get(store) as RecordStore<T>;
  };
}

/** The journal's intents: written with strict durability, since they must be on disk before the moves they announce. */
export function idbJournalIntents(db: KnackDb): RecordStore<IntentRecord> {
  return new IdbRecordStore<IntentRecord>(db, 'journal', { durability: 'strict' });
}
