import { ChangeFeed } from '../storage/changes';
import { openKnackDb, type KnackDb } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import { Journal, type IntentRecord, type RecoveryReport } from '../storage/journal';
import { contextLiveness, type Liveness } from '../storage/liveness';
import { OpfsFileStore } from '../storage/opfsFileStore';
import { storageStatus } from '../storage/persistence';
import type { RecordStore } from '../storage/recordStore';
import { idbJournalIntents, idbRecordStores, type RecordStoreOpener } from '../storage/recordStores';
import { WebLockManager } from '../storage/webLocks';
import type { KnackServices } from './storageServices';
import { createKnackStores } from './knackStores';
import { applyCommitEffects, isCommitEffects } from '../skills/commitEffects';

/** What storage is made of in one context; the app uses OPFS/IndexedDB, unit tests memory. */
export interface StorageParts {
  files: FileStore;
  locks: LockManager;
  liveness: Liveness;
  intents: RecordStore<IntentRecord>;
  open: RecordStoreOpener;
  changes?: ChangeFeed;
  db?: KnackDb;
  storageStatus?: KnackServices['storageStatus'];
}

/** Storage plus the raw store opener, which only the console handle (app/boot.ts) keeps. */
export interface OpenedStorage extends KnackServices {
  records: RecordStoreOpener;
}

/**
 * Puts storage together and, when asked, runs start-up recovery. A committed multi-file change
 * carries its ledger entry and usage update; the journal applies them through the context's
 * one ledger and usage store, so a change that recovery completes is recorded like any other.
 */
export async function assembleStorage(parts: StorageParts, options: { recover: boolean }): Promise<OpenedStorage> {
  const changes = parts.changes ?? new ChangeFeed();
  const stores = createKnackStores(parts.open, changes);
  const journal = new Journal({
    files: parts.files,
    intents: parts.intents,
    liveness: parts.liveness,
    locks: parts.locks,
    onCommitted: async (intent) => {
      const effects = (intent.meta as { effects?: unknown } | undefined)?.effects;
      if (isCommitEffects(effects)) await applyCommitEffects(effects, { ledger: stores.ledger, usage: stores.usage });
      // A restore's records land with its files (app/restoreCommit.ts); loaded only for one.
      if ((intent.meta as { restore?: unknown } | undefined)?.restore !== undefined) {
        const [{ applyStagedRestore }, { idbProfileTables, openerTables }] = await Promise.all([import('./restoreCommit'), import('./backupTables')]);
        await applyStagedRestore(intent, parts.files, parts.db ? idbProfileTables(parts.db) : openerTables(parts.open));
      }
    },
  });

  let recovery: RecoveryReport = { rolledForward: [], rolledBack: [], skippedLive: [], failed: [], sweptTempFiles: [] };
  if (options.recover) {
    recovery = await journal.recover({ sweep: false });
    const settled = recovery.rolledForward.length + recovery.rolledBack.length;
    if (settled > 0) {
      // Skill files changed behind the index's back: listeners rescan.
      changes.publish({ type: 'storage-recovered', rolledForward: recovery.rolledForward.length, rolledBack: recovery.rolledBack.length });
    }
  }
  return {
    files: parts.files,
    locks: parts.locks,
    ...(parts.db ? { db: parts.db } : {}),
    journal,
    changes,
    stores,
    recovery,
    storageStatus: parts.storageStatus ?? storageStatus,
    records: parts.open,
  };
}

/**
 * Opens Knack's storage in this context — the UI thread at boot, or a worker. Only the UI
 * thread runs start-up recovery (workers start after it) and asks for persistence
 * (`persist()` does not exist in workers), so both are the caller's choice.
 */
export async function openStorage(options: { onFirstWrite?: () => void; recover: boolean }): Promise<OpenedStorage> {
  const liveness = contextLiveness();
  const [db] = await Promise.all([
    openKnackDb({ onVersionChange: () => console.warn('[knack] a newer version of Knack opened; reload this tab') }),
    liveness.hold(),
  ]);
  return assembleStorage(
    {
      files: new OpfsFileStore({ liveness, onFirstWrite: options.onFirstWrite }),
      locks: new WebLockManager(),
      liveness,
      intents: idbJournalIntents(db),
      open: idbRecordStores(db, { onFirstWrite: options.onFirstWrite }),
      db,
    },
    options,
  );
}
