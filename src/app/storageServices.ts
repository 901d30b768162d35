/**
 * What one context's storage is once opened (app/openStorage.ts): the file store, locks, the
 * journal, the change feed and the typed record stores. Its own module so the services built on
 * it can name the type without importing the accessor in app/services.ts (which imports them).
 */
import type { ChangeFeed } from '../storage/changes';
import type { KnackDb } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, RecoveryReport } from '../storage/journal';
import type { StorageStatus } from '../storage/persistence';
import type { KnackStores } from './knackStores';

export interface KnackServices {
  /** OPFS: skills/ and memories/ (atomic writes). */
  files: FileStore;
  /** Web Locks: `skill:<name>`, `memory` (see storage/webLocks.ts). */
  locks: LockManager;
  /** The IndexedDB database `knack` (schema in storage/db.ts); absent on in-memory storage. */
  db?: KnackDb;
  /** The context's typed record stores: one ledger, usage store, pending store, activity log. */
  stores: KnackStores;
  /** All-or-nothing multi-file operations. */
  journal: Journal;
  /** Change events across tabs and workers (BroadcastChannel `knack-changes`). */
  changes: ChangeFeed;
  /** What start-up recovery did (intents completed or undone, temp files swept). */
  recovery: RecoveryReport;
  storageStatus(): Promise<StorageStatus>;
}

