import { describe, expect, it } from 'vitest';
import {
  BACKUP_SCHEMA_VERSION,
  BackupFormatError,
  decodeRecordValue,
  decodeTable,
  encodeRecordValue,
  encodeTable,
  parseManifest,
  sha256Hex,
} from '../../src/app/backupManifest';

const manifest = (change: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'knack-backup',
    schemaVersion: BACKUP_SCHEMA_VERSION,
    createdAt: '2026-12-01T00:00:00.000Z',
    counts: { skills: 0, files: 0, sessions: 0, messages: 0, records: 0 },
    files: [],
    records: [],
    secrets: null,
    ...change,
  });

describe('backup manifest', () => {
  it('hashes with SHA-256 as hex', async () => {
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('keeps byte arrays and nested values through the record encoding', () => {
    const value = { hash: 'h', bytes: new Uint8Array([0, 255, 7]), nested: [{ a: 1 }, null, 'x'] };
    expect(decodeRecordValue(encodeRecordValue(value))).toEqual(value);
    const table: [string, unknown][] = [['k1', value], ['k\n2', { text: 'line\nbreak' }]];
    expect(decodeTable(encodeTable(table), 'blobs')).toEqual(table);
  });

  it('refuses a damaged records line with the table named', () => {
    expect(() => decodeTable('["k",{}]\n{oops', 'ledger')).toThrow(/Line 2 of the ledger records/);
    expect(() => decodeTable('{"not":"a pair"}', 'ledger')).toThrow(BackupFormatError);
  });

  it('reads a valid manifest and refuses a newer schema, another format, or missing lists', () => {
    expect(parseManifest(manifest()).schemaVersion).toBe(BACKUP_SCHEMA_VERSION);
    expect(() => parseManifest(manifest({ schemaVersion: BACKUP_SCHEMA_VERSION + 1 }))).toThrow(/newer Knack .* Update Knack/);
    expect(() => parseManifest(manifest({ format: 'zip' }))).toThrow(/not a Knack backup/);
    expect(() => parseManifest(manifest({ files: 'nope' }))).toThrow(/missing its list/);
    expect(() => parseManifest(manifest({ records: [{ table: 'journal', count: 1, sha256: 'x' }] }))).toThrow(/missing its list/);
    expect(() => parseManifest('{')).toThrow(/not valid JSON/);
  });
});
