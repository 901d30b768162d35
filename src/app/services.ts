/**
 * The app's long-lived services (storage, stores, tools), created once at start-up.
 * UI state modules await `services` instead of constructing anything themselves.
 */
import type { ChangeFeed } from '../storage/changes';
import type { KnackDb, RecordStoreName } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, RecoveryReport } from '../storage/journal';
import type { StorageStatus } from '../storage/persistence';
import type { RecordStore } from '../storage/recordStore';

export interface KnackServices {
  /** OPFS: skills/ and memories/ (atomic writes). */
  files: FileStore;
  /** Web Locks: `skill:<name>`, `memory` (see storage/webLocks.ts). */
  locks: LockManager;
  /** The IndexedDB database `knack` (schema in storage/db.ts). */
  db: KnackDb;
  /** A RecordStore on one of the out-of-line-key stores (usage, ledger, blobs…). */
  records<T>(store: RecordStoreName): RecordStore<T>;
  /** All-or-nothing multi-file operations. */
  journal: Journal;
  /** Change events across tabs and workers (BroadcastChannel `knack-changes`). */
  changes: ChangeFeed;
  /** What start-up recovery did (intents completed or undone, temp files swept). */
  recovery: RecoveryReport;
  storageStatus(): Promise<StorageStatus>;
}

let resolveServices!: (value: KnackServices) => void;
let rejectServices!: (reason: unknown) => void;

export const services: Promise<KnackServices> = new Promise((resolve, reject) => {
  resolveServices = resolve;
  rejectServices = reject;
});

export function provideServices(value: KnackServices): void {
  resolveServices(value);
}

export function failServices(reason: unknown): void {
  rejectServices(reason);
}
