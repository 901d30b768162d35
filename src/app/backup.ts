/**
 * Building a backup (docs/storage.md, "Backup and restore"): every skill and memory file with its
 * bytes and exec bit, every record of the backed-up tables, and a manifest with counts and
 * SHA-256 hashes, in one zip. Settings go without API keys unless the caller passes a passphrase,
 * and then the keys travel encrypted in `secrets.json` only.
 *
 * Nothing is written; the task reads under no lock (a backup is a snapshot of what each file and
 * table held when it was read) and can be cancelled between any two units.
 */
import type { FileStore } from '../storage/fileStore';
import { isTempPath } from '../storage/tempFiles';
import { throttledProgress, throwIfCancelled, type LongTaskOptions } from '../storage/progress';
import type { LedgerEntry } from '../skills/ledger';
import { defaultMode, importedModes, MODE_FILE } from '../skills/zipExport';
import { encryptSecrets, extractSecrets } from './backupCrypto';
import {
  BACKUP_FORMAT,
  BACKUP_SCHEMA_VERSION,
  FILES_PREFIX,
  MANIFEST_PATH,
  SECRETS_PATH,
  encodeTable,
  recordsPath,
  sha256Hex,
  type BackupFileEntry,
  type BackupManifest,
  type BackupRecordsEntry,
} from './backupManifest';
import type { BackupTable, ProfileTables } from './backupTables';
import { MAX_ENTRIES, writeZip, type ZipSource } from '../skills/zipWriter';

/** The OPFS folders a profile keeps its files in. */
export const BACKUP_ROOTS = ['skills', 'memories'] as const;

export interface BackupSource {
  files: FileStore;
  tables: ProfileTables;
}

export interface BackupOptions extends LongTaskOptions {
  /** Include the API keys, encrypted with this passphrase; absent = the keys stay on this device. */
  keysPassphrase?: string;
  now?: () => Date;
}

export interface BackupResult {
  bytes: Uint8Array;
  manifest: BackupManifest;
  fileName: string;
}


export function backupFileName(at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `knack-backup-${stamp}.knackbackup`;
}

/**
 * Each skill file's mode as a skill export gives it (docs/storage.md, "Backup and restore"): the
 * mode the skill's newest import recorded, else Knack's own rule. The file store keeps no modes.
 * Keyed by OPFS path; a path absent here gets `defaultMode`.
 */
function recordedModes(ledger: readonly [string, unknown][]): Map<string, number> {
  const bySkill = new Map<string, LedgerEntry[]>();
  for (const [, value] of ledger) {
    const entry = value as LedgerEntry;
    if (typeof entry?.skill !== 'string' || !Array.isArray(entry.after)) continue;
    const history = bySkill.get(entry.skill) ?? [];
    history.push(entry);
    bySkill.set(entry.skill, history);
  }
  const modes = new Map<string, number>();
  for (const history of bySkill.values()) {
    history.sort((a, b) => a.at - b.at);
    const imported = importedModes(history);
    const lastImport = history.findLast((entry) => entry.action === 'import');
    const dir = lastImport?.after.find((version) => version.path.endsWith('/SKILL.md'))?.path.slice(0, -'/SKILL.md'.length);
    if (!imported || !dir) continue;
    for (const [relative, mode] of imported) modes.set(`${dir}/${relative}`, mode);
  }
  return modes;
}

/** Permission bits of a file: recorded, else Knack's rule relative to its skill folder. */
function fileMode(path: string, bytes: Uint8Array, recorded: Map<string, number>): number {
  const known = recorded.get(path);
  if (known !== undefined) return known & 0o7777;
  const scripts = path.indexOf('/scripts/');
  return scripts >= 0 ? defaultMode(path.slice(scripts + 1), bytes) : MODE_FILE;
}

export async function listProfileFiles(files: FileStore): Promise<string[]> {
  const paths: string[] = [];
  for (const root of BACKUP_ROOTS) paths.push(...(await files.walk(root)).filter((path) => !isTempPath(path)));
  return paths;
}

export async function createBackup(source: BackupSource, options: BackupOptions = {}): Promise<BackupResult> {
  const report = throttledProgress(options.onProgress);
  const { signal } = options;
  const zipEntries: ZipSource[] = [];

  report({ phase: 'Reading records', done: 0, total: source.tables.tables.length });
  const tableEntries = new Map<BackupTable, [string, unknown][]>();
  for (const [i, table] of source.tables.tables.entries()) {
    throwIfCancelled(signal, 'The backup');
    tableEntries.set(table, await source.tables.entries(table));
    report({ phase: 'Reading records', done: i + 1, total: source.tables.tables.length, item: table });
  }

  let secrets: BackupManifest['secrets'] = null;
  const settings = tableEntries.get('settings');
  if (settings) {
    const { cleaned, secrets: keys } = extractSecrets(settings);
    tableEntries.set('settings', cleaned);
    if (options.keysPassphrase !== undefined) {
      const envelope = new TextEncoder().encode(JSON.stringify(await encryptSecrets(keys, options.keysPassphrase)));
      zipEntries.push({ name: SECRETS_PATH, bytes: envelope, store: true });
      secrets = { sha256: await sha256Hex(envelope) };
    }
  }

  const records: BackupRecordsEntry[] = [];
  for (const [table, entries] of tableEntries) {
    const bytes = new TextEncoder().encode(encodeTable(entries));
    zipEntries.push({ name: recordsPath(table), bytes });
    records.push({ table, count: entries.length, sha256: await sha256Hex(bytes) });
  }

  const files = await readFiles(source.files, recordedModes(tableEntries.get('ledger') ?? []), zipEntries, options, report);
  throwIfCancelled(signal, 'The backup');

  const count = (table: BackupTable) => tableEntries.get(table)?.length ?? 0;
  const at = (options.now ?? (() => new Date()))();
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    schemaVersion: BACKUP_SCHEMA_VERSION,
    createdAt: at.toISOString(),
    counts: {
      skills: files.filter((file) => file.path.startsWith('skills/') && file.path.endsWith('/SKILL.md')).length,
      files: files.length,
      sessions: count('sessions'),
      messages: count('messages'),
      records: records.reduce((sum, entry) => sum + entry.count, 0),
    },
    files,
    records,
    secrets,
  };
  // The manifest goes first, so a reader finds what to expect before the parts.
  zipEntries.unshift({ name: MANIFEST_PATH, bytes: new TextEncoder().encode(JSON.stringify(manifest, null, 1)) });
  if (zipEntries.length > MAX_ENTRIES) {
    throw new Error(`The backup would hold ${zipEntries.length} files; one backup file holds at most ${MAX_ENTRIES}. Archive or delete skills you no longer use, then back up again.`);
  }
  report({ phase: 'Writing the backup file', done: 0, total: zipEntries.length });
  const bytes = await writeZip(zipEntries, {
    signal,
    task: 'The backup',
    onEntry: (done) => report({ phase: 'Writing the backup file', done, total: zipEntries.length }),
  });
  return { bytes, manifest, fileName: backupFileName(at) };
}

async function readFiles(
  store: FileStore,
  recorded: Map<string, number>,
  zipEntries: ZipSource[],
  options: LongTaskOptions,
  report: ReturnType<typeof throttledProgress>,
): Promise<BackupFileEntry[]> {
  const paths = await listProfileFiles(store);
  const files: BackupFileEntry[] = [];
  const BATCH = 32;
  for (let start = 0; start < paths.length; start += BATCH) {
    throwIfCancelled(options.signal, 'The backup');
    const batch = paths.slice(start, start + BATCH);
    const read = await Promise.all(batch.map(async (path) => ({ path, bytes: await store.read(path) })));
    for (const { path, bytes } of read) {
      if (!bytes) continue; // deleted while we listed: the backup is of what is there
      const mode = fileMode(path, bytes, recorded);
      zipEntries.push({ name: `${FILES_PREFIX}${path}`, bytes, unixMode: 0o100000 | mode });
      files.push({ path, size: bytes.length, sha256: await sha256Hex(bytes), ...(mode !== MODE_FILE ? { mode } : {}) });
    }
    report({ phase: 'Reading files', done: Math.min(start + BATCH, paths.length), total: paths.length, item: batch[batch.length - 1] });
  }
  return files;
}
