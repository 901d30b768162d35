/**
 * Applying a restore (docs/storage.md, "Backup and restore"). Everything the restore writes —
 * skill and memory files and the records — goes into ONE journal intent: the files are staged
 * first (nothing has changed yet, and this is the last point where Cancel works), then committed,
 * and the records land in one transaction from the journal's commit hook (restoreCommit.ts). A
 * failure or a crash at any point ends with the profile as it was, or (past the commit point)
 * fully restored. Afterwards change events make open views and the catalogue re-read.
 */
import type { ChangeFeed } from '../storage/changes';
import type { FileStore, LockManager } from '../storage/fileStore';
import type { Journal, JournalOp } from '../storage/journal';
import { randomId } from '../storage/liveness';
import { throttledProgress, throwIfCancelled, type LongTaskOptions } from '../storage/progress';
import { MEMORY_LOCK_KEY } from '../storage/webLocks';
import { skillLockKey } from '../skills/skillEngine';
import { decryptSecrets } from './backupCrypto';
import type { ProfileTables } from './backupTables';
import { RESTORE_DIR, RESTORE_INTENT_KIND, encodeRecordChanges, sweepRestoreFiles } from './restoreCommit';
import { restoreWrites, type RestoreChoices, type RestoreWrites } from './restoreChanges';
import type { RestorePlan } from './restorePlan';

export type { RestoreChoices } from './restoreChanges';

export interface RestoreDeps {
  files: FileStore;
  tables: ProfileTables;
  locks: LockManager;
  /** The journal to run the intent on; `onWrite` is called after each staged file (progress). */
  journal: (onWrite: () => void) => Journal;
  changes?: ChangeFeed;
}

export interface RestoreOptions extends LongTaskOptions {
  /** Opens the backup's API keys; without it this profile's keys are kept. */
  keysPassphrase?: string;
  newId?: () => string;
  /** Test hook, passed to the journal: stop as if the page died after this many durable actions. */
  failAfterStep?: number;
}

export interface RestoreReport {
  skills: number;
  files: number;
  sessions: number;
  records: number;
  keysRestored: boolean;
}

/** Holds every lock in `keys` (sorted, so two restores cannot deadlock) around `work`. */
async function withLocks<T>(locks: LockManager, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = keys;
  if (first === undefined) return work();
  return locks.withLock(first, () => withLocks(locks, rest, work));
}

function publishChanges(changes: ChangeFeed | undefined, writes: RestoreWrites): void {
  if (!changes) return;
  if (writes.ops.some((op) => op.path.startsWith('skills/'))) changes.publish({ type: 'skills-rescanned' });
  for (const target of ['memory', 'user'] as const) {
    const file = target === 'memory' ? 'memories/MEMORY.md' : 'memories/USER.md';
    if (writes.ops.some((op) => op.path === file)) changes.publish({ type: 'memory-changed', target });
  }
  if (writes.settingsKeys.length > 0) changes.publish({ type: 'settings-changed', keys: writes.settingsKeys });
  for (const sessionId of writes.sessions) changes.publish({ type: 'session-changed', sessionId });
  for (const name of writes.verdictSkills) changes.publish({ type: 'verdict-changed', name });
  const put = (table: string) => writes.changes.find((change) => change.table === table)?.put ?? [];
  if (put('pending').length > 0) changes.publish({ type: 'pending-changed' });
  const lastActivity = put('activity').at(-1);
  if (lastActivity) changes.publish({ type: 'activity-changed', id: lastActivity[0] });
}

export async function applyRestore(plan: RestorePlan, choices: RestoreChoices, deps: RestoreDeps, options: RestoreOptions = {}): Promise<RestoreReport> {
  const report = throttledProgress(options.onProgress);
  throwIfCancelled(options.signal, 'The restore');
  report({ phase: 'Preparing the restore', done: 0, total: 0 });

  let keys: unknown;
  if (options.keysPassphrase !== undefined && plan.backup.secrets) keys = await decryptSecrets(plan.backup.secrets, options.keysPassphrase);
  const writes = await restoreWrites(plan, choices, {
    keys,
    readText: (path) => deps.files.readText(path),
    newId: options.newId ?? (() => crypto.randomUUID()),
  });

  const recordsPath = `${RESTORE_DIR}/${Date.now().toString(36)}-${randomId(8)}.json`;
  const ops: JournalOp[] = [...writes.ops, { op: 'write', path: recordsPath, data: encodeRecordChanges(writes.changes) }];
  const total = ops.length;
  let staged = 0;
  const journal = deps.journal(() => {
    staged += 1;
    report({ phase: 'Writing files', done: Math.min(staged, total), total });
  });
  await sweepRestoreFiles(deps.files, await journal.unfinished());
  const lockKeys = [...new Set([...writes.skills.map(skillLockKey), ...(writes.memoryWritten ? [MEMORY_LOCK_KEY] : [])])].sort();

  // The last safe point: from here the restore runs to its end (or is undone as a whole).
  throwIfCancelled(options.signal, 'The restore');
  report({ phase: 'Writing files', done: 0, total });
  await withLocks(deps.locks, lockKeys, () =>
    journal.run(RESTORE_INTENT_KIND, ops, {
      meta: { restore: { recordsPath }, skills: writes.skills.length, sessions: writes.sessions.length },
      ...(options.failAfterStep !== undefined ? { failAfterStep: options.failAfterStep } : {}),
    }),
  );
  await deps.files.delete(recordsPath).catch(() => false);
  report({ phase: 'Restored', done: total, total });
  publishChanges(deps.changes, writes);
  return {
    skills: writes.skills.length,
    files: writes.ops.filter((op) => op.op === 'write').length,
    sessions: writes.sessions.length,
    records: writes.changes.reduce((sum, change) => sum + change.put.length, 0),
    keysRestored: keys !== undefined,
  };
}
