import { describe, expect, it } from 'vitest';
import {
  HOSTED_MAX_AGE_MS,
  MemoryReplayCache,
  RecordStoreReplayCache,
  type CacheableReplay,
  type ReplayCache,
  type ReplayCacheEntry,
  type ReplayCacheOptions,
} from '../../../src/gate/replayCache';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';

const LOCAL = 'http://localhost:11434/v1';
const HOSTED = 'https://api.openai.com/v1';
const DAY = 24 * 60 * 60 * 1000;

const answer = (text = 'Use Pretendard.'): CacheableReplay => ({
  status: 'ok',
  answerText: text,
  rawText: `<think>hm</think>${text}`,
  finishReason: 'stop',
  usage: { promptTokens: 12, completionTokens: 4 },
});

function clock(start = Date.parse('2026-06-01T00:00:00Z')) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

type Make = (options: ReplayCacheOptions, store: MemoryRecordStore<ReplayCacheEntry>) => ReplayCache;

describe.each<[string, Make]>([
  ['over a RecordStore', (options, store) => new RecordStoreReplayCache(store, options)],
  ['in memory', (options) => new MemoryReplayCache(options)],
])('ReplayCache %s', (_label, make) => {
  const setup = (options: ReplayCacheOptions = {}) => {
    const time = clock();
    const store = new MemoryRecordStore<ReplayCacheEntry>();
    return { time, store, cache: make({ now: time.now, ...options }, store) };
  };

  it('stores an answer and gives it back with its times, counting hits and misses', async () => {
    const { cache, time } = setup();
    expect(await cache.get('k1')).toBeUndefined();
    expect(await cache.put('k1', LOCAL, answer())).toBe(true);
    expect(await cache.get('k1')).toEqual({
      key: 'k1',
      provider: LOCAL,
      answerText: 'Use Pretendard.',
      rawText: '<think>hm</think>Use Pretendard.',
      finishReason: 'stop',
      usage: { promptTokens: 12, completionTokens: 4 },
      createdAt: time.now(),
      lastUsedAt: time.now(),
    });
    expect(cache.stats).toMatchObject({ hits: 1, misses: 1, stored: 1, refused: 0 });
  });

  it.each<[string, CacheableReplay]>([
    ['an error', { ...answer(''), status: 'error', finishReason: undefined }],
    ['an empty answer', { ...answer(''), status: 'empty' }],
    ['a truncated answer', { ...answer(''), status: 'truncated', finishReason: 'length' }],
    ['a too-long request', { ...answer(''), status: 'too-long', finishReason: undefined }],
    ['an ok with blank text', { ...answer('  '), status: 'ok' }],
    ['a text with a non-ok status', { ...answer('some text'), status: 'error' }],
  ])('never stores %s', async (_what, replay) => {
    const { cache } = setup();
    expect(await cache.put('k', LOCAL, replay)).toBe(false);
    expect(await cache.get('k')).toBeUndefined();
    expect(cache.stats.refused).toBe(1);
  });

  it('ignores entries older than 30 days for hosted providers only', async () => {
    const { cache, time } = setup();
    await cache.put('hosted', HOSTED, answer());
    await cache.put('local', LOCAL, answer());
    await cache.put('webgpu', 'webgpu:Qwen3-0.6B-q4f32_1-MLC', answer());
    time.advance(HOSTED_MAX_AGE_MS);
    expect(await cache.get('hosted')).toBeDefined();
    time.advance(DAY);
    expect(await cache.get('hosted')).toBeUndefined();
    expect(await cache.get('local')).toBeDefined();
    expect(await cache.get('webgpu')).toBeDefined();
    expect(cache.stats.expired).toBe(1);
    // Using an entry does not make it younger: age counts from when it was answered.
    await cache.touch('hosted');
    expect(await cache.get('hosted')).toBeUndefined();
  });

  it('evicts the least recently used beyond the cap, a touch counting as a use', async () => {
    const { cache } = setup({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await cache.put(key, LOCAL, answer(key));
    await cache.touch('a');
    await cache.put('d', LOCAL, answer('d'));
    expect(await cache.get('b')).toBeUndefined();
    for (const key of ['a', 'c', 'd']) expect((await cache.get(key))?.answerText).toBe(key);
    await cache.put('e', LOCAL, answer('e'));
    expect(await cache.get('c')).toBeUndefined();
    expect(cache.stats.evicted).toBe(2);
  });

  it('touch updates lastUsedAt; get alone does not', async () => {
    const { cache, time } = setup();
    await cache.put('k', LOCAL, answer());
    const created = time.now();
    time.advance(1000);
    expect((await cache.get('k'))?.lastUsedAt).toBe(created);
    await cache.touch('k');
    expect((await cache.get('k'))?.lastUsedAt).toBe(created + 1000);
    await cache.touch('missing');
    expect(await cache.get('missing')).toBeUndefined();
  });

  it('clear empties it', async () => {
    const { cache } = setup();
    await cache.put('k', LOCAL, answer());
    await cache.clear();
    expect(await cache.get('k')).toBeUndefined();
  });
});

describe('RecordStoreReplayCache', () => {
  it('keeps its entries in the store, and a new cache over the same store sees them and their use order', async () => {
    const time = clock();
    const store = new MemoryRecordStore<ReplayCacheEntry>();
    const first = new RecordStoreReplayCache(store, { now: time.now, maxEntries: 2 });
    await first.put('old', LOCAL, answer('old'));
    time.advance(10);
    await first.put('new', LOCAL, answer('new'));
    time.advance(10);
    await first.touch('old');
    expect(await store.keys()).toEqual(['new', 'old']);
    // A later session: the use order comes from the stored lastUsedAt.
    const second = new RecordStoreReplayCache(store, { now: time.now, maxEntries: 2 });
    time.advance(10);
    await second.put('newest', LOCAL, answer('newest'));
    expect(await store.keys()).toEqual(['newest', 'old']);
  });

  it('does not write to the store for a refused put', async () => {
    const store = new MemoryRecordStore<ReplayCacheEntry>();
    const cache = new RecordStoreReplayCache(store);
    await cache.put('k', LOCAL, { ...answer(''), status: 'empty' });
    expect(await store.keys()).toEqual([]);
  });
});
