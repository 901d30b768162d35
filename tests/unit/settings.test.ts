/**
 * The gate's part of the app settings (src/app/settings.ts): the `gate` record made whole, the
 * gate provider derived from the app settings (the API key only to the chat's own URL), and
 * what a finished run adds to the per-model noise and the automatic runs' daily usage.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, mergeSettings, type KnackSettings } from '../../src/app/appSettings';
import { createSettingsService, gateProviderSettings, localDay, normalizeGateSettings, recordGateRun } from '../../src/app/settings';
import { DEFAULT_GATE_SETTINGS } from '../../src/gate/gateSettings';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';

const app = (change: Partial<KnackSettings> = {}): KnackSettings => ({ ...DEFAULT_SETTINGS, baseUrl: 'https://api.example.com/v1', apiKey: 'sk-chat', model: 'chat-model', ...change });

describe('gate settings', () => {
  it('normalises a missing or broken record to the defaults, keeping what is valid', () => {
    expect(normalizeGateSettings(undefined)).toEqual(DEFAULT_GATE_SETTINGS);
    const stored = { policy: 'strict', dailyCap: -3, automatic: 'yes', allowedHosts: ['a.example', 4], noise: { m: { probes: 3, flips: 1 }, bad: 7 }, usage: { day: '2026-12-01', requests: 5 } };
    expect(normalizeGateSettings(stored)).toEqual({
      ...DEFAULT_GATE_SETTINGS,
      policy: 'strict',
      allowedHosts: ['a.example'],
      noise: { m: { probes: 3, flips: 1 } },
      usage: { day: '2026-12-01', requests: 5 },
    });
    expect(normalizeGateSettings({ policy: 'loose' }).policy).toBe('standard');
  });

  it('the gate provider: the chat model unless the gate names its own; the key only to the chat URL', () => {
    const gate = { ...DEFAULT_GATE_SETTINGS };
    // No saved provider has a model yet: the review provider.
    expect(gateProviderSettings(app({ reviewProvider: { baseUrl: '', model: 'review-model' } }), gate)).toMatchObject({ baseUrl: 'https://api.example.com/v1', model: 'review-model', apiKey: 'sk-chat' });
    // A skill written by a (hosted) review model is proven on the model the user chats with.
    const chatting = mergeSettings(DEFAULT_SETTINGS, { baseUrl: 'https://api.example.com/v1', apiKey: 'sk-chat', model: 'chat-model', reviewProvider: { baseUrl: '', model: 'review-model' } });
    expect(gateProviderSettings(chatting, gate)).toMatchObject({ baseUrl: 'https://api.example.com/v1', model: 'chat-model', apiKey: 'sk-chat' });
    const saved = chatting.providers[0]!;
    const twoModels = { ...chatting, providers: [{ ...saved, models: ['chat-model', 'small-model'] }] };
    expect(gateProviderSettings(twoModels, gate, { providerId: saved.id, model: 'small-model' })).toMatchObject({ model: 'small-model', apiKey: 'sk-chat' });
    expect(gateProviderSettings(twoModels, { ...gate, provider: { baseUrl: '', model: 'gate-model' } }, { providerId: saved.id, model: 'small-model' })).toMatchObject({ model: 'gate-model' });
    expect(gateProviderSettings(app(), { ...gate, provider: { baseUrl: '', model: 'gate-model' } })).toMatchObject({ baseUrl: 'https://api.example.com/v1', model: 'gate-model', apiKey: 'sk-chat' });
    expect(gateProviderSettings(app(), { ...gate, provider: { baseUrl: 'https://api.example.com/v1/', model: '' } })).toMatchObject({ model: 'chat-model', apiKey: 'sk-chat' });
    expect(gateProviderSettings(app(), { ...gate, provider: { baseUrl: 'http://localhost:8080/v1', model: 'local-model' } })).toMatchObject({
      kind: 'openai-compatible',
      baseUrl: 'http://localhost:8080/v1',
      model: 'local-model',
      apiKey: '',
    });
  });

  it('a run adds its probe to the model noise; an automatic run adds its requests to today, a new day starts from zero', async () => {
    const settings = createSettingsService(new MemoryRecordStore(), null);
    await settings.load();
    const now = new Date(2026, 11, 1, 10, 0, 0);
    await recordGateRun(settings, { noiseKey: 'k', probed: true, flipped: true, automatic: true, requests: 10, now });
    await recordGateRun(settings, { noiseKey: 'k', probed: true, flipped: false, automatic: false, requests: 99, now });
    await recordGateRun(settings, { noiseKey: 'k', probed: false, flipped: false, automatic: true, requests: 4, now });
    expect(settings.get('gate')).toMatchObject({ noise: { k: { probes: 2, flips: 1 } }, usage: { day: localDay(now), requests: 14 } });
    const tomorrow = new Date(2026, 11, 2, 0, 5, 0);
    await recordGateRun(settings, { noiseKey: 'k', probed: false, flipped: false, automatic: true, requests: 3, now: tomorrow });
    expect(settings.get('gate').usage).toEqual({ day: '2026-12-02', requests: 3 });
  });
});
