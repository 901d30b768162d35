/**
 * The IndexedDB database `knack`: schema, additive migrations, and opening.
 *
 * Stores (docs/storage.md). "inline" = the key is a property of the record; "out-of-line" = the
 * key is given with each put, which is how RecordStore (idbRecordStore.ts) uses a store.
 *
 * | store        | key                                   | indexes                                  | holds |
 * |--------------|---------------------------------------|------------------------------------------|-------|
 * | sessions     | inline `id`                           | `byUpdated` (updatedAt)                  | one record per chat session |
 * | messages     | inline `id`                           | `bySessionSeq` ([sessionId, seq], unique) | one record per message, never a per-session blob |
 * | usage        | out-of-line: skill name               | —                                        | counters, timestamps, created_by, state, pinned, verification |
 * | ledger       | out-of-line: entry id (time-ordered)  | `bySkill` (skill), `byTime` (at)         | append-only audit entries |
 * | blobs        | out-of-line: content hash             | —                                        | file versions for rollback |
 * | pending      | out-of-line: pending-write id         | —                                        | writes awaiting approval |
 * | verdicts     | out-of-line: verdict id               | `bySkill` (skill)                        | gate results with evidence |
 * | replays      | out-of-line: (case, model, prompt) key | —                                       | cached model outputs for the gate |
 * | settings     | out-of-line: setting name             | —                                        | user settings |
 * | journal      | out-of-line: intent id                | —                                        | unfinished multi-file operations (journal.ts) |
 * | index        | out-of-line: "snapshot", "manifest"…  | —                                        | skill-index snapshot with its generation |
 * | searchIndex  | out-of-line: chunk key                | —                                        | serialized session-search index |
 * | activity     | out-of-line: run id                   | `byStarted` (startedAt)                  | review and curator runs for the Activity view (v2) |
 * | sync         | out-of-line: `place`, `base:<skill>`… | —                                        | the sync's last synced version of each skill, conflicts, held skills (v4, docs/sync.md) |
 *
 * Migrations are additive: each one may create stores and indexes and transform records,
 * but never delete a store or an index (a newer tab must not destroy what an older tab
 * still reads). `openKnackDb` checks this and aborts an upgrade that breaks the rule.
 */
import {
  type DBSchema,
  type IDBPDatabase,
  type IDBPTransaction,
  openDB,
} from 'idb';
import { isQuotaError, toStorageFullError } from './quota';

export const KNACK_DB_NAME = 'knack';

export interface SessionRecord {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  [field: string]: unknown;
}

export interface MessageRecord {
  id: string;
  sessionId: string;
  /** Position in the session, 0-based; unique per session. */
  seq: number;
  role: string;
  [field: string]: unknown;
}

export interface KnackSchema extends DBSchema {
  sessions: { key: string; value: SessionRecord; indexes: { byUpdated: number } };
  messages: { key: string; value: MessageRecord; indexes: { bySessionSeq: [string, number] } };
  usage: { key: string; value: unknown };
  ledger: { key: string; value: unknown; indexes: { bySkill: string; byTime: number } };
  blobs: { key: string; value: unknown };
  pending: { key: string; value: unknown };
  verdicts: { key: string; value: unknown; indexes: { bySkill: string } };
  replays: { key: string; value: unknown };
  settings: { key: string; value: unknown };
  journal: { key: string; value: unknown };
  index: { key: string; value: unknown };
  searchIndex: { key: string; value: unknown };
  activity: { key: string; value: unknown; indexes: { byStarted: number } };
  sync: { key: string; value: unknown };
}

export type KnackStoreName = keyof KnackSchema & string;
export type KnackDb = IDBPDatabase<KnackSchema>;

/** Stores that hold records with out-of-line keys, usable through RecordStore. */
export const RECORD_STORE_NAMES = [
  'usage',
  'ledger',
  'blobs',
  'pending',
  'verdicts',
  'replays',
  'settings',
  'journal',
  'index',
  'searchIndex',
  'activity',
  'sync',
] as const satisfies readonly KnackStoreName[];
export type RecordStoreName = (typeof RECORD_STORE_NAMES)[number];

export type UpgradeTransaction = IDBPTransaction<unknown, string[], 'versionchange'>;

export interface Migration {
  /** The schema version this migration produces; versions run 1, 2, 3… without gaps. */
  version: number;
  description: string;
  /** Runs inside the upgrade transaction; may await IDB requests on `tx`, nothing else. */
  apply(db: IDBPDatabase<unknown>, tx: UpgradeTransaction): void | Promise<void>;
}

export const KNACK_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'initial schema',
    apply(db) {
      db.createObjectStore('sessions', { keyPath: 'id' }).createIndex('byUpdated', 'updatedAt');
      db.createObjectStore('messages', { keyPath: 'id' }).createIndex('bySessionSeq', ['sessionId', 'seq'], {
        unique: true,
      });
      const ledger = db.createObjectStore('ledger');
      ledger.createIndex('bySkill', 'skill');
      ledger.createIndex('byTime', 'at');
      db.createObjectStore('verdicts').createIndex('bySkill', 'skill');
      for (const name of ['usage', 'blobs', 'pending', 'replays', 'settings', 'journal', 'index', 'searchIndex']) {
        db.createObjectStore(name);
      }
    },
  },
  {
    version: 2,
    description: 'activity store: review and curator runs',
    apply(db) {
      db.createObjectStore('activity').createIndex('byStarted', 'startedAt');
    },
  },
  {
    version: 3,
    description: 'per-model verdicts: verdict records name their model key, usage records keep a verdict per model',
    apply: (_db, tx) => backfillModelVerdicts(tx),
  },
  {
    version: 4,
    description: 'sync store: the last synced version of each skill, conflicts and held skills (docs/sync.md)',
    apply(db) {
      db.createObjectStore('sync');
    },
  },
];

/** The model key of a stored verdict record: the same text as gate/modelKey.ts `modelKeyOf`. */
export function storedModelKey(record: { model?: { provider?: unknown; id?: unknown } }): string | null {
  const provider = record.model?.provider;
  const id = record.model?.id;
  return typeof provider === 'string' && typeof id === 'string' ? `${provider} ${id}` : null;
}

/**
 * Version 3 (docs/gate.md, "Per-model verdicts"): every verdict record gets `modelKey`, and every
 * usage record whose current verdict is stored gets `model_verdicts` with that verdict under its
 * model. The labels record is dropped so the next read rebuilds it with the per-model labels.
 * Additive: fields are added, nothing else is changed.
 */
async function backfillModelVerdicts(tx: UpgradeTransaction): Promise<void> {
  const verdicts = tx.objectStore('verdicts');
  const keys = new Map<string, string>();
  for (let cursor = await verdicts.openCursor(); cursor; cursor = await cursor.continue()) {
    const record = cursor.value as { modelKey?: unknown; model?: { provider?: unknown; id?: unknown } };
    const key = typeof record.modelKey === 'string' ? record.modelKey : storedModelKey(record);
    if (key === null) continue;
    keys.set(String(cursor.key), key);
    if (record.modelKey === undefined) await cursor.update({ ...record, modelKey: key });
  }
  const usage = tx.objectStore('usage');
  for (let cursor = await usage.openCursor(); cursor; cursor = await cursor.continue()) {
    const record = cursor.value as Record<string, unknown>;
    if (record.kind === 'labels') {
      await cursor.delete();
      continue;
    }
    const verdictId = record.verdict_id;
    const modelKey = typeof verdictId === 'string' ? keys.get(verdictId) : undefined;
    if (record.model_verdicts !== undefined || modelKey === undefined) continue;
    const entry = { verification: record.verification, verdict_id: verdictId, stale: record.verification_stale === true, ...(record.approved_by === 'user' ? { approved: true } : {}) };
    await cursor.update({ ...record, model_verdicts: { [modelKey]: entry } });
  }
}

export function validateMigrations(migrations: readonly Migration[]): void {
  migrations.forEach((migration, i) => {
    if (migration.version !== i + 1) {
      throw new Error(`Migration #${i} has version ${migration.version}; expected ${i + 1} (no gaps, ascending)`);
    }
  });
  if (migrations.length === 0) throw new Error('At least one migration is needed');
}

export interface OpenKnackDbOptions {
  name?: string;
  migrations?: readonly Migration[];
  /**
   * Another tab wants to upgrade the schema. The connection is closed so it can; the app
   * should then ask the user to reload.
   */
  onVersionChange?: () => void;
}

/** Opens (creating or upgrading) the database. Quota failures become StorageFullError. */
export async function openKnackDb(options: OpenKnackDbOptions = {}): Promise<KnackDb> {
  const migrations = options.migrations ?? KNACK_MIGRATIONS;
  validateMigrations(migrations);
  const version = migrations[migrations.length - 1]!.version;
  const failure: { error?: unknown } = {};
  try {
    const db = await openDB<unknown>(options.name ?? KNACK_DB_NAME, version, {
      upgrade(database, oldVersion, _newVersion, transaction) {
        void runMigrations(database, transaction as unknown as UpgradeTransaction, migrations, oldVersion, failure);
      },
      blocking() {
        db.close();
        options.onVersionChange?.();
      },
      blocked(currentVersion) {
        console.warn(`[knack] database upgrade waits for other tabs still on version ${currentVersion}`);
      },
    });
    return db as unknown as KnackDb;
  } catch (err) {
    // Our own abort of a failed migration also surfaces as AbortError: it is not quota.
    if (failure.error !== undefined) throw new MigrationError(failure.error);
    if (isQuotaError(err, { duringWrite: true })) throw await toStorageFullError(err, 'the database');
    throw err;
  }
}

/** An upgrade was rolled back because a migration failed; the database keeps its old version. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(cause: unknown) {
    super(`The database upgrade failed and was rolled back: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}

async function runMigrations(
  db: IDBPDatabase<unknown>,
  tx: UpgradeTransaction,
  migrations: readonly Migration[],
  oldVersion: number,
  failure: { error?: unknown },
): Promise<void> {
  const before = schemaShape(db, tx);
  try {
    for (const migration of migrations) {
      if (migration.version > oldVersion) await migration.apply(db, tx);
    }
    const after = schemaShape(db, tx);
    for (const [store, indexes] of before) {
      const kept = after.get(store);
      if (!kept) throw new Error(`A migration deleted the store "${store}"; migrations must be additive`);
      for (const index of indexes) {
        if (!kept.has(index)) throw new Error(`A migration deleted the index "${store}.${index}"; migrations must be additive`);
      }
    }
  } catch (err) {
    console.error('[knack] database migration failed; the upgrade is rolled back', err);
    failure.error = err;
    tx.abort();
  }
}

function schemaShape(db: IDBPDatabase<unknown>, tx: UpgradeTransaction): Map<string, Set<string>> {
  const shape = new Map<string, Set<string>>();
  for (const store of Array.from(db.objectStoreNames)) {
    shape.set(store, new Set(Array.from(tx.objectStore(store).indexNames)));
  }
  return shape;
}
