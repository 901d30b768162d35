/**
 * Archives a well-known index or ClawHub serves (docs/install.md, "Archives"): zip (read by
 * zipArchive.ts, the zip import's reader) or .tar.gz (fflate's streaming gunzip, then nanotar's
 * parser), both under the zip import's limits: entry count, per-file and total size, and a
 * decompression that stops as soon as the output passes what the limits allow (a gzip bomb is cut
 * short, not inflated). Unsafe paths and links are refused entry by entry, junk is ignored.
 */
import { Gunzip } from 'fflate';
import { parseTar } from 'nanotar';
import { DEFAULT_ZIP_LIMITS, isJunkPath, isZip, readZip, unsafePathReason, type ZipFile, type ZipLimits, type ZipReadResult } from '../skills/zipArchive';
import { concatBytes } from '../storage/bytes';

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

// Deflate expands at most ~1032:1, so 512 input bytes per push overshoot a limit by ≤ ~0.5 MB (as zipArchive.ts).
const CHUNK = 512;

/** Gunzips at most `limit` bytes; null when the output would pass it (a bomb or simply too large). */
export function gunzipLimited(bytes: Uint8Array, limit: number): { bytes: Uint8Array } | { error: string; produced: number } {
  const chunks: Uint8Array[] = [];
  let produced = 0;
  let overflow = false;
  const gunzip = new Gunzip((chunk) => {
    produced += chunk.length;
    if (produced > limit) overflow = true;
    else chunks.push(chunk);
  });
  try {
    for (let offset = 0; offset < bytes.length && !overflow; offset += CHUNK) {
      const end = Math.min(offset + CHUNK, bytes.length);
      gunzip.push(bytes.subarray(offset, end), end === bytes.length);
    }
  } catch (error) {
    return { error: `it does not decompress (${error instanceof Error ? error.message : String(error)})`, produced };
  }
  if (overflow) return { error: `it decompresses past ${limit} bytes, over the limit; it looks like a bomb`, produced };
  return { bytes: concatBytes(chunks) };
}

const S_IFMT = 0o170000;

/** Header types that describe the next entry (PAX and GNU long names) rather than being one. */
const META_TYPES = new Set(['x', 'g', 'L', 'N', 'K']);
const latin1 = new TextDecoder('latin1');
const headerText = (tar: Uint8Array, at: number, length: number) => {
  const field = tar.subarray(at, at + length);
  const end = field.indexOf(0);
  return latin1.decode(end === -1 ? field : field.subarray(0, end));
};

/**
 * The POSIX ustar `prefix` of each entry, in the order nanotar lists them: a path longer than
 * 100 characters is split into prefix (155) and name (100), and nanotar reads only the name, so
 * `…/schemas/ISO-IEC29500-4_2016/shared-documentPropertiesVariantTypes.xsd` (Anthropic's pptx skill)
 * arrived at the archive's root. GNU headers have no prefix (their magic is `ustar  `).
 */
function ustarPrefixes(tar: Uint8Array): string[] {
  const prefixes: string[] = [];
  for (let at = 0; at + 512 <= tar.length && tar[at] !== 0; ) {
    const size = Number.parseInt(headerText(tar, at + 124, 12).trim() || '0', 8) || 0;
    const type = headerText(tar, at + 156, 1) || '0';
    if (!META_TYPES.has(type)) prefixes.push(headerText(tar, at + 257, 6) === 'ustar' && headerText(tar, at + 263, 2) === '00' ? headerText(tar, at + 345, 155) : '');
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return prefixes;
}

/** Reads a .tar.gz under the limits; the same result shape as readZip. */
export function readTarGz(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipReadResult {
  const result: ZipReadResult = { files: [], refused: [], ignored: [], error: null, inflatedBytes: 0 };
  // Each entry adds a 512-byte header and up to 511 bytes of padding to its data.
  const gunzipped = gunzipLimited(bytes, limits.maxTotalBytes + limits.maxEntries * 1024 + 1024);
  if ('error' in gunzipped) return { ...result, inflatedBytes: gunzipped.produced, error: `The archive was refused: ${gunzipped.error}.` };
  result.inflatedBytes = gunzipped.bytes.length;
  let entries: ReturnType<typeof parseTar>;
  try {
    // nanotar reads `data.buffer` from offset 0, so it gets a buffer of its own.
    entries = parseTar(gunzipped.bytes.slice());
  } catch (error) {
    return { ...result, error: `The archive is not a readable tar (${error instanceof Error ? error.message : String(error)}).` };
  }
  if (entries.length > limits.maxEntries) return { ...result, error: `The archive has ${entries.length} entries; the limit is ${limits.maxEntries}.` };
  const prefixes = ustarPrefixes(gunzipped.bytes);
  const seen = new Set<string>();
  let total = 0;
  for (const [i, entry] of entries.entries()) {
    const type = entry.type ?? 'file';
    if (type === 'directory' || type === 'gnuDirectory') continue;
    // A name from a PAX or GNU header is whole (nanotar spreads that header's fields into `attrs`;
    // its types leave `path` out); a ustar name may have a prefix nanotar left off.
    const longName = (entry.attrs as { path?: string } | undefined)?.path;
    const prefix = prefixes.length === entries.length && !longName ? prefixes[i]! : '';
    // nanotar already folds `..` and a leading `/` of a name into the archive's root; what is
    // still unsafe (a `..` in a prefix too) is refused here as the zip reader does.
    const path = `${prefix}/${entry.name}`.split('/').filter((part) => part !== '' && part !== '.').join('/');
    if (!path) continue;
    if (isJunkPath(path)) {
      result.ignored.push(path);
      continue;
    }
    if (type === 'symbolicLink' || type === 'hardLink') {
      result.refused.push({ path, reason: 'symbolic or hard link (links are never imported)' });
      continue;
    }
    if (type !== 'file' && type !== 'contiguousFile') {
      result.refused.push({ path, reason: `a ${type} entry, not a file` });
      continue;
    }
    const unsafe = unsafePathReason(path);
    if (unsafe) {
      result.refused.push({ path, reason: unsafe });
      continue;
    }
    if (seen.has(path)) {
      result.refused.push({ path, reason: 'an earlier entry of the archive has the same path; only the first copy is imported' });
      continue;
    }
    seen.add(path);
    if (entry.size > limits.maxFileBytes) return { ...result, files: [], error: `'${path}' is ${entry.size} bytes; the per-file limit is ${limits.maxFileBytes}.` };
    total += entry.size;
    if (total > limits.maxTotalBytes) return { ...result, files: [], error: `The archive holds more than ${limits.maxTotalBytes} bytes in total; that is over the limit.` };
    const file: ZipFile = { path, bytes: 'data' in entry && entry.data ? entry.data.slice() : new Uint8Array(0) };
    const mode = Number.parseInt(entry.attrs?.mode ?? '', 8);
    if (Number.isFinite(mode) && mode !== 0) {
      if ((mode & S_IFMT) !== 0 && (mode & S_IFMT) !== 0o100000) {
        result.refused.push({ path, reason: 'its mode says it is not a regular file' });
        continue;
      }
      file.mode = mode & 0o7777;
      file.executable = (mode & 0o111) !== 0;
    }
    result.files.push(file);
  }
  return result;
}

/** A zip or a .tar.gz, told apart by their first bytes. */
export function readArchive(bytes: Uint8Array, limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipReadResult {
  if (isZip(bytes)) return readZip(bytes, limits);
  if (isGzip(bytes)) return readTarGz(bytes, limits);
  return { files: [], refused: [], ignored: [], error: 'The archive is neither a zip nor a .tar.gz.', inflatedBytes: 0 };
}

/**
 * An archive of one skill often wraps it in one top folder (`name/SKILL.md`): the files come back
 * relative to the skill's folder either way.
 */
export function unwrapSingleFolder(files: ZipFile[]): ZipFile[] {
  if (files.some((file) => file.path === 'SKILL.md')) return files;
  const tops = new Set(files.map((file) => file.path.split('/')[0]));
  if (tops.size !== 1) return files;
  const top = [...tops][0]!;
  if (!files.some((file) => file.path === `${top}/SKILL.md`)) return files;
  return files.map((file) => ({ ...file, path: file.path.slice(top.length + 1) }));
}
