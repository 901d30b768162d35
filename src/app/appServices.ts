/**
 * The composition root: everything one context (the tab, or the review worker) builds on its
 * storage, built once. ONE settings service, ONE tool registry, and the storage's one ledger,
 * usage store, pending store and activity log (app/knackStores.ts) are shared by every
 * service of the context. The skill engine, memory and sessions are separate chunks, loaded on
 * first use, so the chat's first paint does not wait for them.
 *
 * UI state modules get this object from `appServices()` (app/services.ts) and call its domain
 * methods; nothing outside src/storage opens a record store.
 */
import type { ChangeFeed } from '../storage/changes';
import type { ActivityLog } from '../review/activityLog';
import type { PendingWrite } from '../tools/pendingWrites';
import type { ToolOutcome } from '../tools/toolResult';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { CuratorState } from '../curator/curatorRules';
import type { RegexRunner } from '../gate/checks';
import type { KnackServices } from './storageServices';
import { createSettingsService, type KnackSettingsService, type LegacySettingsStorage } from './settings';
import type { SkillServices } from './skillServices';
import type { MemoryServices } from './memoryServices';
import type { SessionServices } from './sessionServices';
import type { ChatServices } from './chatServices';
import type { GateServices } from './gateServices';
import type { BackupService } from './backupService';
import type { SyncService } from './syncServices';
import type { ModelWindows } from './modelWindows';
import type { ForgedToolServices } from './forgedToolServices';

export type AppContext = 'tab' | 'worker';

/** Staged writes and what the user decides about them (the Pending view). */
export interface PendingActions {
  /** Newest first. */
  list(): Promise<PendingWrite[]>;
  /** Replays the write through its tool with its original origin; publishes `pending-changed`. */
  approve(id: string): Promise<ToolOutcome>;
  /** Discards the write; publishes `pending-changed`. */
  reject(id: string): Promise<void>;
}

export interface AppServices {
  context: AppContext;
  storage: KnackServices;
  changes: ChangeFeed;
  settings: KnackSettingsService;
  activity: ActivityLog;
  pending: PendingActions;
  /** The curator's schedule record, always read fresh (another tab or the worker may have run it). */
  curatorState: { read(): Promise<CuratorState>; write(state: CuratorState): Promise<void> };
  skills(): Promise<SkillServices>;
  memory(): Promise<MemoryServices>;
  /** The context's one tool registry: memory and skill tools, and session search in the tab. */
  tools(): Promise<ToolRegistry>;
  /** Tab only: sessions and their search. */
  sessions(): Promise<SessionServices>;
  /** Tab only: what a chat session needs. */
  chat(): Promise<ChatServices>;
  /** The gate's evidence, cases and estimates for the Skills view (runs go through the learning loop). */
  gate(): Promise<GateServices>;
  /** Tab only: backup, restore and wipe for Settings (app/backupService.ts). */
  backup(): Promise<BackupService>;
  /** Tab only: Settings → Sync and when it runs (app/syncServices.ts, docs/sync.md). */
  sync(): Promise<SyncService>;
  /** Each model's window and token counter (app/modelWindows.ts, docs/context-window.md). */
  modelWindows(): Promise<ModelWindows>;
  /** Tab only: forged tools, proven in the sandbox and offered to the chat (docs/forged-tools.md). */
  forgedTools(): Promise<ForgedToolServices>;
}

/** A lazily created value, created again on the next call if creating it failed. */
function once<T>(create: () => Promise<T>): () => Promise<T> {
  let value: Promise<T> | null = null;
  return () => {
    if (!value) {
      value = create();
      value.catch(() => (value = null));
    }
    return value;
  };
}

/** Approve and reject for the Pending view, on the context's one pending store and registry. */
function pendingActions(storage: KnackServices, tools: () => Promise<ToolRegistry>): PendingActions {
  const { pending } = storage.stores;
  return {
    async list() {
      const list = await pending.list();
      return list.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    },
    async approve(id) {
      const [{ approvePending }, registry] = await Promise.all([import('../tools/approvals'), tools()]);
      const outcome = await approvePending(pending, registry, id, storage.locks);
      storage.changes.publish({ type: 'pending-changed' });
      return outcome;
    },
    async reject(id) {
      const { rejectPending } = await import('../tools/approvals');
      await rejectPending(pending, id, storage.locks);
      storage.changes.publish({ type: 'pending-changed' });
    },
  };
}

export async function createAppServices(
  storage: KnackServices,
  options: { context: AppContext; legacySettings?: LegacySettingsStorage | null; gateRegexRunner?: RegexRunner },
): Promise<AppServices> {
  const { context } = options;
  const tabOnly = (what: string) => () => Promise.reject(new Error(`${what} exist only in the tab, not in the ${context}.`));
  const legacy = options.legacySettings !== undefined ? options.legacySettings : context === 'tab' ? (globalThis.localStorage ?? null) : null;
  const settings = createSettingsService(storage.stores.settings, storage.changes, { legacy });
  // Unreadable settings keep the defaults: the app still starts.
  await settings.load().catch((error: unknown) => console.warn('[knack] settings could not be read; using defaults', error));

  const skills = once(async () => (await import('./skillServices')).createSkillServices(storage, settings));
  const memory = once(async () => (await import('./memoryServices')).createMemoryServices(storage, settings));
  const sessions = context === 'tab' ? once(async () => (await import('./sessionServices')).createSessionServices(storage)) : tabOnly('Sessions');
  const tools = once(async () => {
    const [{ ToolRegistry }, { skillToolDefinitions }, skillParts, memoryParts] = await Promise.all([
      import('../tools/toolRegistry'),
      import('../skills/tools/skillToolDefinitions'),
      skills(),
      memory(),
    ]);
    const definitions = [memoryParts.tool, ...skillToolDefinitions(skillParts.engine)];
    if (context === 'tab') definitions.push((await sessions()).tool);
    const registry = new ToolRegistry(definitions);
    // The tab proves and offers forged tools from the start: a tool an import or another tab's
    // review brought is proven here whichever view is open (docs/forged-tools.md, "Proof").
    if (context === 'tab') queueMicrotask(() => void forgedTools().catch((error: unknown) => console.warn('[knack] forged tools could not start', error)));
    return registry;
  });
  const forgedTools = context === 'tab' ? once(() => startForgedTools(storage, settings, skills, tools)) : tabOnly('Forged tools');
  const chat =
    context === 'tab'
      ? once(async () => {
          // Proven tools are in the registry before the first chat request (forgedTools syncs its offers on start);
          // if they cannot start, the chat goes on without them.
          const [{ createChatServices }, registry, skillParts, memoryParts, sessionParts] = await Promise.all([
            import('./chatServices'),
            tools(),
            skills(),
            memory(),
            sessions(),
            forgedTools().catch(() => null),
          ]);
          return createChatServices({ registry, settings, skills: skillParts, memory: memoryParts, sessions: sessionParts });
        })
      : tabOnly('Chat services');

  const gate = once(async () =>
    (await import('./gateServices')).createGateServices({ settings, skills, tools, replays: storage.stores.replays, regexRunner: options.gateRegexRunner }),
  );

  const backup = context === 'tab' ? once(async () => (await import('./backupService')).createBackupService(storage)) : tabOnly('Backup and restore');

  const sync =
    context === 'tab'
      ? once(async () => {
          const { SyncService } = await import('./syncServices');
          return new SyncService({
            settings,
            skills,
            changes: storage.changes,
            locks: storage.locks,
            records: storage.stores.sync,
            appOrigin: globalThis.location?.origin ?? '',
            online: () => globalThis.navigator?.onLine !== false,
          });
        })
      : tabOnly('Sync');

  const modelWindows = once(async () => (await import('./modelWindowServices')).createModelWindows(storage, settings, context));

  const { activity } = storage.stores;
  if (context === 'tab') {
    // Started now so an in-browser provider loads its model with the user's window (app/modelWindowServices.ts).
    void modelWindows().catch((error: unknown) => console.warn('[knack] the window book could not start', error));
    // Keep the activity store small: old runs go once per start, off the critical path.
    void activity.prune().catch((error: unknown) => console.warn('[knack] pruning old activity failed', error));
  }

  return {
    context,
    storage,
    changes: storage.changes,
    settings,
    activity,
    pending: pendingActions(storage, tools),
    curatorState: {
      read: () => settings.read('curator'),
      // Never back in time: a state counting fewer runs than the stored one (a first-run seed
      // read before another context's run ended) leaves the stored one (docs/storage.md).
      write: async (state) => void (await settings.update('curator', (stored) => (stored.runCount > state.runCount ? {} : state))),
    },
    skills,
    memory,
    tools,
    sessions,
    chat,
    gate,
    backup,
    sync,
    modelWindows,
    forgedTools,
  };
}

/** The tab's forged tools: a chunk of their own, with the sandbox loaded only when a tool runs. */
async function startForgedTools(
  storage: KnackServices,
  settings: KnackSettingsService,
  skills: () => Promise<SkillServices>,
  tools: () => Promise<ToolRegistry>,
): Promise<ForgedToolServices> {
  const [{ createForgedToolServices }, { forgedToolSandbox }] = await Promise.all([import('./forgedToolServices'), import('./forgedToolRunner')]);
  let regexRunner: RegexRunner | null = null;
  const forged = createForgedToolServices({
    skills,
    registry: tools,
    settings,
    changes: storage.changes,
    sandbox: forgedToolSandbox,
    regexRunner: async () => (regexRunner ??= (await import('../gate/workerRegexRunner')).createWorkerRegexRunner()),
  });
  await forged.syncOffers();
  return forged;
}
