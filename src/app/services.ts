/**
 * The app's long-lived services, created once per context. `KnackServices` is storage
 * (files, locks, journal, change feed and the typed record stores); `AppServices`
 * (app/appServices.ts) is everything built on it. UI state modules reach both through the one
 * accessor `appServices()` and call domain methods; they never construct services themselves.
 */
import type { ChangeFeed } from '../storage/changes';
import type { KnackDb } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, RecoveryReport } from '../storage/journal';
import type { StorageStatus } from '../storage/persistence';
import type { KnackStores } from './knackStores';
import type { AppServices } from './appServices';

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

let resolveServices!: (value: KnackServices) => void;
let rejectServices!: (reason: unknown) => void;

/** The tab's storage, once boot opened it. */
export const services: Promise<KnackServices> = new Promise((resolve, reject) => {
  resolveServices = resolve;
  rejectServices = reject;
});
services.catch(() => undefined); // reported by boot; avoid an unhandled rejection here

let app: Promise<AppServices> | null = null;

/** The tab's services: the one accessor UI state modules use (built on first call). */
export function appServices(): Promise<AppServices> {
  app ??= Promise.all([services, import('./appServices')]).then(([storage, { createAppServices }]) => createAppServices(storage, { context: 'tab' }));
  return app;
}

export function provideServices(value: KnackServices): void {
  resolveServices(value);
}

export function failServices(reason: unknown): void {
  rejectServices(reason);
}
