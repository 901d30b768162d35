/**
 * How a restore's records land together with its files (docs/storage.md, "Backup and restore").
 *
 * The records a restore writes travel as one more file of its journal intent
 * (`.knack-restore/<id>.json`), and the journal's commit hook applies them in one transaction
 * once every file step is in place — in the restoring tab, or in start-up recovery when that tab
 * died after the commit point. So the files and the records change together: before the commit
 * nothing has changed; after it, both are rolled forward (or the files are undone when the
 * records cannot be written, see journal.ts).
 */
import type { FileStore } from '../storage/fileStore';
import type { IntentRecord } from '../storage/journal';
import { decodeRecordValue, encodeRecordValue } from './backupManifest';
import type { ProfileTables, TableChange } from './backupTables';

export const RESTORE_DIR = '.knack-restore';
export const RESTORE_INTENT_KIND = 'restore';

export interface StagedRestore {
  /** The file holding the record changes, written by the same intent. */
  recordsPath: string;
}

export function isStagedRestore(value: unknown): value is StagedRestore {
  const path = (value as Partial<StagedRestore> | null)?.recordsPath;
  return typeof path === 'string' && path.startsWith(`${RESTORE_DIR}/`);
}

/** The staged restore an intent carries, if it is a restore. */
export function stagedRestoreOf(intent: IntentRecord): StagedRestore | null {
  const staged = (intent.meta as { restore?: unknown } | undefined)?.restore;
  return isStagedRestore(staged) ? staged : null;
}

export function encodeRecordChanges(changes: readonly TableChange[]): string {
  return encodeRecordValue(changes);
}

/**
 * The commit hook: applies the intent's record changes. Idempotent (puts and deletes of fixed
 * keys), so recovery may run it again after a crash between it and the intent's end; the file is
 * removed by the restoring tab afterwards, and a missing file means there is nothing left to do.
 */
export async function applyStagedRestore(intent: IntentRecord, files: FileStore, tables: ProfileTables): Promise<void> {
  const staged = stagedRestoreOf(intent);
  if (!staged) return;
  const text = await files.readText(staged.recordsPath);
  if (text === null) return;
  const changes = decodeRecordValue(text);
  if (!Array.isArray(changes)) throw new Error(`The restore's record file ${staged.recordsPath} is not a list of changes.`);
  await tables.apply(changes as TableChange[]);
}

/** Removes record files of restores that are over (none of the unfinished intents names them). */
export async function sweepRestoreFiles(files: FileStore, unfinished: readonly IntentRecord[]): Promise<void> {
  const inUse = new Set(unfinished.map(stagedRestoreOf).flatMap((staged) => (staged ? [staged.recordsPath] : [])));
  for (const path of await files.walk(RESTORE_DIR)) {
    if (!inUse.has(path) && !path.endsWith('.knack-tmp')) await files.delete(path);
  }
}
