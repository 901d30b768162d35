/**
 * The backup file's manifest and record encoding (docs/storage.md, "Backup and restore").
 *
 * A backup is one zip: `manifest.json`, `files/<path>` (the OPFS bytes, with a Unix mode so
 * scripts stay executable), `records/<table>.jsonl` (one `[key, value]` per line) and, only when
 * the user asked for it, `secrets.json` (API keys encrypted with a passphrase, backupCrypto.ts).
 * The manifest lists every part with its SHA-256, so a damaged or edited file is refused before
 * anything is written.
 */
import type { BackupTable } from './backupTables';
import { BACKUP_TABLES } from './backupTables';

export const BACKUP_FORMAT = 'knack-backup';
/** Bumped when a reader of an older version could not restore the file correctly. */
export const BACKUP_SCHEMA_VERSION = 1;
export const MANIFEST_PATH = 'manifest.json';
export const SECRETS_PATH = 'secrets.json';
export const FILES_PREFIX = 'files/';
export const RECORDS_PREFIX = 'records/';

export interface BackupFileEntry {
  /** The OPFS path ("skills/git/commit/SKILL.md"); stored in the zip under `files/`. */
  path: string;
  size: number;
  sha256: string;
  /** Permission bits (0o755), present when not 0o644: the mode a skill export gives the file. */
  mode?: number;
}

export interface BackupRecordsEntry {
  table: BackupTable;
  count: number;
  sha256: string;
}

export interface BackupCounts {
  skills: number;
  files: number;
  sessions: number;
  messages: number;
  records: number;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  schemaVersion: number;
  createdAt: string;
  counts: BackupCounts;
  files: BackupFileEntry[];
  records: BackupRecordsEntry[];
  /** Present when API keys were included, encrypted; the hash is of `secrets.json`. */
  secrets: { sha256: string } | null;
}

export class BackupFormatError extends Error {
  override readonly name = 'BackupFormatError';
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export function recordsPath(table: BackupTable): string {
  return `${RECORDS_PREFIX}${table}.jsonl`;
}

const BYTES_TAG = '$knackBytes';

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function base64ToBytes(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** JSON that keeps byte arrays (blob records hold file versions as Uint8Array). */
export function encodeRecordValue(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return { [BYTES_TAG]: bytesToBase64(v) };
    if (v instanceof ArrayBuffer) return { [BYTES_TAG]: bytesToBase64(new Uint8Array(v)) };
    return v;
  });
}

export function decodeRecordValue(text: string): unknown {
  return JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const tagged = (v as Record<string, unknown>)[BYTES_TAG];
      if (typeof tagged === 'string' && Object.keys(v).length === 1) return base64ToBytes(tagged);
    }
    return v;
  });
}

/** One table as JSON lines, `[key, value]` each. */
export function encodeTable(entries: readonly [string, unknown][]): string {
  return entries.map(([key, value]) => `[${JSON.stringify(key)},${encodeRecordValue(value)}]`).join('\n');
}

export function decodeTable(text: string, table: string): [string, unknown][] {
  const entries: [string, unknown][] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = decodeRecordValue(line);
    } catch {
      throw new BackupFormatError(`Line ${i + 1} of the ${table} records is not valid JSON; the backup file is damaged.`);
    }
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string') {
      throw new BackupFormatError(`Line ${i + 1} of the ${table} records is not a [key, record] pair; the backup file is damaged.`);
    }
    entries.push([parsed[0], parsed[1]]);
  });
  return entries;
}

/** Checks the manifest's shape and version; throws a message a person can act on. */
export function parseManifest(text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BackupFormatError('The backup manifest is not valid JSON; the file is damaged.');
  }
  const manifest = value as Partial<BackupManifest> | null;
  if (manifest?.format !== BACKUP_FORMAT) throw new BackupFormatError('This file is not a Knack backup (its manifest has no knack-backup format).');
  if (typeof manifest.schemaVersion !== 'number' || !Number.isInteger(manifest.schemaVersion) || manifest.schemaVersion < 1) {
    throw new BackupFormatError('The backup manifest has no valid schema version; the file is damaged.');
  }
  if (manifest.schemaVersion > BACKUP_SCHEMA_VERSION) {
    throw new BackupFormatError(
      `This backup was made by a newer Knack (backup format ${manifest.schemaVersion}; this version reads up to ${BACKUP_SCHEMA_VERSION}). Update Knack, then restore it.`,
    );
  }
  const filesOk =
    Array.isArray(manifest.files) &&
    manifest.files.every((f) => typeof f?.path === 'string' && typeof f.sha256 === 'string' && typeof f.size === 'number');
  const recordsOk =
    Array.isArray(manifest.records) &&
    manifest.records.every((r) => (BACKUP_TABLES as readonly string[]).includes(r?.table) && typeof r.sha256 === 'string' && typeof r.count === 'number');
  if (!filesOk || !recordsOk || typeof manifest.counts !== 'object' || manifest.counts === null) {
    throw new BackupFormatError('The backup manifest is missing its list of files or records; the file is damaged.');
  }
  const secrets = manifest.secrets;
  if (secrets !== null && (typeof secrets !== 'object' || typeof secrets?.sha256 !== 'string')) {
    throw new BackupFormatError('The backup manifest describes its keys section wrongly; the file is damaged.');
  }
  return manifest as BackupManifest;
}
