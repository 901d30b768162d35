/**
 * Saved providers: the migration of the one-provider settings into a list (the key is never
 * lost), merging changes so the list and the default's flat mirror agree, key lookup per base
 * URL, and backups without any key.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { createSettingsService, LEGACY_SETTINGS_KEY, reviewProvider, gateProviderSettings } from '../../src/app/settings';
import { DEFAULT_SETTINGS, mergeSettings, normalizeSettings, reviewProviderSettings, settingsWithoutSecrets } from '../../src/app/appSettings';
import { keyForEndpoint, MIGRATED_PROVIDER_ID, newProviderId, savedProvidersFrom, suggestedLabel } from '../../src/app/savedProviders';
import { DEFAULT_GATE_SETTINGS, type GateSettings } from '../../src/gate/gateSettings';

const OLD_SHAPE = { provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-secret', model: 'gpt-x', theme: 'dark' };

const twoProviders = () =>
  normalizeSettings({
    providers: [
      { id: 'local', label: 'Ollama here', kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', apiKey: '', model: 'qwen3:4b', models: ['qwen3:4b', 'llama3.2'] },
      { id: 'hosted', label: 'Hosted', kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'big', models: [] },
    ],
    defaultProviderId: 'local',
  });

describe('saved providers: migration of the one-provider settings', () => {
  it('turns the flat fields into a one-entry list, key included, and mirrors it back', () => {
    const migrated = normalizeSettings(OLD_SHAPE);
    expect(migrated.providers).toEqual([
      { id: MIGRATED_PROVIDER_ID, label: 'OpenRouter', kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-secret', model: 'gpt-x', models: [] },
    ]);
    expect(migrated.defaultProviderId).toBe(MIGRATED_PROVIDER_ID);
    expect(migrated).toMatchObject({ provider: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', apiKey: 'sk-or-secret', model: 'gpt-x', theme: 'dark' });
    // Reading the migrated value again changes nothing (the stored record is stable).
    expect(normalizeSettings(migrated)).toEqual(migrated);
  });

  it('migrates a stored record through the settings service and keeps the key', async () => {
    const records = new MemoryRecordStore<unknown>();
    await records.put('app', OLD_SHAPE);
    const service = createSettingsService(records, null);
    await service.load();
    expect(service.get('app').providers[0]).toMatchObject({ apiKey: 'sk-or-secret', baseUrl: 'https://openrouter.ai/api/v1' });
    // Adding a second provider keeps the first one's key.
    const app = service.get('app');
    await service.update('app', { providers: [...app.providers, { id: 'b', label: 'B', kind: 'openai-compatible', baseUrl: 'http://b/v1', apiKey: 'sk-b', model: 'm', models: [] }] });
    const stored = normalizeSettings(await records.get('app'));
    expect(stored.providers.map((entry) => [entry.id, entry.apiKey])).toEqual([
      [MIGRATED_PROVIDER_ID, 'sk-or-secret'],
      ['b', 'sk-b'],
    ]);
  });

  it('migrates what localStorage held before IndexedDB, key included', async () => {
    const legacy = new Map([[LEGACY_SETTINGS_KEY, JSON.stringify(OLD_SHAPE)]]);
    const storage = { getItem: (key: string) => legacy.get(key) ?? null, removeItem: (key: string) => void legacy.delete(key) };
    const service = createSettingsService(new MemoryRecordStore<unknown>(), null, { legacy: storage });
    await service.load();
    expect(service.get('app').providers).toEqual([expect.objectContaining({ apiKey: 'sk-or-secret', model: 'gpt-x' })]);
    expect(legacy.has(LEGACY_SETTINGS_KEY)).toBe(false);
  });

  it('gives nothing stored the default Ollama entry', () => {
    expect(DEFAULT_SETTINGS.providers).toEqual([
      { id: MIGRATED_PROVIDER_ID, label: 'Ollama', kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', apiKey: '', model: '', models: [] },
    ]);
  });

  it('repairs a broken list: bad entries dropped, repeated ids dropped, a missing default replaced', () => {
    const result = savedProvidersFrom(
      {
        providers: [null, 'x', { id: 'a', kind: 'smoke', baseUrl: ' http://a/v1 ', models: ['m1', 'm1', 3, ' '] }, { id: 'a', baseUrl: 'http://dup/v1' }, { baseUrl: 'http://gpu-box:9000/v1' }],
        defaultProviderId: 'gone',
      },
      { provider: 'openai-compatible', baseUrl: '', apiKey: '', model: '' },
    );
    expect(result.providers.map((entry) => [entry.id, entry.kind, entry.baseUrl, entry.label, entry.models])).toEqual([
      ['a', 'openai-compatible', 'http://a/v1', 'a', ['m1']],
      ['provider-5', 'openai-compatible', 'http://gpu-box:9000/v1', 'gpu-box:9000', []],
    ]);
    expect(result.defaultProviderId).toBe('a');
  });

  it('labels providers nobody named after their preset, host or engine', () => {
    expect(suggestedLabel('openai-compatible', 'http://localhost:1234/v1')).toBe('LM Studio');
    expect(suggestedLabel('openai-compatible', 'not a url')).toBe('Custom server');
    expect(suggestedLabel('webgpu', '')).toBe('In this browser');
  });

  it('makes ids that are not used yet', () => {
    const ids = ['x', 'x', 'y'];
    expect(newProviderId([{ ...DEFAULT_SETTINGS.providers[0]!, id: 'provider-x' }], () => ids.shift()!)).toBe('provider-y');
  });
});

describe('saved providers: changes', () => {
  it('a change of the flat fields edits the default entry only', () => {
    const settings = twoProviders();
    const next = normalizeSettings(mergeSettings(settings, { baseUrl: 'http://localhost:8080/v1', model: 'scripted' }));
    expect(next.providers.find((entry) => entry.id === 'local')).toMatchObject({ baseUrl: 'http://localhost:8080/v1', model: 'scripted' });
    expect(next.providers.find((entry) => entry.id === 'hosted')).toMatchObject({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'big' });
  });

  it('a change of the default moves the flat mirror to the new default', () => {
    const next = normalizeSettings(mergeSettings(twoProviders(), { defaultProviderId: 'hosted' }));
    expect(next).toMatchObject({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'big' });
  });

  it('the settings service uses the same merge', async () => {
    const service = createSettingsService(new MemoryRecordStore<unknown>(), null);
    await service.load();
    await service.update('app', { providers: twoProviders().providers, defaultProviderId: 'hosted' });
    await service.update('app', { model: 'bigger' });
    expect(service.get('app').providers.map((entry) => entry.model)).toEqual(['qwen3:4b', 'bigger']);
    expect(reviewProvider(service)).toMatchObject({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'bigger' });
  });
});

describe('saved providers: keys stay with their own server', () => {
  it('looks a key up by exact base URL, never across servers', () => {
    const settings = twoProviders();
    expect(keyForEndpoint(settings, 'https://api.example.com/v1/')).toBe('sk-hosted');
    expect(keyForEndpoint(settings, 'https://api.example.com/v2')).toBe('');
    expect(keyForEndpoint(settings, 'http://localhost:11434/v1')).toBe('');
    expect(keyForEndpoint(settings, '')).toBe('');
  });

  it('a review or gate model on another saved server gets that server key, and only that one', () => {
    const settings = { ...twoProviders(), reviewProvider: { baseUrl: 'https://api.example.com/v1', model: 'cheap' } };
    expect(reviewProviderSettings(settings)).toMatchObject({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'cheap' });
    const gate: GateSettings = { ...structuredClone(DEFAULT_GATE_SETTINGS), provider: { baseUrl: 'http://elsewhere:9/v1', model: 'g' } } as GateSettings;
    expect(gateProviderSettings(settings, gate)).toMatchObject({ baseUrl: 'http://elsewhere:9/v1', apiKey: '' });
  });

  it('leaves every key out of settings that leave the app', () => {
    const exported = settingsWithoutSecrets(twoProviders());
    expect(JSON.stringify(exported)).not.toContain('sk-hosted');
    expect(exported.providers.map((entry) => entry.apiKey)).toEqual(['', '']);
  });
});
