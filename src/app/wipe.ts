/**
 * "Wipe all data" (docs/storage.md, "Backup and restore"): every file in the origin's private file
 * system, every record of the database `knack` (its stores are cleared in one transaction rather
 * than the database deleted, because another tab's open connection would block a delete), the
 * Cache Storage caches that hold data — downloaded model weights — and legacy settings in
 * localStorage. The service worker's precache (the app shell) stays, so the app still opens
 * offline afterwards; the caller reloads the page to start fresh.
 */
import type { KnackDb } from '../storage/db';
import type { FileStore } from '../storage/fileStore';

export interface WipeTargets {
  files: FileStore;
  db?: KnackDb;
  /** Record stores to clear where there is no database (in-memory storage, tests). */
  clearRecords?: () => Promise<void>;
  caches?: CacheStorage | null;
  localStorage?: Pick<Storage, 'clear'> | null;
}

export interface WipeReport {
  files: number;
  stores: number;
  caches: string[];
}

/** The service worker's app-shell caches (workbox names them `workbox-precache-…`). */
export function isAppShellCache(name: string): boolean {
  return name.startsWith('workbox-precache');
}

export async function wipeAllData(targets: WipeTargets): Promise<WipeReport> {
  let files = 0;
  for (const entry of await targets.files.list('')) {
    if (entry.kind === 'directory') {
      files += (await targets.files.walk(entry.name)).length;
      await targets.files.deleteTree(entry.name);
    } else if (await targets.files.delete(entry.name)) files += 1;
  }

  let stores = 0;
  if (targets.db) {
    const names = Array.from(targets.db.objectStoreNames);
    const tx = targets.db.transaction(names, 'readwrite', { durability: 'strict' });
    await Promise.all([...names.map((name) => tx.objectStore(name).clear()), tx.done]);
    stores = names.length;
  } else if (targets.clearRecords) {
    await targets.clearRecords();
  }

  const deleted: string[] = [];
  if (targets.caches) {
    for (const name of await targets.caches.keys()) {
      if (isAppShellCache(name)) continue;
      if (await targets.caches.delete(name)) deleted.push(name);
    }
  }
  targets.localStorage?.clear();
  return { files, stores, caches: deleted };
}
