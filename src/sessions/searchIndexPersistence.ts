/**
 * Where the session-search index is kept between page loads: the `searchIndex` store
 * (out-of-line keys). The serialized index is split into chunks of at most CHUNK_CHARS so
 * no single record is huge; a `meta` record names the format version and chunk count.
 *
 * Between full saves, each changed session is marked `dirty:<sessionId>` (a tiny write per
 * change). A reader that loads the saved index re-indexes the dirty sessions from their
 * messages, so a crash or a tab closed before the next full save loses no search hits.
 */
import type { KnackDb } from '../storage/db';

export const CHUNK_CHARS = 1_000_000;

export interface SearchIndexMeta {
  version: number;
  chunkCount: number;
  documentCount: number;
  savedAt: number;
}

export interface LoadedSearchIndex {
  meta: SearchIndexMeta;
  /** The serialized index, chunks joined. */
  json: string;
}

export interface SearchIndexPersistence {
  /** The saved index, or null when none is saved (or it is incomplete). */
  load(): Promise<LoadedSearchIndex | null>;
  /** Session ids marked dirty since the save. */
  dirtySessions(): Promise<string[]>;
  markDirty(sessionId: string, at: number): Promise<void>;
  /** Replaces the saved index in one transaction and clears dirty marks older than `clearDirtyBefore`. */
  save(meta: Omit<SearchIndexMeta, 'chunkCount'>, json: string, clearDirtyBefore: number): Promise<void>;
}

export function splitChunks(json: string, size = CHUNK_CHARS): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < json.length; i += size) chunks.push(json.slice(i, i + size));
  return chunks.length > 0 ? chunks : [''];
}

const chunkKey = (i: number) => `chunk:${String(i).padStart(5, '0')}`;
const DIRTY_PREFIX = 'dirty:';

/** Unit tests: the same records in a Map. */
export class MemorySearchIndexPersistence implements SearchIndexPersistence {
  readonly records = new Map<string, unknown>();
  saves = 0;

  async load(): Promise<LoadedSearchIndex | null> {
    const meta = this.records.get('meta') as SearchIndexMeta | undefined;
    if (!meta) return null;
    const chunks: string[] = [];
    for (let i = 0; i < meta.chunkCount; i++) {
      const chunk = this.records.get(chunkKey(i));
      if (typeof chunk !== 'string') return null;
      chunks.push(chunk);
    }
    return { meta, json: chunks.join('') };
  }

  async dirtySessions(): Promise<string[]> {
    return [...this.records.keys()].filter((k) => k.startsWith(DIRTY_PREFIX)).map((k) => k.slice(DIRTY_PREFIX.length));
  }

  async markDirty(sessionId: string, at: number): Promise<void> {
    this.records.set(DIRTY_PREFIX + sessionId, at);
  }

  async save(meta: Omit<SearchIndexMeta, 'chunkCount'>, json: string, clearDirtyBefore: number): Promise<void> {
    const chunks = splitChunks(json);
    for (const key of [...this.records.keys()]) {
      if (key.startsWith('chunk:')) this.records.delete(key);
      if (key.startsWith(DIRTY_PREFIX) && (this.records.get(key) as number) < clearDirtyBefore) this.records.delete(key);
    }
    chunks.forEach((chunk, i) => this.records.set(chunkKey(i), chunk));
    this.records.set('meta', { ...meta, chunkCount: chunks.length });
    this.saves++;
  }
}

export class IdbSearchIndexPersistence implements SearchIndexPersistence {
  constructor(private readonly db: KnackDb) {}

  async load(): Promise<LoadedSearchIndex | null> {
    const tx = this.db.transaction('searchIndex', 'readonly');
    const meta = (await tx.store.get('meta')) as SearchIndexMeta | undefined;
    if (!meta) return null;
    const chunks = (await tx.store.getAll(IDBKeyRange.bound('chunk:', 'chunk:\uffff'))) as unknown[];
    await tx.done;
    if (chunks.length !== meta.chunkCount || chunks.some((c) => typeof c !== 'string')) return null;
    return { meta, json: (chunks as string[]).join('') };
  }

  async dirtySessions(): Promise<string[]> {
    const keys = await this.db.getAllKeys('searchIndex', IDBKeyRange.bound(DIRTY_PREFIX, `${DIRTY_PREFIX}\uffff`));
    return keys.map((k) => String(k).slice(DIRTY_PREFIX.length));
  }

  async markDirty(sessionId: string, at: number): Promise<void> {
    await this.db.put('searchIndex', at, DIRTY_PREFIX + sessionId);
  }

  async save(meta: Omit<SearchIndexMeta, 'chunkCount'>, json: string, clearDirtyBefore: number): Promise<void> {
    const chunks = splitChunks(json);
    const tx = this.db.transaction('searchIndex', 'readwrite');
    const store = tx.store;
    const work: Promise<unknown>[] = [store.delete(IDBKeyRange.bound('chunk:', 'chunk:\uffff'))];
    chunks.forEach((chunk, i) => work.push(store.put(chunk, chunkKey(i))));
    work.push(store.put({ ...meta, chunkCount: chunks.length }, 'meta'));
    // Dirty marks newer than the snapshot stay: their sessions changed after it was taken.
    let cursor = await store.openCursor(IDBKeyRange.bound(DIRTY_PREFIX, `${DIRTY_PREFIX}\uffff`));
    while (cursor) {
      if (typeof cursor.value === 'number' && cursor.value < clearDirtyBefore) work.push(cursor.delete());
      cursor = await cursor.continue();
    }
    await Promise.all([...work, tx.done]);
  }
}
