import type { RecordStore } from '../storage/recordStore';
import type { CatalogEntry, CatalogSnapshotStore } from './skillCatalog';

/**
 * The persisted catalogue (SPEC §7) in the IndexedDB `index` store: a manifest (version,
 * generation, entry count) and a fixed number of chunk records, each the JSON text of the
 * entries whose directory hashes to it. Loading 64 strings is far cheaper than structured
 * cloning 10,000 objects, and an incremental update still rewrites only one chunk (~1/64 of
 * the catalogue) plus the manifest, read and written in one transaction.
 */
export const SNAPSHOT_VERSION = 2;
export const SNAPSHOT_CHUNKS = 64;
const MANIFEST_KEY = 'manifest';
const CHUNK_PREFIX = 'chunk:';
/** A skill file change that has started and whose snapshot update has not landed yet. */
const CHANGING_PREFIX = 'changing:';

interface Manifest {
  kind: 'manifest';
  version: number;
  generation: number;
  /** Entries over all chunks: a disagreement means the snapshot is not to be trusted. */
  count: number;
}

type SnapshotRecord = Manifest | string | { kind: 'changing'; since: number };

/** FNV-1a of the directory: stable across contexts and releases (a change needs a version bump). */
function chunkOf(dir: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < dir.length; i++) {
    hash ^= dir.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SNAPSHOT_CHUNKS;
}

/** The record key of the chunk holding `dir`'s entry. */
export function snapshotChunkKey(dir: string): string {
  return CHUNK_PREFIX + String(chunkOf(dir)).padStart(2, '0');
}

const isManifest = (record: unknown): record is Manifest => (record as Manifest | undefined)?.kind === 'manifest';

export class RecordCatalogSnapshot implements CatalogSnapshotStore {
  constructor(private readonly store: RecordStore<unknown>) {}

  async load(): Promise<{ generation: number; entries: CatalogEntry[] } | null> {
    const records = (await this.store.getAll()) as SnapshotRecord[];
    let manifest: Manifest | undefined;
    const entries: CatalogEntry[] = [];
    for (const record of records) {
      if (typeof record === 'string') {
        for (const entry of JSON.parse(record) as CatalogEntry[]) entries.push(entry);
      } else if (isManifest(record)) manifest = record;
      // Files changed (or were about to) without the snapshot following: rescan.
      else if (record?.kind === 'changing') return null;
    }
    if (!manifest || manifest.version !== SNAPSHOT_VERSION) return null;
    if (entries.length !== manifest.count) return null;
    return { generation: manifest.generation, entries };
  }

  private manifestRecord(generation: number, count: number): [string, Manifest] {
    return [MANIFEST_KEY, { kind: 'manifest', version: SNAPSHOT_VERSION, generation, count }];
  }

  async putEntry(entry: CatalogEntry, generation: number): Promise<void> {
    await this.updateChunk(entry.dir, generation, (chunk) => {
      const at = chunk.findIndex((e) => e.dir === entry.dir);
      if (at >= 0) chunk[at] = entry;
      else chunk.push(entry);
      return at >= 0 ? 0 : 1;
    });
  }

  async deleteEntry(dir: string, generation: number): Promise<void> {
    await this.updateChunk(dir, generation, (chunk) => {
      const at = chunk.findIndex((e) => e.dir === dir);
      if (at < 0) return null;
      chunk.splice(at, 1);
      return -1;
    });
  }

  /**
   * Rewrites the chunk holding `dir` and the manifest together. `change` edits the chunk's
   * entries in place and returns the change in count, or null when there is nothing to write.
   */
  private async updateChunk(dir: string, generation: number, change: (chunk: CatalogEntry[]) => number | null): Promise<void> {
    const key = snapshotChunkKey(dir);
    const apply = ([manifest, chunkText]: unknown[]): { put: [string, SnapshotRecord][] } => {
      // Without a current manifest there is no snapshot to keep current: the next load rescans.
      if (!isManifest(manifest) || manifest.version !== SNAPSHOT_VERSION) return { put: [] };
      const chunk = typeof chunkText === 'string' ? (JSON.parse(chunkText) as CatalogEntry[]) : [];
      const delta = change(chunk);
      if (delta === null) return { put: [] };
      return { put: [[key, JSON.stringify(chunk)], this.manifestRecord(generation, manifest.count + delta)] };
    };
    if (this.store.updateMany) {
      await this.store.updateMany([MANIFEST_KEY, key], apply);
      return;
    }
    // A store without transactions: a concurrent writer can make the count disagree, and a
    // disagreeing count makes the next load rescan rather than trust the snapshot.
    const { put } = apply([await this.store.get(MANIFEST_KEY), await this.store.get(key)]);
    if (put.length) await this.store.putMany(put);
  }

  async markChanging(keys: string[]): Promise<void> {
    const since = Date.now();
    await this.store.putMany(keys.map((key): [string, SnapshotRecord] => [CHANGING_PREFIX + key, { kind: 'changing', since }]));
  }

  async clearChanging(keys: string[]): Promise<void> {
    if (this.store.updateMany) {
      await this.store.updateMany([], () => ({ put: [], remove: keys.map((key) => CHANGING_PREFIX + key) }));
      return;
    }
    for (const key of keys) await this.store.delete(CHANGING_PREFIX + key);
  }

  async replaceAll(entries: CatalogEntry[], generation: number): Promise<void> {
    const chunks = Array.from({ length: SNAPSHOT_CHUNKS }, (): CatalogEntry[] => []);
    for (const entry of entries) chunks[chunkOf(entry.dir)]!.push(entry);
    await this.store.clear();
    await this.store.putMany([
      ...chunks.map((chunk, i): [string, SnapshotRecord] => [CHUNK_PREFIX + String(i).padStart(2, '0'), JSON.stringify(chunk)]),
      this.manifestRecord(generation, entries.length),
    ]);
  }
}
