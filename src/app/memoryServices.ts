/**
 * The memory store and the `memory` tool on OPFS, for the UI thread: writes publish
 * `memory-changed`, staged writes `pending-changed`, and the memory settings (the `settings`
 * store, key "memory") are read on every call so a change applies to the next write.
 */
import type { KnackServices } from './services';
import { MemoryStore, type MemorySnapshot } from '../memory/memoryStore';
import { memoryToolDefinition, type MemoryApprovalMode } from '../memory/memoryTool';
import { PendingStore, type PendingWrite } from '../tools/pendingWrites';
import type { ToolDefinition } from '../tools/toolRegistry';

export interface MemorySettings {
  /** The agent's notes (MEMORY.md) go into the system prompt and the tool can write them. */
  memoryEnabled: boolean;
  /** The user profile (USER.md) likewise. */
  userProfileEnabled: boolean;
  /** Stage memory writes for approval: never (default), always, or only the review agent's. */
  writeApproval: MemoryApprovalMode;
}

export const defaultMemorySettings: MemorySettings = { memoryEnabled: true, userProfileEnabled: true, writeApproval: 'off' };

export interface MemoryServices {
  store: MemoryStore;
  tool: ToolDefinition;
  settings(): MemorySettings;
  /** Saves a settings change; other tabs and the review worker pick it up. */
  updateSettings(change: Partial<MemorySettings>): Promise<MemorySettings>;
  /** The frozen snapshot for a new session's system prompt (respects the enabled switches). */
  snapshot(): Promise<MemorySnapshot>;
}

export async function createMemoryServices(services: KnackServices): Promise<MemoryServices> {
  const settingsStore = services.records<Partial<MemorySettings>>('settings');
  let settings: MemorySettings = { ...defaultMemorySettings, ...((await settingsStore.get('memory')) ?? {}) };
  services.changes.subscribe((change) => {
    if (change.type === 'settings-changed' && change.keys?.includes('memory')) {
      void settingsStore.get('memory').then((stored) => (settings = { ...defaultMemorySettings, ...(stored ?? {}) }));
    }
  });

  const store = new MemoryStore({
    files: services.files,
    locks: services.locks,
    onChange: (target) => services.changes.publish({ type: 'memory-changed', target }),
  });
  const tool = memoryToolDefinition({
    get store() {
      return settings.memoryEnabled || settings.userProfileEnabled ? store : null;
    },
    pending: new PendingStore(services.records<PendingWrite>('pending')),
    approval: () => settings.writeApproval,
    onStaged: () => services.changes.publish({ type: 'pending-changed' }),
  });
  return {
    store,
    tool,
    settings: () => settings,
    async updateSettings(change) {
      settings = { ...settings, ...change };
      await settingsStore.put('memory', settings);
      services.changes.publish({ type: 'settings-changed', keys: ['memory'] });
      return settings;
    },
    snapshot: () => store.memorySnapshot({ memoryEnabled: settings.memoryEnabled, userEnabled: settings.userProfileEnabled }),
  };
}

let started: Promise<MemoryServices> | null = null;

/** The UI thread's memory services, created once after storage is up. */
export function memoryServices(): Promise<MemoryServices> {
  started ??= import('./services').then(({ services }) => services).then((s) => createMemoryServices(s));
  return started;
}
