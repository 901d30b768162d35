/**
 * Opening a backup file for restore (docs/storage.md, "Backup and restore"). Everything is checked
 * before a preview is shown, and a file that fails any check is refused whole with a message that
 * says why: not a zip, no manifest, a newer format, a part missing, a part whose SHA-256 differs
 * from the manifest's, a path outside the profile's folders.
 */
import { unzipSync } from 'fflate';
import { throttledProgress, throwIfCancelled, type LongTaskOptions } from '../storage/progress';
import { isTempPath } from '../storage/tempFiles';
import { unsafePathReason } from '../skills/zipArchive';
import { BACKUP_ROOTS } from './backup';
import { isEncryptedSecrets, type EncryptedSecrets } from './backupCrypto';
import {
  BackupFormatError,
  FILES_PREFIX,
  MANIFEST_PATH,
  SECRETS_PATH,
  decodeTable,
  parseManifest,
  recordsPath,
  sha256Hex,
  type BackupManifest,
} from './backupManifest';
import type { BackupTable } from './backupTables';

export interface BackupFile {
  bytes: Uint8Array;
  /** Permission bits as the backup recorded them (0o644 when it did not say). */
  mode: number;
}

export interface OpenedBackup {
  manifest: BackupManifest;
  /** OPFS path → bytes, every one checked against the manifest. */
  files: Map<string, BackupFile>;
  tables: Map<BackupTable, [string, unknown][]>;
  secrets: EncryptedSecrets | null;
  size: number;
}

/** Far above any real profile; they only stop a file that claims absurd sizes. */
const MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024 - 1;
const MAX_RATIO = 10_000;

function unpack(bytes: Uint8Array): Record<string, Uint8Array> {
  if (!(bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b)) {
    throw new BackupFormatError('This file is not a Knack backup (it is not a zip archive).');
  }
  let declared = 0;
  try {
    return unzipSync(bytes, {
      filter: (entry) => {
        declared += entry.originalSize;
        if (declared > MAX_TOTAL_BYTES || entry.originalSize > MAX_RATIO * Math.max(1024, entry.size)) {
          throw new BackupFormatError('The backup file declares more data than it can hold; it is damaged or not a backup.');
        }
        return !entry.name.endsWith('/');
      },
    });
  } catch (err) {
    if (err instanceof BackupFormatError) throw err;
    throw new BackupFormatError(`The backup file cannot be read as a zip archive (${err instanceof Error ? err.message : String(err)}); it is damaged.`);
  }
}

async function checked(entries: Record<string, Uint8Array>, name: string, sha256: string, what: string): Promise<Uint8Array> {
  const bytes = entries[name];
  if (!bytes) throw new BackupFormatError(`The backup is missing ${what} (${name}) that its manifest lists; the file is incomplete.`);
  if ((await sha256Hex(bytes)) !== sha256) {
    throw new BackupFormatError(`${what} (${name}) does not match the hash in the manifest; the file is damaged or was changed. Nothing was restored.`);
  }
  return bytes;
}

function checkPath(path: string): void {
  const unsafe = unsafePathReason(path);
  const inProfile = BACKUP_ROOTS.some((root) => path.startsWith(`${root}/`));
  if (unsafe || !inProfile || isTempPath(path)) {
    throw new BackupFormatError(`The backup lists a file outside the profile's folders ('${path}'${unsafe ? `: ${unsafe}` : ''}); it is refused.`);
  }
}

/** Unpacks and verifies a backup; writes nothing. */
export async function openBackup(bytes: Uint8Array, options: LongTaskOptions = {}): Promise<OpenedBackup> {
  const report = throttledProgress(options.onProgress);
  report({ phase: 'Reading the backup file', done: 0, total: 0 });
  const entries = unpack(bytes);
  const manifestBytes = entries[MANIFEST_PATH];
  if (!manifestBytes) throw new BackupFormatError('This file is not a Knack backup (it has no manifest.json).');
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes));

  const total = manifest.files.length + manifest.records.length;
  const files = new Map<string, BackupFile>();
  for (const [i, entry] of manifest.files.entries()) {
    if (i % 64 === 0) throwIfCancelled(options.signal, 'Opening the backup');
    checkPath(entry.path);
    const data = await checked(entries, `${FILES_PREFIX}${entry.path}`, entry.sha256, 'A file');
    files.set(entry.path, { bytes: data, mode: typeof entry.mode === 'number' ? entry.mode : 0o644 });
    report({ phase: 'Checking the backup', done: i + 1, total, item: entry.path });
  }

  const tables = new Map<BackupTable, [string, unknown][]>();
  for (const [i, entry] of manifest.records.entries()) {
    throwIfCancelled(options.signal, 'Opening the backup');
    const data = await checked(entries, recordsPath(entry.table), entry.sha256, `The ${entry.table} records`);
    const decoded = decodeTable(new TextDecoder().decode(data), entry.table);
    if (decoded.length !== entry.count) {
      throw new BackupFormatError(`The ${entry.table} records hold ${decoded.length} entries, the manifest says ${entry.count}; the file is damaged.`);
    }
    tables.set(entry.table, decoded);
    report({ phase: 'Checking the backup', done: manifest.files.length + i + 1, total, item: entry.table });
  }

  let secrets: EncryptedSecrets | null = null;
  if (manifest.secrets) {
    const data = await checked(entries, SECRETS_PATH, manifest.secrets.sha256, 'The keys section');
    const parsed: unknown = JSON.parse(new TextDecoder().decode(data));
    if (!isEncryptedSecrets(parsed)) throw new BackupFormatError('The keys section of the backup is not in a form this Knack reads; restore without the keys.');
    secrets = parsed;
  }
  return { manifest, files, tables, secrets, size: bytes.length };
}
