import { readStorageStatus, requestPersistentStorage, type StorageStatus } from './storageStatus';

/** The Settings → Storage panel's state: usage, quota, persistence, and the request result. */
class StoragePanelState {
  status = $state<StorageStatus | null>(null);
  /** What the last persistence request said, in words for the panel. */
  requestResult = $state<string | null>(null);
  busy = $state(false);

  refresh = async (): Promise<void> => {
    this.status = await readStorageStatus();
  };

  requestPersistence = async (): Promise<void> => {
    this.busy = true;
    try {
      const granted = await requestPersistentStorage();
      this.requestResult = granted
        ? 'The browser will keep Knack’s data even when space runs low.'
        : 'The browser declined for now. Browsers grant this to sites you use often or install; Knack will ask again on its next write.';
      await this.refresh();
    } finally {
      this.busy = false;
    }
  };
}

export const storagePanel = new StoragePanelState();
