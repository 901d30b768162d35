/**
 * Persistent storage and the storage estimate shown in Settings.
 *
 * Browsers may evict "best-effort" origins under disk pressure; asking for persistence once,
 * on the first write, is what keeps a user's skills from vanishing. `persist()` exists only
 * on the UI thread (not in workers), so the request is skipped elsewhere.
 */

export interface StorageStatus {
  /** Whether the browser granted persistent storage (headless Chromium always says no). */
  persisted: boolean;
  usage: number;
  quota: number;
  /** Per-backend bytes (Chromium only), e.g. { fileSystem, indexedDB }. */
  usageDetails?: Record<string, number>;
}

let persistenceRequest: Promise<boolean> | undefined;

function storageManager(): StorageManager | undefined {
  return (globalThis as { navigator?: Navigator }).navigator?.storage;
}

/** Requests persistent storage at most once per page; resolves to the browser's answer. */
export function requestPersistenceOnce(): Promise<boolean> {
  persistenceRequest ??= (async () => {
    const storage = storageManager();
    if (!storage || typeof storage.persist !== 'function' || typeof window === 'undefined') return false;
    try {
      if (await storage.persisted()) return true;
      return await storage.persist();
    } catch {
      return false;
    }
  })();
  return persistenceRequest;
}

export async function storageStatus(): Promise<StorageStatus> {
  const storage = storageManager();
  if (!storage) return { persisted: false, usage: 0, quota: 0 };
  const [persisted, estimate] = await Promise.all([
    typeof storage.persisted === 'function' ? storage.persisted().catch(() => false) : false,
    typeof storage.estimate === 'function' ? storage.estimate() : Promise.resolve<StorageEstimate>({}),
  ]);
  const status: StorageStatus = { persisted, usage: estimate.usage ?? 0, quota: estimate.quota ?? 0 };
  const details = (estimate as { usageDetails?: Record<string, number> }).usageDetails;
  if (details) status.usageDetails = { ...details };
  return status;
}
