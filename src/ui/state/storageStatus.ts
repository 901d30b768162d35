/**
 * Reads how much the origin stores and whether the browser promised to keep it.
 * A small local stand-in: when `src/storage/persistence.ts` (storageStatus) lands,
 * these two functions become re-exports of it.
 */
export interface StorageStatus {
  /** Bytes used by this origin, or null when the browser does not say. */
  usage: number | null;
  quota: number | null;
  /** True when storage is persistent (not evicted under pressure); null when unknown. */
  persisted: boolean | null;
}

export async function readStorageStatus(): Promise<StorageStatus> {
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  const [estimate, persisted] = await Promise.all([
    storage?.estimate ? storage.estimate().catch(() => null) : Promise.resolve(null),
    storage?.persisted ? storage.persisted().catch(() => null) : Promise.resolve(null),
  ]);
  return {
    usage: estimate?.usage ?? null,
    quota: estimate?.quota ?? null,
    persisted,
  };
}

/** Asks for persistent storage; the browser decides (headless Chromium says no). */
export async function requestPersistentStorage(): Promise<boolean> {
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  if (!storage?.persist) return false;
  return storage.persist().catch(() => false);
}
