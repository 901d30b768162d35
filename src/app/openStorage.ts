import { ChangeFeed } from '../storage/changes';
import { type RecordStoreName, openKnackDb } from '../storage/db';
import { IdbRecordStore } from '../storage/idbRecordStore';
import { Journal, type IntentRecord, type RecoveryReport } from '../storage/journal';
import { contextLiveness } from '../storage/liveness';
import { OpfsFileStore } from '../storage/opfsFileStore';
import { storageStatus } from '../storage/persistence';
import type { RecordStore } from '../storage/recordStore';
import { WebLockManager } from '../storage/webLocks';
import type { KnackServices } from './services';
import { applyCommitEffects, isCommitEffects } from '../skills/commitEffects';
import { Ledger, type BlobRecord, type LedgerEntry } from '../skills/ledger';
import { UsageStore, type UsageRecord } from '../skills/usageStore';

/**
 * Opens Knack's storage in this context — the UI thread at boot, or a worker. Only the UI
 * thread runs start-up recovery (workers start after it) and asks for persistence
 * (`persist()` does not exist in workers), so both are the caller's choice.
 */
export async function openStorage(options: {
  onFirstWrite?: () => void;
  recover: boolean;
}): Promise<KnackServices> {
  const liveness = contextLiveness();
  const changes = new ChangeFeed();
  const [db] = await Promise.all([
    openKnackDb({ onVersionChange: () => console.warn('[knack] a newer version of Knack opened; reload this tab') }),
    liveness.hold(),
  ]);
  const files = new OpfsFileStore({ liveness, onFirstWrite: options.onFirstWrite });
  const locks = new WebLockManager();
  const recordStores = new Map<RecordStoreName, RecordStore<unknown>>();
  const records = <T>(store: RecordStoreName): RecordStore<T> => {
    if (!recordStores.has(store)) recordStores.set(store, new IdbRecordStore<unknown>(db, store, { onFirstWrite: options.onFirstWrite }));
    return recordStores.get(store) as RecordStore<T>;
  };
  // A committed multi-file change carries its ledger entry and usage update; they are applied
  // here too, so a change that recovery completes is recorded like any other.
  const effectDeps = {
    ledger: new Ledger(records<LedgerEntry>('ledger'), records<BlobRecord>('blobs')),
    usage: new UsageStore(records<UsageRecord>('usage')),
  };
  const journal = new Journal({
    files,
    intents: new IdbRecordStore<IntentRecord>(db, 'journal', { durability: 'strict' }),
    liveness,
    locks,
    onCommitted: async (intent) => {
      const effects = (intent.meta as { effects?: unknown } | undefined)?.effects;
      if (isCommitEffects(effects)) await applyCommitEffects(effects, effectDeps);
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
  return { files, locks, db, records, journal, changes, recovery, storageStatus };
}
