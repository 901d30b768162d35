/**
 * Writing the backup zip (docs/storage.md, "Backup and restore"). fflate builds the archive (its
 * streaming `Zip` container: headers, central directory); the entries are compressed by the
 * platform's `CompressionStream('deflate-raw')`, which runs natively and off the JavaScript
 * thread. fflate's own deflate costs about a millisecond per small file on this box and would
 * hold the main thread for seconds on a library of thousands of files; this way the page stays
 * responsive, progress is reported per file and the task can be cancelled between files.
 */
import { Zip, type ZipInputFile } from 'fflate';
import { crc32 } from '../skills/zipArchive';
import { throwIfCancelled, type LongTaskOptions } from '../storage/progress';

export interface ZipSource {
  name: string;
  bytes: Uint8Array;
  /** Unix mode bits of the file (0o100644, 0o100755); absent = no Unix attributes. */
  unixMode?: number;
  /** Keep the bytes as they are (already compressed or encrypted). */
  store?: boolean;
}

const UNIX = 3;
// A fixed time keeps two backups of the same profile comparable byte for byte, apart from the manifest.
const ENTRY_TIME = new Date('2026-01-01T00:00:00Z');
/** Entries compressed at once: enough to keep the native compressor busy, little memory. */
const IN_FLIGHT = 16;
/** Below this, deflate saves nothing worth the entry. */
const MIN_DEFLATE_BYTES = 64;
export const MAX_ENTRIES = 0xffff;

async function deflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** One entry for fflate's container whose data we compressed (or stored) ourselves. */
function entry(source: ZipSource, data: Uint8Array, deflated: boolean): ZipInputFile & { data: Uint8Array } {
  return {
    filename: source.name,
    size: source.bytes.length,
    crc: crc32(source.bytes),
    compression: deflated ? 8 : 0,
    mtime: ENTRY_TIME,
    ...(source.unixMode !== undefined ? { os: UNIX, attrs: (source.unixMode << 16) >>> 0 } : {}),
    data,
  };
}

async function prepare(source: ZipSource): Promise<ZipInputFile & { data: Uint8Array }> {
  if (source.store || source.bytes.length < MIN_DEFLATE_BYTES) return entry(source, source.bytes, false);
  const deflated = await deflateRaw(source.bytes);
  // Incompressible bytes (images, archives) are stored: smaller, and faster to read back.
  return deflated.length < source.bytes.length ? entry(source, deflated, true) : entry(source, source.bytes, false);
}

/** Builds one zip of `sources` in order; `onEntry` is called after each one is added. */
export async function writeZip(sources: readonly ZipSource[], options: LongTaskOptions & { onEntry?: (done: number) => void } = {}): Promise<Uint8Array> {
  // The container writes classic zip records (no ZIP64), whose entry count is 16 bits wide.
  if (sources.length > MAX_ENTRIES) {
    throw new Error(`The backup would hold ${sources.length} files; one backup file holds at most ${MAX_ENTRIES}. Archive or delete skills you no longer use, then back up again.`);
  }
  const chunks: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else chunks.push(chunk);
  });
  for (let start = 0; start < sources.length; start += IN_FLIGHT) {
    throwIfCancelled(options.signal, 'The backup');
    const batch = await Promise.all(sources.slice(start, start + IN_FLIGHT).map(prepare));
    for (const file of batch) {
      zip.add(file);
      // The container copies what it is given to its output; the data goes in one final push.
      file.ondata!(null, file.data as Uint8Array<ArrayBuffer>, true);
    }
    options.onEntry?.(Math.min(start + IN_FLIGHT, sources.length));
    if (failure) throw failure;
  }
  zip.end();
  if (failure) throw failure;
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
