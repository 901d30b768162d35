import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChangeFeed } from '../../src/storage/changes';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { SettingsService } from '../../src/storage/settingsService';
import { createSettingsService, LEGACY_SETTINGS_KEY, learningIntervals, reviewProvider } from '../../src/app/settings';
import { DEFAULT_SETTINGS } from '../../src/app/appSettings';

interface Schema {
  color: { hue: string; level: number };
}

const feeds: ChangeFeed[] = [];
function feed(name: string): ChangeFeed {
  const created = new ChangeFeed(name);
  feeds.push(created);
  return created;
}
afterEach(() => {
  for (const f of feeds.splice(0)) f.close();
});

function colorService(records = new MemoryRecordStore<unknown>(), changes: ChangeFeed | null = null) {
  return new SettingsService<Schema>(records, changes, {
    color: {
      record: 'colour',
      defaults: { hue: 'blue', level: 1 },
      normalize: (stored) => ({ hue: 'blue', level: 1, ...(stored && typeof stored === 'object' ? (stored as object) : {}) }),
    },
  });
}

describe('SettingsService', () => {
  it('gives the defaults before load and the stored value after', async () => {
    const records = new MemoryRecordStore<unknown>();
    await records.put('colour', { hue: 'red' });
    const service = colorService(records);
    expect(service.get('color')).toEqual({ hue: 'blue', level: 1 });
    await service.load();
    expect(service.get('color')).toEqual({ hue: 'red', level: 1 });
  });

  it('update merges, normalises, stores under the record key and publishes the key', async () => {
    const records = new MemoryRecordStore<unknown>();
    const changes = feed(`settings-${crypto.randomUUID()}`);
    const events: unknown[] = [];
    changes.subscribe((change) => events.push(change));
    const service = colorService(records, changes);
    await service.load();
    expect(await service.update('color', { level: 3 })).toEqual({ hue: 'blue', level: 3 });
    expect(await records.get('colour')).toEqual({ hue: 'blue', level: 3 });
    await vi.waitFor(() => expect(events).toEqual([{ type: 'settings-changed', keys: ['color'] }]), { timeout: 2000 });
  });

  it('subscribers hear local updates once and changes made by another context', async () => {
    const records = new MemoryRecordStore<unknown>();
    const channel = `settings-${crypto.randomUUID()}`;
    const here = colorService(records, feed(channel));
    const there = colorService(records, feed(channel));
    await Promise.all([here.load(), there.load()]);
    const heard: number[] = [];
    here.subscribe('color', (value) => heard.push(value.level));
    await here.update('color', { level: 2 });
    await there.update('color', { level: 5 });
    await vi.waitFor(() => expect(here.get('color').level).toBe(5), { timeout: 2000 });
    expect(heard).toEqual([2, 5]);
  });

  it('a settings-changed event for its key makes it re-read a record written behind its back', async () => {
    const records = new MemoryRecordStore<unknown>();
    const changes = feed(`settings-${crypto.randomUUID()}`);
    const service = colorService(records, changes);
    await service.load();
    await records.put('colour', { hue: 'green', level: 9 });
    changes.publish({ type: 'settings-changed', keys: ['other'] });
    changes.publish({ type: 'settings-changed', keys: ['color'] });
    await vi.waitFor(() => expect(service.get('color')).toEqual({ hue: 'green', level: 9 }), { timeout: 2000 });
  });

  it('unsubscribe stops the listener', async () => {
    const service = colorService();
    const heard: number[] = [];
    const stop = service.subscribe('color', (value) => heard.push(value.level));
    await service.update('color', { level: 4 });
    stop();
    await service.update('color', { level: 6 });
    expect(heard).toEqual([4]);
  });
});

describe('Knack settings', () => {
  it('has the app, skill, memory and curator keys with their defaults', async () => {
    const service = createSettingsService(new MemoryRecordStore<unknown>(), null);
    await service.load();
    expect(service.get('app')).toEqual(DEFAULT_SETTINGS);
    expect(service.get('skills').writeApproval).toBe('off');
    expect(service.get('memory')).toEqual({ memoryEnabled: true, userProfileEnabled: true, writeApproval: 'off', sessionSummaries: true, pinned: { memory: [], user: [] } });
    expect(service.get('curator')).toEqual({ lastRunAt: null, runCount: 0, lastSummary: '' });
  });

  it('keeps the curator schedule in its own record, apart from the user settings', async () => {
    const records = new MemoryRecordStore<unknown>();
    const service = createSettingsService(records, null);
    await service.update('curator', { lastRunAt: '2030-01-01T00:00:00.000Z', runCount: 1 });
    expect(await records.get('curatorState')).toEqual({ lastRunAt: '2030-01-01T00:00:00.000Z', runCount: 1, lastSummary: '' });
    expect(await records.get('curator')).toBeUndefined();
  });

  it('moves app settings from localStorage into the record once, then removes the old key', async () => {
    const records = new MemoryRecordStore<unknown>();
    const legacy = new Map<string, string>([[LEGACY_SETTINGS_KEY, JSON.stringify({ baseUrl: 'http://gpu-box.local:8080/v1', apiKey: 'sk-old', model: 'qwen3:4b' })]]);
    const storage = { getItem: (key: string) => legacy.get(key) ?? null, removeItem: (key: string) => void legacy.delete(key) };
    const service = createSettingsService(records, null, { legacy: storage });
    await service.load();
    expect(service.get('app')).toMatchObject({ baseUrl: 'http://gpu-box.local:8080/v1', apiKey: 'sk-old', model: 'qwen3:4b' });
    expect(await records.get('app')).toMatchObject({ apiKey: 'sk-old', theme: 'system' });
    expect(legacy.has(LEGACY_SETTINGS_KEY)).toBe(false);
  });

  it('keeps the old key when the record cannot be written', async () => {
    const records = new MemoryRecordStore<unknown>();
    records.updateMany = async () => {
      throw new Error('disk full');
    };
    const legacy = new Map<string, string>([[LEGACY_SETTINGS_KEY, '{"model":"m"}']]);
    const storage = { getItem: (key: string) => legacy.get(key) ?? null, removeItem: (key: string) => void legacy.delete(key) };
    await expect(createSettingsService(records, null, { legacy: storage }).load()).rejects.toThrow('disk full');
    expect(legacy.get(LEGACY_SETTINGS_KEY)).toBe('{"model":"m"}');
  });

  it('derives the review provider and the intervals from the app settings', async () => {
    const service = createSettingsService(new MemoryRecordStore<unknown>(), null);
    await service.update('app', { baseUrl: 'http://a/v1', apiKey: 'k', model: 'chat', reviewProvider: { baseUrl: '', model: 'small' }, creationNudgeInterval: 4 });
    expect(reviewProvider(service)).toMatchObject({ baseUrl: 'http://a/v1', apiKey: 'k', model: 'small' });
    expect(learningIntervals(service)).toEqual({ creationNudgeInterval: 4, memoryNudgeInterval: DEFAULT_SETTINGS.memoryNudgeInterval });
  });
});
