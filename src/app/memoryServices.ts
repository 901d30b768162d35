/**
 * The memory store and the `memory` tool on OPFS, for any context: writes publish
 * `memory-changed`; staged writes go to the context's one pending store (which publishes
 * `pending-changed`). The memory settings come from the settings service on every call, so a
 * change made anywhere applies to the next write.
 */
import type { KnackServices } from './storageServices';
import type { KnackSettingsService } from './settings';
import { MemoryStore, type MemorySnapshot } from '../memory/memoryStore';
import { memoryToolDefinition } from '../memory/memoryTool';
import type { ToolDefinition } from '../tools/toolRegistry';

export { defaultMemorySettings, type MemorySettings } from './settings';

export interface MemoryServices {
  store: MemoryStore;
  tool: ToolDefinition;
  /** The frozen snapshot for a new session's system prompt (respects the enabled switches). */
  snapshot(limit?: { maxChars: number; relevantTo: string }): Promise<MemorySnapshot>;
}

export function createMemoryServices(storage: KnackServices, settings: KnackSettingsService): MemoryServices {
  const store = new MemoryStore({
    files: storage.files,
    locks: storage.locks,
    onChange: (target) => storage.changes.publish({ type: 'memory-changed', target }),
  });
  const tool = memoryToolDefinition({
    get store() {
      const current = settings.get('memory');
      return current.memoryEnabled || current.userProfileEnabled ? store : null;
    },
    pending: storage.stores.pending,
    approval: () => settings.get('memory').writeApproval,
  });
  return {
    store,
    tool,
    snapshot: (limit) => {
      const current = settings.get('memory');
      return store.memorySnapshot({ memoryEnabled: current.memoryEnabled, userEnabled: current.userProfileEnabled, ...(limit ?? {}) });
    },
  };
}
