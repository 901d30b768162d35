import { requestPersistenceOnce, storageStatus } from '../../storage/persistence';

/**
 * The Storage panel's view of `src/storage/persistence.ts`: unknown figures become null
 * so the panel can say "not reported" instead of showing "0 B of 0 B".
 */
export interface StorageStatus {
  /** Bytes used by this origin, or null when the browser does not say. */
  usage: number | null;
  quota: number | null;
  /** True when storage is persistent (not evicted under pressure); null when unknown. */
  persisted: boolean | null;
}

export async function readStorageStatus(): Promise<StorageStatus> {
  const supported = typeof navigator !== 'undefined' && navigator.storage !== undefined;
  if (!supported) return { usage: null, quota: null, persisted: null };
  const status = await storageStatus();
  const reported = status.quota > 0;
  return {
    usage: reported ? status.usage : null,
    quota: reported ? status.quota : null,
    persisted: status.persisted,
  };
}

/** Asks for persistent storage (once per page, shared with the storage layer's first-write request). */
export function requestPersistentStorage(): Promise<boolean> {
  return requestPersistenceOnce();
}
