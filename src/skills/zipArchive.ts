/**
 * Reading zip archives safely for skill import (docs/skill-tools.md). fflate does the decompression; the
 * only bytes read here are the central directory's fixed fields, because fflate does not
 * report an entry's external attributes (where symlinks and exec bits live) and because its
 * one-shot unzip inflates before we could stop a bomb. With the directory in hand every
 * declared size is checked before anything is inflated, and each entry is inflated in small
 * pushes that stop as soon as the output passes what the limits allow. Every entry's bytes are
 * checked against the CRC-32 its directory record declares (fflate does not check it), so a
 * damaged or tampered entry is refused instead of imported silently.
 */
import { Inflate, inflateSync } from 'fflate';
import { concatBytes } from '../storage/bytes';

export interface ZipLimits {
  maxEntries: number;
  /** Sum of the uncompressed sizes of the kept entries. */
  maxTotalBytes: number;
  maxFileBytes: number;
  /** Uncompressed ÷ compressed, checked for entries larger than `ratioFloorBytes`. */
  maxRatio: number;
  ratioFloorBytes: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 5000,
  maxTotalBytes: 64 * 1024 * 1024,
  maxFileBytes: 8 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 1024 * 1024,
};

export interface ZipEntryInfo {
  /** The name as stored (forward slashes expected). */
  name: string;
  method: number;
  compressedSize: number;
  declaredSize: number;
  /** CRC-32 of the uncompressed bytes, from the central directory. */
  crc32: number;
  localHeaderOffset: number;
  /** Unix mode from the external attributes when the archive was made on Unix; else null. */
  unixMode: number | null;
  isDirectory: boolean;
}

export interface ZipFile {
  path: string;
  bytes: Uint8Array;
  executable?: boolean;
  /** Unix permission bits from the archive (e.g. 0o644), when it recorded them. */
  mode?: number;
}

export interface RefusedEntry {
  path: string;
  reason: string;
}

export interface ZipReadResult {
  files: ZipFile[];
  refused: RefusedEntry[];
  ignored: string[];
  /** Archive-level refusal (not a zip, over the limits, a bomb); nothing is kept when set. */
  error: string | null;
  /** Bytes actually produced by inflation, so callers (and tests) see that a bomb was cut short. */
  inflatedBytes: number;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
// Deflate expands at most ~1032:1. An entry of up to 64 KB compressed is inflated in one pass
// into a buffer one byte larger than it may grow (fflate drops what does not fit, so a lie shows
// as a full buffer), at most ~66 MB of work before it is refused. Larger entries are streamed
// 16 KB at a time, so a bomb overshoots the limit by ≤ ~16.5 MB before it is stopped. (Each
// push of fflate's stream copies its 32 KB window and a fresh output buffer: pushes of 512
// bytes made the review of the real-size library 5 times slower: docs/skill-tools.md, "At scale".)
const ONE_SHOT_MAX_INPUT = 64 * 1024;
const CHUNK = 16 * 1024;

/** `PK\x03\x04` (an archive with entries) or `PK\x05\x06` (an empty archive). */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/** Finder, Python and editor debris that is never part of a skill. */
export function isJunkPath(path: string): boolean {
  const parts = path.split('/');
  const base = parts[parts.length - 1];
  return (
    parts.includes('__MACOSX') ||
    parts.includes('__pycache__') ||
    base === '.DS_Store' ||
    base.startsWith('._') ||
    base.endsWith('.pyc')
  );
}

/** Why a stored name cannot become a file path inside a skill, or null when it can. */
export function unsafePathReason(name: string): string | null {
  if (name.includes('\\')) return 'path uses backslashes';
  if (name.startsWith('/')) return 'absolute path';
  if (/^[a-zA-Z]:/.test(name)) return 'drive-letter path';
  if (name.split('/').some((part) => part === '..')) return "path climbs out with '..'";
  if (name.includes('\0')) return 'path contains a NUL character';
  return null;
}

// CRC-32 as zip uses it (reflected, polynomial 0xEDB88320), one table lookup per byte.
let crcTable: Uint32Array | null = null;

function getCrcTable(): Uint32Array {
  if (crcTable) return crcTable;
  crcTable = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crcTable[n] = c >>> 0;
  }
  return crcTable;
}

/** The CRC-32 of `bytes`, as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array): number {
  const table = getCrcTable();
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function hex32(value: number): string {
  return value.toString(16).padStart(8, '0');
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65,535 bytes.
  const stop = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let at = view.byteLength - 22; at >= stop; at--) {
    if (view.getUint32(at, true) === 0x06054b50) return at;
  }
  return -1;
}

/** The central directory's entries, or an error message. */
export function readCentralDirectory(bytes: Uint8Array): { entries: ZipEntryInfo[] } | { error: string } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!isZip(bytes)) return { error: 'This file is not a zip archive (it does not start with the zip signature).' };
  const end = findEndOfCentralDirectory(view);
  if (end < 0) return { error: 'The zip archive is damaged: its central directory was not found.' };
  const count = view.getUint16(end + 10, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || offset === 0xffffffff) return { error: 'ZIP64 archives are not supported for skill import.' };
  const entries: ZipEntryInfo[] = [];
  const utf8 = new TextDecoder('utf-8');
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || view.getUint32(at, true) !== 0x02014b50) {
      return { error: 'The zip archive is damaged: a central directory entry is broken.' };
    }
    const madeBy = view.getUint16(at + 4, true) >> 8;
    const method = view.getUint16(at + 10, true);
    const crc32 = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const declaredSize = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const localHeaderOffset = view.getUint32(at + 42, true);
    const name = utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    const unixMode = madeBy === 3 ? external >>> 16 : null;
    const isDirectory = name.endsWith('/') || (unixMode !== null && (unixMode & S_IFMT) === S_IFDIR) || (external & 0x10) !== 0;
    entries.push({ name, method, compressedSize, declaredSize, crc32, localHeaderOffset, unixMode, isDirectory });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return { entries };
}

/** Inflates (or copies) one entry, giving up once the output passes `limit` bytes. */
function extractEntry(bytes: Uint8Array, entry: ZipEntryInfo, limit: number): { bytes: Uint8Array; produced: number } | { error: string; produced: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) return { error: 'its local header is missing', produced: 0 };
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const data = bytes.subarray(start, start + entry.compressedSize);
  if (data.length < entry.compressedSize) return { error: 'its data is cut short', produced: 0 };
  if (entry.method === 0) {
    if (data.length > limit) return { error: 'it is larger than the limit', produced: 0 };
    return { bytes: data.slice(), produced: data.length };
  }
  if (entry.method !== 8) return { error: `it uses compression method ${entry.method}, which is not supported`, produced: 0 };
  if (data.length <= ONE_SHOT_MAX_INPUT) {
    let out: Uint8Array;
    try {
      out = inflateSync(data, { out: new Uint8Array(limit + 1) });
    } catch (error) {
      return { error: `it does not inflate (${error instanceof Error ? error.message : String(error)})`, produced: 0 };
    }
    if (out.length > limit) return { error: 'it inflates past its declared size or the size limit', produced: out.length };
    return { bytes: out.buffer.byteLength === out.length ? out : out.slice(), produced: out.length };
  }
  const chunks: Uint8Array[] = [];
  let produced = 0;
  let overflow = false;
  let done = false;
  const inflater = new Inflate((chunk, final) => {
    produced += chunk.length;
    if (produced > limit) overflow = true;
    else chunks.push(chunk);
    if (final) done = true;
  });
  try {
    for (let offset = 0; offset < data.length && !overflow && !done; offset += CHUNK) {
      const end = Math.min(offset + CHUNK, data.length);
      inflater.push(data.subarray(offset, end), end === data.length);
    }
  } catch (error) {
    return { error: `it does not inflate (${error instanceof Error ? error.message : String(error)})`, produced };
  }
  if (overflow) return { error: 'it inflates past its declared size or the size limit', produced };
  return { bytes: concatBytes(chunks), produced };
}

/**
 * Reads every entry worth keeping. Junk is listed in `ignored`; unsafe paths and links are
 * refused one by one with a reason; archive limits refuse the whole archive before any
 * inflation, and inflation stops at the first entry that grows past what it declared.
 */
export function readZip(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipReadResult {
  const result: ZipReadResult = { files: [], refused: [], ignored: [], error: null, inflatedBytes: 0 };
  const directory = readCentralDirectory(bytes);
  if ('error' in directory) return { ...result, error: directory.error };
  const { entries } = directory;
  if (entries.length > limits.maxEntries) {
    return { ...result, error: `The archive has ${entries.length} entries; the limit is ${limits.maxEntries}.` };
  }
  const kept: ZipEntryInfo[] = [];
  const seen = new Set<string>();
  let declaredTotal = 0;
  for (const entry of entries) {
    if (entry.isDirectory) continue;
    if (isJunkPath(entry.name)) {
      result.ignored.push(entry.name);
      continue;
    }
    const unsafe = unsafePathReason(entry.name);
    if (unsafe) {
      result.refused.push({ path: entry.name, reason: unsafe });
      continue;
    }
    if (entry.unixMode !== null && (entry.unixMode & S_IFMT) === S_IFLNK) {
      result.refused.push({ path: entry.name, reason: 'symbolic link (links are never imported)' });
      continue;
    }
    const path = entry.name.split('/').filter((part) => part !== '' && part !== '.').join('/');
    if (seen.has(path)) {
      // The archive may hold one path several times (appended to, or hand-made); the first copy is the file.
      result.refused.push({ path: entry.name, reason: 'an earlier entry of the archive has the same path; only the first copy is imported' });
      continue;
    }
    seen.add(path);
    if (entry.declaredSize > limits.maxFileBytes) {
      return { ...result, error: `'${entry.name}' declares ${entry.declaredSize} bytes; the per-file limit is ${limits.maxFileBytes}.` };
    }
    if (entry.declaredSize > limits.ratioFloorBytes && entry.declaredSize > limits.maxRatio * Math.max(1, entry.compressedSize)) {
      return { ...result, error: `'${entry.name}' expands more than ${limits.maxRatio}:1; the archive looks like a zip bomb.` };
    }
    declaredTotal += entry.declaredSize;
    if (declaredTotal > limits.maxTotalBytes) {
      return { ...result, error: `The archive declares more than ${limits.maxTotalBytes} bytes in total; that is over the limit.` };
    }
    kept.push({ ...entry, name: path });
  }
  for (const entry of kept) {
    // An entry may not produce more than it declared, so the declared total bounds the work.
    const extracted = extractEntry(bytes, entry, entry.declaredSize);
    result.inflatedBytes += extracted.produced;
    if ('error' in extracted) {
      return { ...result, files: [], error: `'${entry.name}' was refused: ${extracted.error}. The archive is damaged or a zip bomb.` };
    }
    if (extracted.bytes.length !== entry.declaredSize) {
      return { ...result, files: [], error: `'${entry.name}' is shorter than it declares; the archive is damaged.` };
    }
    const actualCrc = crc32(extracted.bytes);
    if (actualCrc !== entry.crc32) {
      // One damaged entry says nothing about the others, so refuse it alone, like an unsafe path.
      result.refused.push({
        path: entry.name,
        reason: `its contents do not match the archive's checksum (CRC-32 ${hex32(actualCrc)}, expected ${hex32(entry.crc32)}); the archive is damaged or was altered, so get a fresh copy`,
      });
      continue;
    }
    const file: ZipFile = { path: entry.name, bytes: extracted.bytes };
    if (entry.unixMode !== null && entry.unixMode !== 0) {
      file.executable = (entry.unixMode & 0o111) !== 0;
      file.mode = entry.unixMode & 0o7777;
    }
    result.files.push(file);
  }
  return result;
}
