/**
 * Backup, restore and wipe for the tab's Settings (docs/storage.md, "Backup and restore"): the
 * core tasks wired to this context's storage. Loaded on first use, so the chat's first paint does
 * not carry the zip code.
 */
import type { FileStore } from '../storage/fileStore';
import { Journal } from '../storage/journal';
import { contextLiveness } from '../storage/liveness';
import type { LongTaskOptions } from '../storage/progress';
import { idbJournalIntents } from '../storage/recordStores';
import { applyCommitEffects, isCommitEffects } from '../skills/commitEffects';
import { createBackup, type BackupOptions, type BackupResult } from './backup';
import { openBackup } from './backupRead';
import { idbProfileTables, type ProfileTables } from './backupTables';
import { applyRestore, type RestoreChoices, type RestoreOptions, type RestoreReport } from './restore';
import { applyStagedRestore } from './restoreCommit';
import { planRestore, type RestorePlan } from './restorePlan';
import type { KnackServices } from './storageServices';
import { wipeAllData, type WipeReport } from './wipe';

export interface BackupService {
  backup(options?: BackupOptions): Promise<BackupResult>;
  /** Opens and checks a backup file and compares it with this profile; writes nothing. */
  open(bytes: Uint8Array, options?: LongTaskOptions): Promise<RestorePlan>;
  restore(plan: RestorePlan, choices: RestoreChoices, options?: RestoreOptions): Promise<RestoreReport>;
  /** Deletes every file, record and data cache of the app; the caller reloads the page. */
  wipe(): Promise<WipeReport>;
}

/** The file store with a callback after each write: how the restore counts its staged files. */
function countingWrites(files: FileStore, onWrite: () => void): FileStore {
  return {
    read: (path) => files.read(path),
    readText: (path) => files.readText(path),
    write: async (path, data) => {
      await files.write(path, data);
      onWrite();
    },
    delete: (path) => files.delete(path),
    deleteTree: (path) => files.deleteTree(path),
    move: (from, to) => files.move(from, to),
    exists: (path) => files.exists(path),
    list: (dir) => files.list(dir),
    walk: (dir) => files.walk(dir),
  };
}

export function createBackupService(storage: KnackServices): BackupService {
  const db = storage.db;
  if (!db) throw new Error('Backup and restore need the IndexedDB database; this storage has none.');
  const tables: ProfileTables = idbProfileTables(db);
  const intents = idbJournalIntents(db);
  // The same journal as the app's (app/openStorage.ts), on a file store that counts writes, so
  // the restore's progress follows its staged files; it settles other intents exactly as the app's does.
  const journalFor = (onWrite: () => void) =>
    new Journal({
      files: countingWrites(storage.files, onWrite),
      intents,
      liveness: contextLiveness(),
      locks: storage.locks,
      onCommitted: async (intent) => {
        const effects = (intent.meta as { effects?: unknown } | undefined)?.effects;
        if (isCommitEffects(effects)) await applyCommitEffects(effects, { ledger: storage.stores.ledger, usage: storage.stores.usage });
        await applyStagedRestore(intent, storage.files, tables);
      },
    });

  return {
    backup: (options = {}) => createBackup({ files: storage.files, tables }, options),
    async open(bytes, options = {}) {
      const backup = await openBackup(bytes, options);
      return planRestore(backup, { files: storage.files, tables });
    },
    restore: (plan, choices, options = {}) =>
      applyRestore(plan, choices, { files: storage.files, tables, locks: storage.locks, journal: journalFor, changes: storage.changes }, options),
    wipe: () =>
      wipeAllData({
        files: storage.files,
        db,
        caches: typeof caches === 'undefined' ? null : caches,
        localStorage: typeof localStorage === 'undefined' ? null : localStorage,
      }),
  };
}
