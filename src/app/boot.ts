/**
 * Start-up: open storage, settle unfinished multi-file operations, publish the services.
 *
 * Budget: < 100 ms. Only what must precede any read runs before `services` resolves
 * (open the database, settle journal intents: one IndexedDB read when there is nothing to
 * do). The sweep of stray temp files walks all of OPFS and runs afterwards; strays are
 * invisible to readers, so nothing waits for it except `knack.ready`.
 */
import type { ChangeFeed } from '../storage/changes';
import { type KnackDb, KNACK_MIGRATIONS, openKnackDb } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, RecoveryReport } from '../storage/journal';
import { requestPersistenceOnce, storageStatus } from '../storage/persistence';
import { StorageFullError } from '../storage/quota';
import type { RecordStoreOpener } from '../storage/recordStores';
import { openStorage } from './openStorage';
import type { SkillServices } from './skillServices';
import type { MemoryServices } from './memoryServices';
import type { MemorySettings } from './settings';
import type { SkillSettings } from '../skills/skillEngine';
import type { ToolRegistry } from '../tools/toolRegistry';
import { failServices, provideServices, type KnackServices } from './services';

/**
 * `globalThis.knack`: the storage engine's console handle. Browser tests and `npm run bench`
 * drive storage through it, and power users can inspect their data from DevTools:
 *
 *   await knack.ready                        // boot and the temp-file sweep are done
 *   await knack.files.readText('memories/MEMORY.md')
 *   await knack.files.write('skills/x/SKILL.md', text)       // atomic temp + move
 *   await knack.locks.withLock('skill:x', async () => { … })  // cross-tab exclusive
 *   await knack.journal.run('kind', [{ op: 'write', path, data }, { op: 'delete', path }])
 *   await knack.recover()                    // settle dead intents and sweep temp files
 *   await knack.storageStatus()              // { persisted, usage, quota, usageDetails }
 *   await knack.db.getAll('sessions')        // the idb-wrapped IndexedDB `knack`
 *   knack.records('settings')                // a RecordStore on one store (console and tests only)
 *   knack.settings.get('app')                // the settings service (app/settings.ts)
 *   knack.openDb({ name, migrations })       // tests: open another database with our migrations
 *
 * It is set as soon as boot starts (with `ready` only) and filled in as services come up.
 */
export interface KnackHandle {
  ready: Promise<KnackServices>;
  files?: FileStore;
  locks?: LockManager;
  db?: KnackDb;
  journal?: Journal;
  changes?: ChangeFeed;
  /** Raw record stores, for the console and browser tests; the app gets typed stores instead. */
  records?: RecordStoreOpener;
  recover?: () => Promise<RecoveryReport>;
  recovery?: RecoveryReport;
  storageStatus: typeof storageStatus;
  openDb: typeof openKnackDb;
  migrations: typeof KNACK_MIGRATIONS;
  StorageFullError: typeof StorageFullError;
  /** The tab's app services (app/appServices.ts). */
  app?: import('./appServices').AppServices;
  /** The settings service (app/settings.ts). */
  settings?: import('./settings').KnackSettingsService;
  /** The skill engine, the tab's one tool registry, the index and the skill settings, once loaded. */
  skills?: ConsoleSkills;
  /** The memory store and tool (app/memoryServices.ts) and the memory settings, once loaded. */
  memory?: ConsoleMemory;
  /** Sessions, session search and its tool (app/sessionServices.ts), once loaded. */
  sessions?: import('./sessionServices').SessionServices;
  /** How long boot took until services were published, in ms. */
  bootMs?: number;
}

/** `knack.skills`: the engine and index, the tab's one tool registry, the skill settings. */
export interface ConsoleSkills extends SkillServices {
  registry: ToolRegistry;
  settings: { get(): SkillSettings; update(change: Partial<SkillSettings>): Promise<SkillSettings> };
}

/** `knack.memory`: the memory store and tool, and the memory settings. */
export interface ConsoleMemory extends MemoryServices {
  settings(): MemorySettings;
  updateSettings(change: Partial<MemorySettings>): Promise<MemorySettings>;
}

declare global {
  var knack: KnackHandle | undefined;
}

export function boot(): Promise<KnackServices> {
  const started = performance.now();
  let markBooted!: (value: KnackServices) => void;
  let markFailed!: (reason: unknown) => void;
  const ready = new Promise<KnackServices>((resolve, reject) => {
    markBooted = resolve;
    markFailed = reject;
  });
  ready.catch(() => undefined); // reported through failServices; avoid an unhandled rejection
  const handle: KnackHandle = {
    ready,
    storageStatus,
    openDb: openKnackDb,
    migrations: KNACK_MIGRATIONS,
    StorageFullError,
  };
  globalThis.knack = handle;

  const booted = (async () => {
    const { records, ...value } = await openStorage({ onFirstWrite: requestPersistenceOnce, recover: true });
    const { files, locks, db, journal, changes, recovery } = value;
    Object.assign(handle, {
      files,
      locks,
      db,
      journal,
      changes,
      records,
      recovery,
      recover: () => journal.recover(),
      bootMs: performance.now() - started,
    });
    provideServices(value);
    return value;
  })();

  booted.then(
    async (value) => {
      try {
        value.recovery.sweptTempFiles = await value.journal.sweep();
        markBooted(value);
      } catch (err) {
        console.error('[knack] sweeping temp files failed', err);
        markFailed(err);
      }
    },
    (err: unknown) => {
      console.error('[knack] storage failed to start', err);
      failServices(err);
      markFailed(err);
    },
  );
  return booted;
}
