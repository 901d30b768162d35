/**
 * Knack's one zip writer, for skill exports and backups (docs/skill-tools.md, "At scale";
 * docs/storage.md, "Backup and restore"). Our own headers (no ZIP64), each entry with its Unix
 * mode and the UTF-8 flag, a fixed time so the same files give the same archive. Entries are
 * compressed by the platform's `CompressionStream('deflate-raw')` when there is one: native
 * zlib, one entry per task, so a library of thousands of files never holds the page for long
 * and a few entries are always queued (measured in Chromium on ~3,000 skill files: about half
 * the time of fflate's deflate at level 6). Where it is missing (Node, Vitest) fflate's deflate
 * does the same work. Progress is reported per entry and a cancel stops entries not yet started.
 */
import { deflateSync } from 'fflate';
import { crc32 } from './zipArchive';
import { throwIfCancelled, type LongTaskOptions } from '../storage/progress';
import { concatBytes } from '../storage/bytes';

export interface ZipSource {
  /** Path inside the archive (forward slashes). */
  name: string;
  bytes: Uint8Array;
  /** Unix mode (permission bits, file type optional: 0o644, 0o100755); absent = 0o644. */
  unixMode?: number;
  /** Keep the bytes as they are (already compressed or encrypted). */
  store?: boolean;
}

export interface WriteZipOptions extends LongTaskOptions {
  /** Called as each entry is compressed (or stored), with how many are. */
  onEntry?: (done: number) => void;
  /** Names the task in a cancel ("The export was cancelled"). */
  task?: string;
  /** Test hook: compress with fflate even where the platform has a compressor. */
  forceFallback?: boolean;
}

/** The entry count of a classic end record is 16 bits, and 0xffff means "see ZIP64". */
export const MAX_ENTRIES = 0xfffe;
/** Entries compressed at once: enough to keep the native compressor busy, little memory. */
const IN_FLIGHT = 16;
/** Below this, deflate saves nothing worth the entry. */
const MIN_DEFLATE_BYTES = 64;
/** Already-compressed formats: deflate would only spend time on them. */
const COMPRESSED_NAME = /\.(png|jpe?g|gif|webp|avif|zip|gz|tgz|bz2|xz|zst|7z|pdf|woff2?|mp[34]|ogg|webm)$/i;
// 2026-01-01 00:00 as an MS-DOS date and time.
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
const UTF8_FLAG = 0x0800;
const S_IFREG = 0o100000;
const MODE_FILE = 0o644;

/** Whether deflating `source` can be worth it (not tiny, not an already-compressed format). */
export function worthDeflating(source: ZipSource): boolean {
  return !source.store && source.bytes.length >= MIN_DEFLATE_BYTES && !COMPRESSED_NAME.test(source.name);
}

/**
 * Writing the bytes straight into the compressor (not through a Blob's stream) costs about a
 * third of the time per entry in Chromium, which matters over thousands of small files.
 */
async function deflateNative(bytes: Uint8Array): Promise<Uint8Array> {
  const compressor = new CompressionStream('deflate-raw');
  const writer = compressor.writable.getWriter();
  // A failure shows on the readable side too, where it is awaited.
  writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => undefined);
  writer.close().catch(() => undefined);
  return new Uint8Array(await new Response(compressor.readable).arrayBuffer());
}

type Deflate = (bytes: Uint8Array) => Promise<Uint8Array>;

function pickDeflate(forceFallback: boolean): Deflate {
  if (!forceFallback && typeof CompressionStream === 'function') return deflateNative;
  // fflate's default level: on skill text as fast as its lower ones, and smaller.
  return async (bytes) => deflateSync(bytes, { level: 6 });
}

interface PreparedEntry {
  name: Uint8Array;
  data: Uint8Array;
  method: 0 | 8;
  crc: number;
  size: number;
  mode: number;
}

async function prepare(source: ZipSource, deflate: Deflate, encoder: TextEncoder): Promise<PreparedEntry> {
  const base = { name: encoder.encode(source.name), crc: crc32(source.bytes), size: source.bytes.length, mode: source.unixMode ?? MODE_FILE };
  if (worthDeflating(source)) {
    const deflated = await deflate(source.bytes);
    // Incompressible bytes (random data, unknown binaries) are stored: smaller, faster to read.
    if (deflated.length < source.bytes.length) return { ...base, data: deflated, method: 8 };
  }
  return { ...base, data: source.bytes, method: 0 };
}

function localHeader(entry: PreparedEntry): Uint8Array {
  const local = new Uint8Array(30 + entry.name.length);
  const view = new DataView(local.buffer);
  view.setUint32(0, 0x04034b50, true);
  view.setUint16(4, 20, true);
  view.setUint16(6, UTF8_FLAG, true);
  view.setUint16(8, entry.method, true);
  view.setUint16(10, DOS_TIME, true);
  view.setUint16(12, DOS_DATE, true);
  view.setUint32(14, entry.crc, true);
  view.setUint32(18, entry.data.length, true);
  view.setUint32(22, entry.size, true);
  view.setUint16(26, entry.name.length, true);
  local.set(entry.name, 30);
  return local;
}

function centralRecord(entry: PreparedEntry, offset: number): Uint8Array {
  const record = new Uint8Array(46 + entry.name.length);
  const view = new DataView(record.buffer);
  view.setUint32(0, 0x02014b50, true);
  view.setUint16(4, (3 << 8) | 20, true); // made by Unix, so readers take the mode
  view.setUint16(6, 20, true);
  view.setUint16(8, UTF8_FLAG, true);
  view.setUint16(10, entry.method, true);
  view.setUint16(12, DOS_TIME, true);
  view.setUint16(14, DOS_DATE, true);
  view.setUint32(16, entry.crc, true);
  view.setUint32(20, entry.data.length, true);
  view.setUint32(24, entry.size, true);
  view.setUint16(28, entry.name.length, true);
  view.setUint32(38, ((S_IFREG | (entry.mode & 0o7777)) << 16) >>> 0, true);
  view.setUint32(42, offset, true);
  record.set(entry.name, 46);
  return record;
}

function endRecord(count: number, centralSize: number, centralOffset: number): Uint8Array {
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, count, true);
  view.setUint16(10, count, true);
  view.setUint32(12, centralSize, true);
  view.setUint32(16, centralOffset, true);
  return end;
}

/**
 * Builds an archive as entries arrive: `add` starts compressing an entry at once (at most
 * IN_FLIGHT at a time, in the order added), so a caller that is still reading files keeps the
 * compressor busy meanwhile (the export); `finish` waits for the rest and lays the entries out
 * in the order they were added. A cancel stops entries not yet started.
 */
export class ZipBuilder {
  private readonly prepared: Promise<PreparedEntry>[] = [];
  private readonly deflate: Deflate;
  private readonly encoder = new TextEncoder();
  private readonly queue: Array<() => void> = [];
  private active = 0;
  /** Entries compressed (or stored) so far. */
  completed = 0;

  constructor(private readonly options: WriteZipOptions = {}) {
    this.deflate = pickDeflate(options.forceFallback ?? false);
  }

  get size(): number {
    return this.prepared.length;
  }

  add(source: ZipSource): void {
    if (this.prepared.length >= MAX_ENTRIES) throw new Error(`A zip without ZIP64 holds at most ${MAX_ENTRIES} files.`);
    const entry = this.slot().then(async () => {
      try {
        throwIfCancelled(this.options.signal, this.options.task ?? 'Writing the archive');
        return await prepare(source, this.deflate, this.encoder);
      } finally {
        this.release();
        this.completed++;
        this.options.onEntry?.(this.completed);
      }
    });
    entry.catch(() => undefined); // raised by finish()
    this.prepared.push(entry);
  }

  async finish(): Promise<Uint8Array> {
    const entries = await Promise.all(this.prepared);
    const parts: Uint8Array[] = [];
    const central: Uint8Array[] = [];
    let offset = 0;
    for (const entry of entries) {
      const local = localHeader(entry);
      if (offset + local.length + entry.data.length > 0xffffffff) throw new Error('The archive would pass 4 GB, which needs ZIP64.');
      central.push(centralRecord(entry, offset));
      parts.push(local, entry.data);
      offset += local.length + entry.data.length;
    }
    const centralSize = central.reduce((sum, record) => sum + record.length, 0);
    return concatBytes([...parts, ...central, endRecord(entries.length, centralSize, offset)]);
  }

  private slot(): Promise<void> {
    if (this.active < IN_FLIGHT) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}

/**
 * One zip of `sources`, in their order. Refuses more entries than a classic zip counts before
 * compressing anything, and an archive past 4 GB (no ZIP64).
 */
export async function writeZip(sources: readonly ZipSource[], options: WriteZipOptions = {}): Promise<Uint8Array> {
  if (sources.length > MAX_ENTRIES) throw new Error(`The archive would hold ${sources.length} files; a zip without ZIP64 holds at most ${MAX_ENTRIES}.`);
  throwIfCancelled(options.signal, options.task ?? 'Writing the archive');
  const builder = new ZipBuilder(options);
  for (const source of sources) builder.add(source);
  return builder.finish();
}
