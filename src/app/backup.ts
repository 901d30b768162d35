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
import { writeZip, type ZipSource } from './backupZip';

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

const MODE_FILE = 0o100644;
const MODE_EXECUTABLE = 0o100755;

export function backupFileName(at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[:T]/g, '-');
  return `knack-backup-${stamp}.knackbackup`;
}

/**
 * The exec bits Knack knows (the file store keeps no modes): what a skill's last import
 * recorded, and scripts that start with `#!`, as the skill export decides them.
 */
function recordedExecutables(ledger: readonly [string, unknown][]): Set<string> {
  const lastImport = new Map<string, LedgerEntry>();
  for (const [, value] of ledger) {
    const entry = value as LedgerEntry;
    if (entry?.actor !== 'import' || typeof entry.skill !== 'string') continue;
    const seen = lastImport.get(entry.skill);
    if (!seen || seen.at <= entry.at) lastImport.set(entry.skill, entry);
  }
  const paths = new Set<string>();
  for (const entry of lastImport.values()) {
    const skillMd = (entry.after ?? []).map((file) => file.path).filter((path) => path.endsWith('/SKILL.md')).sort((a, b) => a.length - b.length)[0];
    const dir = skillMd?.slice(0, -'/SKILL.md'.length);
    const executable = entry.evidence?.executable;
    if (!Array.isArray(executable)) continue;
    for (const file of entry.after ?? []) {
      const relative = dir && file.path.startsWith(`${dir}/`) ? file.path.slice(dir.length + 1) : null;
      if (relative && executable.includes(relative)) paths.add(file.path);
    }
  }
  return paths;
}

function isExecutable(path: string, bytes: Uint8Array, recorded: Set<string>): boolean {
  const shebang = /\/scripts\//.test(path) && bytes[0] === 0x23 && bytes[1] === 0x21;
  return shebang || recorded.has(path);
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

  const files = await readFiles(source.files, recordedExecutables(tableEntries.get('ledger') ?? []), zipEntries, options, report);
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
  report({ phase: 'Writing the backup file', done: 0, total: zipEntries.length });
  const bytes = await writeZip(zipEntries, {
    signal,
    onEntry: (done) => report({ phase: 'Writing the backup file', done, total: zipEntries.length }),
  });
  return { bytes, manifest, fileName: backupFileName(at) };
}

async function readFiles(
  store: FileStore,
  recorded: Set<string>,
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
      const executable = isExecutable(path, bytes, recorded);
      zipEntries.push({ name: `${FILES_PREFIX}${path}`, bytes, unixMode: executable ? MODE_EXECUTABLE : MODE_FILE });
      files.push({ path, size: bytes.length, sha256: await sha256Hex(bytes), ...(executable ? { executable: true } : {}) });
    }
    report({ phase: 'Reading files', done: Math.min(start + BATCH, paths.length), total: paths.length, item: batch[batch.length - 1] });
  }
  return files;
}
