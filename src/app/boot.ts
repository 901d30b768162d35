/**
 * Start-up: open storage, settle unfinished multi-file operations, publish the services.
 *
 * Budget: < 100 ms. Only what must precede any read runs before `services` resolves
 * (open the database, settle journal intents: one IndexedDB read when there is nothing to
 * do). The sweep of stray temp files walks all of OPFS and runs afterwards; strays are
 * invisible to readers, so nothing waits for it except `knack.ready`.
 */
import type { ChangeFeed } from '../storage/changes';
import { type KnackDb, KNACK_MIGRATIONS, type RecordStoreName, openKnackDb } from '../storage/db';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, RecoveryReport } from '../storage/journal';
import { requestPersistenceOnce, storageStatus } from '../storage/persistence';
import { StorageFullError } from '../storage/quota';
import type { RecordStore } from '../storage/recordStore';
import { openStorage } from './openStorage';
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
 *   knack.records('settings')                // a RecordStore on one store
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
  records?: <T>(store: RecordStoreName) => RecordStore<T>;
  recover?: () => Promise<RecoveryReport>;
  recovery?: RecoveryReport;
  storageStatus: typeof storageStatus;
  openDb: typeof openKnackDb;
  migrations: typeof KNACK_MIGRATIONS;
  StorageFullError: typeof StorageFullError;
  /** The skill engine, tools and index (app/skillServices.ts), once loaded. */
  skills?: import('./skillServices').SkillServices;
  /** The memory store and tool (app/memoryServices.ts), once loaded. */
  memory?: import('./memoryServices').MemoryServices;
  /** Sessions, session search and its tool (app/sessionServices.ts), once loaded. */
  sessions?: import('./sessionServices').SessionServices;
  /** How long boot took until services were published, in ms. */
  bootMs?: number;
}

declare global {
  // eslint-disable-next-line no-var
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
    const value = await openStorage({ onFirstWrite: requestPersistenceOnce, recover: true });
    const { files, locks, db, journal, changes, records, recovery } = value;
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
