import { readStorageStatus, requestPersistentStorage, type StorageStatus } from './storageStatus';

/** The Settings → Storage panel's state: usage, quota, persistence, and the request result. */
class StoragePanelState {
  status = $state<StorageStatus | null>(null);
  /** What the last persistence request said, in words for the panel. */
  requestResult = $state<string | null>(null);
  busy = $state(false);

  refresh = async (): Promise<void> => {
    try {
      this.status = await readStorageStatus();
    } catch {
      this.status = { usage: null, quota: null, persisted: null }; // shown as "not reported"
    }
  };

  requestPersistence = async (): Promise<void> => {
    this.busy = true;
    try {
      const granted = await requestPersistentStorage();
      this.requestResult = granted
        ? 'The browser will keep Knack’s data even when space runs low.'
        : 'The browser declined for now. Browsers usually grant this to sites you use often or install as an app.';
      await this.refresh();
    } finally {
      this.busy = false;
    }
  };
}

export const storagePanel = new StoragePanelState();
