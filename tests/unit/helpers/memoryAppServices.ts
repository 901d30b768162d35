import { ChangeFeed, type StorageChange } from '../../../src/storage/changes';
import { FixedLiveness } from '../../../src/storage/liveness';
import { MemoryFileStore, MemoryLockManager } from '../../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../../src/storage/recordStore';
import type { RecordStoreName } from '../../../src/storage/db';
import type { IntentRecord } from '../../../src/storage/journal';
import { assembleStorage, type OpenedStorage } from '../../../src/app/openStorage';
import { createAppServices, type AppContext, type AppServices } from '../../../src/app/appServices';

/**
 * Storage and app services on the in-memory stores, as the tab or the worker builds them on
 * OPFS/IndexedDB. Each call gets its own change channel so tests never hear each other; two
 * contexts built with the same `shared` parts see each other's records, files and events.
 */
export interface MemoryParts {
  files: MemoryFileStore;
  locks: MemoryLockManager;
  intents: MemoryRecordStore<IntentRecord>;
  stores: Map<RecordStoreName, RecordStore<unknown>>;
  channel: string;
}

export function memoryParts(): MemoryParts {
  return { files: new MemoryFileStore(), locks: new MemoryLockManager(), intents: new MemoryRecordStore(), stores: new Map(), channel: `knack-test-${crypto.randomUUID()}` };
}

/** The indexes the IndexedDB stores declare (storage/db.ts) that the code reads by index. */
const MEMORY_INDEXES: Partial<Record<RecordStoreName, Record<string, string>>> = {
  verdicts: { bySkill: 'skill' },
};

export async function memoryStorage(parts: MemoryParts = memoryParts()): Promise<OpenedStorage & { published: StorageChange[] }> {
  const open = <T>(name: RecordStoreName): RecordStore<T> => {
    if (!parts.stores.has(name)) parts.stores.set(name, new MemoryRecordStore<unknown>({ indexes: MEMORY_INDEXES[name] }));
    return parts.stores.get(name) as RecordStore<T>;
  };
  const changes = new ChangeFeed(parts.channel);
  const published: StorageChange[] = [];
  changes.subscribe((change) => published.push(change));
  const storage = await assembleStorage(
    { files: parts.files, locks: parts.locks, liveness: new FixedLiveness('test'), intents: parts.intents, open, changes, storageStatus: async () => ({ persisted: false, usage: 0, quota: 0 }) as never },
    { recover: false },
  );
  return Object.assign(storage, { published });
}

export async function memoryAppServices(
  context: AppContext = 'worker',
  parts: MemoryParts = memoryParts(),
): Promise<{ app: AppServices; storage: Awaited<ReturnType<typeof memoryStorage>>; parts: MemoryParts }> {
  const storage = await memoryStorage(parts);
  const app = await createAppServices(storage, { context, legacySettings: null });
  return { app, storage, parts };
}
