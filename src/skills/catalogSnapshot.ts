import type { RecordStore } from '../storage/recordStore';
import { skillPlace, type CatalogEntry, type CatalogSnapshotStore, type RescanStart } from './skillCatalog';
import type { SkillConditions } from './skillDocument';

/**
 * The persisted catalogue (docs/skill-tools.md) in the IndexedDB `index` store: a manifest (version,
 * generation, entry count) and a fixed number of chunk records, each the JSON text of the
 * entries whose directory hashes to it. Loading 64 strings is far cheaper than structured
 * cloning 10,000 objects, and an incremental update still rewrites only one chunk (~1/64 of
 * the catalogue) plus the manifest, read and written in one transaction. Entries are stored
 * compactly (`StoredEntry`): less text to parse at every session start.
 */
export const SNAPSHOT_VERSION = 3;
export const SNAPSHOT_CHUNKS = 64;
const MANIFEST_KEY = 'manifest';
const CHUNK_PREFIX = 'chunk:';
/** A skill file change that has started and whose snapshot update has not landed yet. */
const CHANGING_PREFIX = 'changing:';
/** Category descriptions from `DESCRIPTION.md` (a record of its own kind, never a chunk). */
const CATEGORIES_KEY = 'categories';
/** The marker a rescan leaves when entries were written while it scanned: the next load rescans. */
const RESCAN_RACED_MARKER = `${CHANGING_PREFIX}#rescan`;
const CHUNK_KEYS = Array.from({ length: SNAPSHOT_CHUNKS }, (_, i) => CHUNK_PREFIX + String(i).padStart(2, '0'));

interface Manifest {
  kind: 'manifest';
  version: number;
  generation: number;
  /** Entries over all chunks: a disagreement means the snapshot is not to be trusted. */
  count: number;
  /** Entry writes so far (each putEntry, putEntries, deleteEntry): a rescan compares it. */
  writes?: number;
}

interface CategoriesRecord {
  kind: 'categories';
  pairs: [string, string][];
}

type SnapshotRecord = Manifest | string | { kind: 'changing'; since: number } | CategoriesRecord;

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

/**
 * One entry as stored: [dir, description, tags, frontmatterName, platforms, conditions,
 * parseError], with null for a default (no tags, the directory name, no platforms, no
 * conditions, no error) and trailing nulls left off. Name and category follow from dir.
 */
type StoredEntry = [string, string, ...(string[] | string | SkillConditions | null)[]];

function hasConditions(c: SkillConditions): boolean {
  return c.fallbackForToolsets.length + c.fallbackForTools.length + c.requiresToolsets.length + c.requiresTools.length > 0;
}

function encodeEntry(entry: CatalogEntry): StoredEntry {
  const stored: StoredEntry = [
    entry.dir,
    entry.description,
    entry.tags.length ? entry.tags : null,
    entry.frontmatterName === entry.name ? null : entry.frontmatterName,
    entry.platforms.length ? entry.platforms : null,
    hasConditions(entry.conditions) ? entry.conditions : null,
    entry.parseError ?? null,
  ];
  while (stored.length > 2 && stored[stored.length - 1] === null) stored.pop();
  return stored;
}

/**
 * The defaults every decoded entry without tags, platforms or conditions shares: one set, not
 * seven fresh arrays and an object per skill at every session start. Frozen, so an accidental
 * edit of one entry's defaults throws instead of changing every entry's.
 */
const NO_STRINGS = Object.freeze([]) as unknown as string[];
const NO_CONDITIONS: SkillConditions = Object.freeze({
  fallbackForToolsets: NO_STRINGS,
  fallbackForTools: NO_STRINGS,
  requiresToolsets: NO_STRINGS,
  requiresTools: NO_STRINGS,
});

function decodeEntry(stored: StoredEntry): CatalogEntry {
  const [dir, description, tags, frontmatterName, platforms, conditions, parseError] = stored;
  const { name, category } = skillPlace(dir);
  return {
    dir,
    name,
    category,
    frontmatterName: (frontmatterName as string | null | undefined) ?? name,
    description,
    tags: (tags as string[] | null | undefined) ?? NO_STRINGS,
    platforms: (platforms as string[] | null | undefined) ?? NO_STRINGS,
    conditions: (conditions as SkillConditions | null | undefined) ?? NO_CONDITIONS,
    ...(typeof parseError === 'string' ? { parseError } : {}),
  };
}

const parseChunk = (text: string): CatalogEntry[] => (JSON.parse(text) as StoredEntry[]).map(decodeEntry);
const chunkText = (entries: CatalogEntry[]): string => JSON.stringify(entries.map(encodeEntry));

const isManifest = (record: unknown): record is Manifest => (record as Manifest | undefined)?.kind === 'manifest';

function descriptionsFrom(record: unknown): Map<string, string> | null {
  const pairs = (record as CategoriesRecord | undefined)?.kind === 'categories' ? (record as CategoriesRecord).pairs : null;
  if (!Array.isArray(pairs)) return null;
  return new Map(pairs.filter((pair): pair is [string, string] => Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string'));
}

export class RecordCatalogSnapshot implements CatalogSnapshotStore {
  /** Read with the entries by `load`, so a session start costs no second read. */
  private loadedCategories: Map<string, string> | null = null;

  constructor(private readonly store: RecordStore<unknown>) {}

  async load(): Promise<{ generation: number; entries: CatalogEntry[] } | null> {
    const records = (await this.store.getAll()) as SnapshotRecord[];
    let manifest: Manifest | undefined;
    const entries: CatalogEntry[] = [];
    for (const record of records) {
      if (typeof record === 'string') {
        for (const entry of parseChunk(record)) entries.push(entry);
      } else if (isManifest(record)) manifest = record;
      // Files changed (or were about to) without the snapshot following: rescan.
      else if (record?.kind === 'changing') return null;
      else if (record?.kind === 'categories') this.loadedCategories = descriptionsFrom(record);
    }
    if (!manifest || manifest.version !== SNAPSHOT_VERSION) return null;
    if (entries.length !== manifest.count) return null;
    return { generation: manifest.generation, entries };
  }

  private manifestRecord(generation: number, count: number, previous: Manifest | null): [string, Manifest] {
    return [MANIFEST_KEY, { kind: 'manifest', version: SNAPSHOT_VERSION, generation, count, writes: (previous?.writes ?? 0) + 1 }];
  }

  async putEntry(entry: CatalogEntry, generation: number, clearChanging: string[] = []): Promise<void> {
    await this.updateChunk(entry.dir, generation, clearChanging, (chunk) => {
      const at = chunk.findIndex((e) => e.dir === entry.dir);
      if (at >= 0) chunk[at] = entry;
      else chunk.push(entry);
      return at >= 0 ? 0 : 1;
    });
  }

  /**
   * Several entries (a batched import) with their change markers cleared, in one transaction:
   * every chunk they fall in and the manifest.
   */
  async putEntries(entries: readonly CatalogEntry[], generation: number, clearChanging: string[] = []): Promise<void> {
    const keys = [...new Set(entries.map((entry) => snapshotChunkKey(entry.dir)))];
    const remove = clearChanging.map((marker) => CHANGING_PREFIX + marker);
    const apply = ([manifest, ...stored]: unknown[]): { put: [string, SnapshotRecord][]; remove: string[] } => {
      if (!isManifest(manifest) || manifest.version !== SNAPSHOT_VERSION) return { put: [], remove };
      let delta = 0;
      const put: [string, SnapshotRecord][] = keys.map((key, i) => {
        const chunk = typeof stored[i] === 'string' ? parseChunk(stored[i] as string) : [];
        for (const entry of entries) {
          if (snapshotChunkKey(entry.dir) !== key) continue;
          const at = chunk.findIndex((e) => e.dir === entry.dir);
          if (at >= 0) chunk[at] = entry;
          else {
            chunk.push(entry);
            delta += 1;
          }
        }
        return [key, chunkText(chunk)];
      });
      return { put: [...put, this.manifestRecord(generation, manifest.count + delta, manifest)], remove };
    };
    await this.store.updateMany([MANIFEST_KEY, ...keys], apply);
  }

  async deleteEntry(dir: string, generation: number, clearChanging: string[] = []): Promise<void> {
    await this.updateChunk(dir, generation, clearChanging, (chunk) => {
      const at = chunk.findIndex((e) => e.dir === dir);
      if (at < 0) return null;
      chunk.splice(at, 1);
      return -1;
    });
  }

  /**
   * Rewrites the chunk holding `dir` and the manifest together, and clears the change markers
   * `clearChanging` in the same transaction. `change` edits the chunk's entries in place and
   * returns the change in count, or null when there is nothing to write.
   */
  private async updateChunk(
    dir: string,
    generation: number,
    clearChanging: string[],
    change: (chunk: CatalogEntry[]) => number | null,
  ): Promise<void> {
    const key = snapshotChunkKey(dir);
    const remove = clearChanging.map((marker) => CHANGING_PREFIX + marker);
    const apply = ([manifest, stored]: unknown[]): { put: [string, SnapshotRecord][]; remove: string[] } => {
      // Without a current manifest there is no snapshot to keep current: the next load rescans.
      if (!isManifest(manifest) || manifest.version !== SNAPSHOT_VERSION) return { put: [], remove };
      const chunk = typeof stored === 'string' ? parseChunk(stored) : [];
      const delta = change(chunk);
      if (delta === null) return { put: [], remove };
      return { put: [[key, chunkText(chunk)], this.manifestRecord(generation, manifest.count + delta, manifest)], remove };
    };
    await this.store.updateMany([MANIFEST_KEY, key], apply);
  }

  async markChanging(keys: string[]): Promise<void> {
    const since = Date.now();
    await this.store.putMany(keys.map((key): [string, SnapshotRecord] => [CHANGING_PREFIX + key, { kind: 'changing', since }]));
  }

  async clearChanging(keys: string[]): Promise<void> {
    await this.store.updateMany([], () => ({ put: [], remove: keys.map((key) => CHANGING_PREFIX + key) }));
  }

  /** null when none were stored (an older snapshot): the catalogue then reads the files. */
  async loadCategoryDescriptions(): Promise<Map<string, string> | null> {
    if (this.loadedCategories) return this.loadedCategories;
    return descriptionsFrom(await this.store.get(CATEGORIES_KEY));
  }

  async putCategoryDescriptions(descriptions: Map<string, string>): Promise<void> {
    const record: CategoriesRecord = { kind: 'categories', pairs: [...descriptions] };
    this.loadedCategories = null;
    await this.store.putMany([[CATEGORIES_KEY, record]]);
  }

  async beginRescan(): Promise<RescanStart> {
    const manifest = await this.store.get(MANIFEST_KEY);
    return { writes: isManifest(manifest) ? (manifest.writes ?? 0) : null, at: Date.now() };
  }

  /**
   * One transaction over every record: the chunks and the manifest written, other records gone
   * except the category descriptions and the change markers set since the rescan started
   * (their writers may change files the scan has already read). An entry written while the
   * scan ran may be older in `entries` than in the store: then a marker stays, and the next
   * load rescans rather than trust this snapshot (docs/storage.md, "No lost update").
   */
  async replaceAll(entries: CatalogEntry[], generation: number, start: RescanStart | null = null): Promise<void> {
    const chunks = CHUNK_KEYS.map((): CatalogEntry[] => []);
    for (const entry of entries) chunks[chunkOf(entry.dir)]!.push(entry);
    const others = (await this.store.keys()).filter((key) => key !== MANIFEST_KEY && key !== CATEGORIES_KEY && !CHUNK_KEYS.includes(key));
    await this.store.updateMany([MANIFEST_KEY, ...others], ([manifest, ...records]) => {
      const previous = isManifest(manifest) ? manifest : null;
      const raced = start !== null && (previous?.writes ?? 0) !== (start.writes ?? 0);
      const kept = (record: unknown) => start !== null && (record as { kind?: string; since?: number } | undefined)?.kind === 'changing' && (record as { since: number }).since > start.at;
      const remove = others.filter((_, i) => !kept(records[i]));
      const put: [string, SnapshotRecord][] = [
        ...chunks.map((chunk, i): [string, SnapshotRecord] => [CHUNK_KEYS[i]!, chunkText(chunk)]),
        this.manifestRecord(generation, entries.length, previous),
      ];
      if (raced) put.push([RESCAN_RACED_MARKER, { kind: 'changing', since: Date.now() }]);
      return { put, remove: remove.filter((key) => !raced || key !== RESCAN_RACED_MARKER) };
    });
  }
}
