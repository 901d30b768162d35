import { describe, expect, it } from 'vitest';
import { ModelWindows, effectiveWindow, normalizeWindowRecord, windowRecordKey, type WindowProvider } from '../../src/app/modelWindows';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { ModelKey, ModelWindow } from '../../src/providers/modelWindow';
import type { WindowTarget } from '../../src/providers/windowDiscovery';

const key: ModelKey = { providerId: 'llama', model: 'qwen3' };

function book(options: { reported?: ModelWindow; provider?: WindowProvider; webllm?: number; records?: MemoryRecordStore<unknown> } = {}) {
  const records = options.records ?? new MemoryRecordStore<unknown>();
  const asked: WindowTarget[] = [];
  const windows = new ModelWindows({
    records,
    provider: () => options.provider ?? { kind: 'openai-compatible', baseUrl: 'http://localhost:8080/v1', model: 'qwen3' },
    discover: async (target) => {
      asked.push(target);
      return options.reported ?? { tokens: 4096, source: 'default', detail: 'nothing answered' };
    },
    webllmWindow: async () => options.webllm,
    now: () => 1_000,
  });
  return { windows, records, asked };
}

describe('ModelWindows', () => {
  it('discovers on the first lookup only, and keeps what the server reported', async () => {
    const { windows, asked, records } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    expect((await windows.lookup(key)).window).toEqual({ tokens: 8192, source: 'reported', detail: 'llama.cpp' });
    expect((await windows.lookup(key)).window.tokens).toBe(8192);
    expect(asked).toHaveLength(1);
    expect(await records.get(windowRecordKey(key))).toMatchObject({ reported: { tokens: 8192, detail: 'llama.cpp' }, discoveredAt: 1_000 });
  });

  it('view (for Settings) asks nobody and writes nothing', async () => {
    const { windows, asked, records } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    expect((await windows.view(key)).window).toMatchObject({ tokens: 4096, source: 'default' });
    expect(asked).toEqual([]);
    expect(await records.keys()).toEqual([]);
  });

  it('concurrent first lookups ask the server once', async () => {
    const { windows, asked } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    await Promise.all([windows.lookup(key), windows.lookup(key), windows.lookup(key)]);
    expect(asked).toHaveLength(1);
  });

  it('nothing reported → the default for the host, remembered as asked (not asked again)', async () => {
    const { windows, asked } = book();
    expect((await windows.lookup(key)).window).toMatchObject({ tokens: 4096, source: 'default' });
    await windows.lookup(key);
    expect(asked).toHaveLength(1);
  });

  it('a refusal teaches a smaller window; a larger figure than reported does not replace it', async () => {
    const { windows } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    await windows.lookup(key);
    expect(await windows.learn(key, 4096, "the server's refusal")).toEqual({ tokens: 4096, source: 'learned', detail: "the server's refusal" });
    expect((await windows.lookup(key)).window.source).toBe('learned');
    expect(await windows.learn(key, 16384, 'a later refusal')).toMatchObject({ tokens: 8192, source: 'reported' });
  });

  it('a refusal that names no figure shrinks the known window', async () => {
    const { windows } = book({ reported: { tokens: 4000, source: 'reported', detail: 'llama.cpp' } });
    await windows.lookup(key);
    expect(await windows.learn(key, null, 'refused')).toMatchObject({ tokens: 3400, source: 'learned' });
    expect(await windows.learn(key, null, 'refused again')).toMatchObject({ tokens: 2890, source: 'learned' });
  });

  it("the user's figure wins over everything; clearing it goes back to automatic", async () => {
    const { windows } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    await windows.learn(key, 4096, 'refused');
    expect(await windows.set(key, 32768)).toEqual({ tokens: 32768, source: 'set', detail: 'set in Settings' });
    expect((await windows.lookup(key)).window.tokens).toBe(32768);
    expect(await windows.set(key, null)).toMatchObject({ tokens: 4096, source: 'learned' });
  });

  it('rediscovery after the provider is saved forgets what a refusal taught', async () => {
    const { windows, asked } = book({ reported: { tokens: 8192, source: 'reported', detail: 'llama.cpp' } });
    await windows.learn(key, 2048, 'refused');
    await windows.discover(key, { forgetLearned: true });
    expect((await windows.lookup(key)).window).toMatchObject({ tokens: 8192, source: 'reported' });
    expect(asked.length).toBeGreaterThanOrEqual(1);
  });

  it('observe calibrates the counter at once and persists the ratio for the next context', async () => {
    const records = new MemoryRecordStore<unknown>();
    const first = book({ records });
    const { counter } = await first.windows.lookup(key);
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
    const before = counter.countText(text);
    first.windows.observe(key, 1000, 1300);
    expect(counter.countText(text)).toBeGreaterThan(before * 1.25);
    await expect.poll(async () => normalizeWindowRecord(await records.get(windowRecordKey(key)), key).ratio).toBeCloseTo(1.3);
    const second = book({ records });
    expect((await second.windows.lookup(key)).counter.countText(text)).toBe(counter.countText(text));
  });

  it('observe ignores requests too small to teach', async () => {
    const { windows } = book();
    const { counter } = await windows.lookup(key);
    const before = counter.countText('hello world');
    windows.observe(key, 10, 40);
    expect(counter.countText('hello world')).toBe(before);
  });

  it("web-llm: the model record's window", async () => {
    const { windows } = book({ provider: { kind: 'webgpu', model: 'Qwen3-0.6B-q4f16_1-MLC' }, webllm: 2048 });
    expect((await windows.lookup({ providerId: 'browser', model: 'Qwen3-0.6B-q4f16_1-MLC' })).window).toEqual({ tokens: 2048, source: 'reported', detail: "web-llm's model record" });
  });

  it('a broken stored record is read as nothing known', () => {
    const record = normalizeWindowRecord({ reported: { tokens: -3 }, set: 'big', ratio: 'x' }, key);
    expect(record).toEqual({ providerId: 'llama', model: 'qwen3', ratio: 1, observations: 0, discoveredAt: 0 });
    expect(effectiveWindow(record, { tokens: 4096, source: 'default' })).toEqual({ tokens: 4096, source: 'default' });
  });
});
