/**
 * An in-memory profile for backup and restore tests: files, every backed-up table (sessions and
 * messages included), the derived tables a restore clears, and a journal whose commit hook applies
 * a restore's records as the app's does (app/openStorage.ts).
 */
import { ChangeFeed, type StorageChange } from '../../../src/storage/changes';
import type { FileStore, FileData } from '../../../src/storage/fileStore';
import { Journal, type IntentRecord } from '../../../src/storage/journal';
import { FixedLiveness } from '../../../src/storage/liveness';
import { MemoryFileStore, MemoryLockManager } from '../../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../../src/storage/recordStore';
import { BACKUP_TABLES, DERIVED_TABLES, recordStoreTables, type BackupTable, type DerivedTable, type ProfileTables } from '../../../src/app/backupTables';
import { applyStagedRestore } from '../../../src/app/restoreCommit';
import type { RestoreDeps } from '../../../src/app/restore';

export interface TestProfile {
  files: FileStore;
  failing: FailingFiles;
  raw: MemoryFileStore;
  stores: Record<BackupTable | DerivedTable, RecordStore<unknown>>;
  tables: ProfileTables;
  intents: MemoryRecordStore<IntentRecord>;
  liveness: FixedLiveness;
  locks: MemoryLockManager;
  journal: Journal;
  events: StorageChange[];
  deps: RestoreDeps;
}

/** Fails writes whose path matches `failing` while it is set: a full disk, a broken file. */
export class FailingFiles implements FileStore {
  failing: ((path: string) => boolean) | null = null;
  constructor(private readonly inner: FileStore) {}
  read = (path: string) => this.inner.read(path);
  readText = (path: string) => this.inner.readText(path);
  write = async (path: string, data: FileData) => {
    if (this.failing?.(path)) throw new Error(`injected write failure at ${path}`);
    return this.inner.write(path, data);
  };
  delete = (path: string) => this.inner.delete(path);
  deleteTree = (path: string) => this.inner.deleteTree(path);
  move = (from: string, to: string) => this.inner.move(from, to);
  exists = (path: string) => this.inner.exists(path);
  list = (dir: string) => this.inner.list(dir);
  walk = (dir: string) => this.inner.walk(dir);
}

export function makeProfile(options: { liveness?: FixedLiveness; wrapStores?: (table: string, store: RecordStore<unknown>) => RecordStore<unknown> } = {}): TestProfile {
  const raw = new MemoryFileStore();
  const failing = new FailingFiles(raw);
  const stores = {} as Record<BackupTable | DerivedTable, RecordStore<unknown>>;
  for (const table of [...BACKUP_TABLES, ...DERIVED_TABLES]) {
    const store = new MemoryRecordStore<unknown>();
    stores[table] = options.wrapStores ? options.wrapStores(table, store) : store;
  }
  const tables = recordStoreTables(stores);
  const intents = new MemoryRecordStore<IntentRecord>();
  const liveness = options.liveness ?? new FixedLiveness('tab-a');
  const locks = new MemoryLockManager();
  const journal = new Journal({ files: failing, intents, liveness, locks, onCommitted: (intent) => applyStagedRestore(intent, failing, tables) });
  const feed = new ChangeFeed('test-backup-' + Math.random());
  const events: StorageChange[] = [];
  feed.subscribe((change) => events.push(change));
  return {
    files: failing,
    raw,
    failing,
    stores,
    tables,
    intents,
    liveness,
    locks,
    journal,
    events,
    deps: { files: failing, tables, locks, journal: () => journal, changes: feed },
  };
}

/** Everything a profile holds, for exact comparison: every file's bytes and every record. */
export async function snapshotProfile(profile: TestProfile): Promise<{ files: Record<string, number[]>; records: Record<string, [string, unknown][]> }> {
  const files: Record<string, number[]> = {};
  for (const path of await profile.raw.walk('')) files[path] = [...((await profile.raw.read(path)) ?? [])];
  const records: Record<string, [string, unknown][]> = {};
  for (const table of BACKUP_TABLES) records[table] = await profile.tables.entries(table);
  return { files, records };
}

const SCRIPT = '#!/bin/sh\necho hello\n';

/** A populated profile: two skills (one with a binary file and a script), memory, two sessions, settings with an API key. */
export async function populate(profile: TestProfile): Promise<void> {
  const f = profile.raw;
  await f.write('skills/git/commit-style/SKILL.md', '---\nname: commit-style\ndescription: Write commit messages.\n---\nUse the imperative.\n');
  await f.write('skills/git/commit-style/scripts/check.sh', SCRIPT);
  await f.write('skills/git/commit-style/assets/logo.bin', new Uint8Array([0, 1, 2, 255, 254, 128, 0, 7]));
  await f.write('skills/git/commit-style/evals/evals.json', JSON.stringify({ cases: [{ id: 'c1', prompt: 'hi' }] }));
  await f.write('skills/git/DESCRIPTION.md', 'Git helpers.\n');
  await f.write('skills/notes/SKILL.md', '---\nname: notes\ndescription: Take notes.\n---\nBe brief.\n');
  await f.write('memories/MEMORY.md', 'The user likes tea.\n§\nProject uses pnpm.');
  await f.write('memories/USER.md', 'Name: Ada');
  const s = profile.stores;
  await s.settings.put('app', { provider: 'openai-compatible', baseUrl: 'https://api.example.test/v1', apiKey: 'sk-secret-123', model: 'm1' });
  await s.settings.put('gate', { policy: 'strict' });
  await s.usage.put('commit-style', { skill: 'commit-style', uses: 3, state: 'promoted' });
  await s.usage.put('notes', { skill: 'notes', uses: 1, state: 'staged' });
  await s.ledger.put('0001', { id: '0001', skill: 'commit-style', actor: 'user', action: 'create', at: 1, before: [], after: [] });
  await s.blobs.put('abc', { hash: 'abc', bytes: new Uint8Array([9, 8, 7]) });
  await s.verdicts.put('v1', { id: 'v1', skill: 'commit-style', verdict: 'promoted' });
  await s.activity.put('run1', { id: 'run1', startedAt: 5 });
  await s.sessions.put('s1', { id: 's1', title: 'First', createdAt: 1, updatedAt: 2, messageCount: 2 });
  await s.sessions.put('s2', { id: 's2', title: 'Second', createdAt: 3, updatedAt: 4, messageCount: 1 });
  await s.messages.put('m1', { id: 'm1', sessionId: 's1', seq: 0, role: 'user', content: 'hello' });
  await s.messages.put('m2', { id: 'm2', sessionId: 's1', seq: 1, role: 'assistant', content: 'hi there' });
  await s.messages.put('m3', { id: 'm3', sessionId: 's2', seq: 0, role: 'user', content: 'second chat' });
  await s.index.put('manifest', { kind: 'manifest', version: 3, generation: 1, count: 2 });
}
