/**
 * Answers the gate has already paid for, by the hash of the exact request (cacheKey.ts;
 * docs/gate.md, "Caching"). Baselines are shared by every skill verified on the same case, and
 * re-verifying an unchanged skill costs nothing.
 *
 * Rules kept here, so no caller can get them wrong:
 * - only real answers are stored: `put` refuses errors, empty, truncated and too-long replays
 *   (a cached failure would turn a passing hiccup into a permanent one);
 * - at most `maxEntries` entries (5,000); the least recently used go first;
 * - for hosted providers, entries older than 30 days are ignored: the model behind a name
 *   changes. Local and in-browser models are kept until evicted.
 * `get` only reads (the noise probe reads without counting a use); `touch` records a use.
 */
import type { FinishReason, Usage } from '../providers/provider';
import { MemoryRecordStore } from '../storage/memoryRecordStore';
import type { RecordStore } from '../storage/recordStore';
import { providerLocality } from './cacheKey';
import type { ArmReplay } from './replayArm';

/** The IndexedDB store the app keeps these in (storage/db.ts). */
export const REPLAY_STORE_NAME = 'replays';
export const DEFAULT_MAX_ENTRIES = 5000;
export const HOSTED_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export interface ReplayCacheEntry {
  /** The replay cache key (kept in the value so one `getAll` gives the use order). */
  key: string;
  /** `replayProviderId(...)` of the provider that answered. */
  provider: string;
  /** The answer as scored when it was stored. */
  answerText: string;
  /** The text as the model streamed it, so a later cleaning rule can be applied again. */
  rawText: string;
  finishReason: FinishReason;
  usage: Usage;
  systemFingerprint?: string;
  /** Epoch milliseconds. */
  createdAt: number;
  lastUsedAt: number;
}

/** What `put` needs of a replay. */
export type CacheableReplay = Pick<ArmReplay, 'status' | 'answerText' | 'rawText' | 'finishReason' | 'usage'> & { systemFingerprint?: string };

export interface ReplayCacheStats {
  hits: number;
  misses: number;
  /** Misses because the entry was too old for a hosted provider. */
  expired: number;
  stored: number;
  /** `put` calls turned down because the replay was not an answer. */
  refused: number;
  evicted: number;
}

export interface ReplayCache {
  get(key: string): Promise<ReplayCacheEntry | undefined>;
  /** Stores an answer; false (and nothing stored) for anything that is not one. */
  put(key: string, provider: string, replay: CacheableReplay): Promise<boolean>;
  /** Marks the entry as used now (for the least-recently-used order). */
  touch(key: string): Promise<void>;
  clear(): Promise<void>;
  readonly stats: Readonly<ReplayCacheStats>;
}

export interface ReplayCacheOptions {
  maxEntries?: number;
  now?: () => number;
}

/** Whether a replay is an answer worth keeping. */
export function isCacheable(replay: CacheableReplay): boolean {
  return replay.status === 'ok' && replay.answerText.trim() !== '' && replay.finishReason !== undefined;
}

function isExpired(entry: ReplayCacheEntry, now: number): boolean {
  return providerLocality(entry.provider) === 'remote' && now - entry.createdAt > HOSTED_MAX_AGE_MS;
}

function newStats(): ReplayCacheStats {
  return { hits: 0, misses: 0, expired: 0, stored: 0, refused: 0, evicted: 0 };
}

function entryOf(key: string, provider: string, replay: CacheableReplay, now: number): ReplayCacheEntry {
  return {
    key,
    provider,
    answerText: replay.answerText,
    rawText: replay.rawText,
    finishReason: replay.finishReason!,
    usage: { ...replay.usage },
    ...(replay.systemFingerprint !== undefined ? { systemFingerprint: replay.systemFingerprint } : {}),
    createdAt: now,
    lastUsedAt: now,
  };
}

/**
 * Keys in use order, least recently used first: a Map's insertion order, where a use deletes
 * and re-inserts the key (exact even when uses share a millisecond).
 */
class UseOrder {
  readonly #keys = new Map<string, true>();

  use(key: string): void {
    this.#keys.delete(key);
    this.#keys.set(key, true);
  }

  drop(key: string): void {
    this.#keys.delete(key);
  }

  /** The keys to drop so that at most `max` remain, least recently used first. */
  excess(max: number): string[] {
    const count = this.#keys.size - max;
    return count > 0 ? [...this.#keys.keys()].slice(0, count) : [];
  }
}

/** Oldest use first; equal times in a fixed order so eviction is deterministic. */
function byLeastRecentUse(a: ReplayCacheEntry, b: ReplayCacheEntry): number {
  return a.lastUsedAt - b.lastUsedAt || (a.key < b.key ? -1 : 1);
}

/**
 * The cache over a RecordStore (IndexedDB `replays` in the app). The use order is read from
 * the store once (one `getAll`) and then kept in memory. Gate runs happen in the review
 * worker; should another context write at the same time, only the cap becomes approximate.
 */
export class RecordStoreReplayCache implements ReplayCache {
  readonly #store: RecordStore<ReplayCacheEntry>;
  readonly #max: number;
  readonly #now: () => number;
  #uses: Promise<UseOrder> | null = null;
  readonly stats = newStats();

  constructor(store: RecordStore<ReplayCacheEntry>, options: ReplayCacheOptions = {}) {
    this.#store = store;
    this.#max = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  #useOrder(): Promise<UseOrder> {
    this.#uses ??= (async () => {
      const order = new UseOrder();
      const entries = (await this.#store.getAll()).filter((entry) => typeof entry?.key === 'string');
      entries.sort(byLeastRecentUse);
      for (const entry of entries) order.use(entry.key);
      return order;
    })().catch((error: unknown) => {
      this.#uses = null;
      throw error;
    });
    return this.#uses;
  }

  async get(key: string): Promise<ReplayCacheEntry | undefined> {
    const entry = await this.#store.get(key);
    if (entry && !isExpired(entry, this.#now())) {
      this.stats.hits++;
      return entry;
    }
    if (entry) this.stats.expired++;
    this.stats.misses++;
    return undefined;
  }

  async put(key: string, provider: string, replay: CacheableReplay): Promise<boolean> {
    if (!isCacheable(replay)) {
      this.stats.refused++;
      return false;
    }
    const order = await this.#useOrder();
    await this.#store.put(key, entryOf(key, provider, replay, this.#now()));
    order.use(key);
    this.stats.stored++;
    for (const victim of order.excess(this.#max)) {
      await this.#store.delete(victim);
      order.drop(victim);
      this.stats.evicted++;
    }
    return true;
  }

  /** One transaction: an entry evicted meanwhile stays gone, a newer stamp stays newer. */
  async touch(key: string): Promise<void> {
    let found = false;
    const now = this.#now();
    await this.#store.updateMany([key], ([entry]) => {
      found = entry !== undefined;
      return { put: entry ? [[key, { ...entry, lastUsedAt: Math.max(now, entry.lastUsedAt) }]] : [] };
    });
    if (found) (await this.#useOrder()).use(key);
  }

  async clear(): Promise<void> {
    await this.#store.clear();
    this.#uses = Promise.resolve(new UseOrder());
  }
}

/** The same cache in memory (unit tests): the record-store cache over an in-memory store. */
export class MemoryReplayCache extends RecordStoreReplayCache {
  constructor(options: ReplayCacheOptions = {}) {
    super(new MemoryRecordStore<ReplayCacheEntry>(), options);
  }
}
