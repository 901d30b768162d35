import { describe, expect, it } from 'vitest';
import {
  baseUrlProblem,
  chatProviderSettings,
  reviewProviderSettings,
  settingsWithoutSecrets,
  toolProtocolFor,
  DEFAULT_SETTINGS,
  normalizeSettings,
  presetForUrl,
  PRESETS,
  PROVIDER_KINDS,
} from '../../../src/ui/state/settingsModel';

describe('settings model', () => {
  it('offers both providers and the presets the SPEC names', () => {
    expect(PROVIDER_KINDS.map((kind) => kind.label)).toEqual(['OpenAI-compatible', 'In-browser (WebGPU)']);
    const urls = Object.fromEntries(PRESETS.map((preset) => [preset.id, preset.baseUrl]));
    expect(urls).toMatchObject({
      ollama: 'http://localhost:11434/v1',
      'lm-studio': 'http://localhost:1234/v1',
      'llama-cpp': 'http://localhost:8080/v1',
      openai: 'https://api.openai.com/v1',
      openrouter: 'https://openrouter.ai/api/v1',
      custom: '',
    });
  });

  it('recognises a preset by URL, tolerating a trailing slash, else custom', () => {
    expect(presetForUrl('http://localhost:1234/v1/')).toBe('lm-studio');
    expect(presetForUrl(' https://openrouter.ai/api/v1 ')).toBe('openrouter');
    expect(presetForUrl('http://gpu-box:11434/v1')).toBe('custom');
    expect(presetForUrl('')).toBe('custom');
  });

  it('normalises nothing, garbage and partial data into valid settings', () => {
    expect(normalizeSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(normalizeSettings('oops')).toEqual(DEFAULT_SETTINGS);
    const kept = normalizeSettings({ provider: 'webgpu', model: 'Qwen3', theme: 'purple', apiKey: 42 });
    expect(kept).toMatchObject({ provider: 'webgpu', model: 'Qwen3', theme: 'system', apiKey: '' });
    expect(kept.providers).toEqual([expect.objectContaining({ id: 'default', kind: 'webgpu', model: 'Qwen3', apiKey: '' })]);
  });

  it('drops fields it does not know (nothing unexpected is persisted)', () => {
    const result = normalizeSettings({ ...DEFAULT_SETTINGS, extra: 'x' });
    expect(Object.keys(result).sort()).toEqual([
      'apiKey',
      'baseUrl',
      'compactAtPercent',
      'creationNudgeInterval',
      'defaultProviderId',
      'memoryNudgeInterval',
      'model',
      'provider',
      'providers',
      'theme',
      'toolProtocols',
    ]);
  });

  it('keeps the tool protocol per model, learning intervals (≤ 0 allowed) and a review model', () => {
    const result = normalizeSettings({
      model: 'qwen3:4b',
      toolProtocols: { 'qwen3:4b': 'text', 'llama3.2': 'native', other: 'auto', bad: 'smoke-signals' },
      creationNudgeInterval: 0,
      memoryNudgeInterval: '7',
      reviewProvider: { baseUrl: ' http://review.local/v1 ', model: 'small' },
    });
    expect(result.toolProtocols).toEqual({ 'qwen3:4b': 'text', 'llama3.2': 'native' });
    expect(toolProtocolFor(result, 'qwen3:4b')).toBe('text');
    expect(toolProtocolFor(result, 'unknown')).toBe('auto');
    expect(result.creationNudgeInterval).toBe(0);
    expect(result.memoryNudgeInterval).toBe(10);
    expect(result.reviewProvider).toEqual({ baseUrl: 'http://review.local/v1', model: 'small' });
    expect(normalizeSettings({ reviewProvider: { baseUrl: '', model: '' } }).reviewProvider).toBeUndefined();
  });

  it('sends the API key only to its own base URL, and never into an export', () => {
    const base = normalizeSettings({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-secret', model: 'big', toolProtocols: { small: 'text' } });
    expect(chatProviderSettings(base)).toEqual({ kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', apiKey: 'sk-secret', model: 'big', toolProtocol: 'auto' });
    // Same server, cheaper model: the key goes along.
    expect(reviewProviderSettings({ ...base, reviewProvider: { baseUrl: '', model: 'small' } })).toMatchObject({ apiKey: 'sk-secret', model: 'small', toolProtocol: 'text' });
    expect(reviewProviderSettings({ ...base, reviewProvider: { baseUrl: 'https://api.example.com/v1/', model: '' } }).apiKey).toBe('sk-secret');
    // Another server never sees it.
    expect(reviewProviderSettings({ ...base, reviewProvider: { baseUrl: 'http://localhost:11434/v1', model: 'qwen3' } })).toMatchObject({
      baseUrl: 'http://localhost:11434/v1',
      apiKey: '',
      model: 'qwen3',
    });
    expect(reviewProviderSettings(base)).toEqual(chatProviderSettings(base));
    const exported = settingsWithoutSecrets(base);
    expect(JSON.stringify(exported)).not.toContain('sk-secret');
    expect(exported).not.toHaveProperty('apiKey');
  });

  it('asks for a full http(s) Base URL only for the OpenAI-compatible provider', () => {
    expect(baseUrlProblem({ provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1' })).toBeNull();
    expect(baseUrlProblem({ provider: 'openai-compatible', baseUrl: '' })).toMatch(/Enter the server address/);
    expect(baseUrlProblem({ provider: 'openai-compatible', baseUrl: 'localhost:11434' })).toMatch(/starting with http:\/\/ or https:\/\//);
    expect(baseUrlProblem({ provider: 'openai-compatible', baseUrl: 'ftp://example.com' })).toMatch(/starting with http/);
    expect(baseUrlProblem({ provider: 'openai-compatible', baseUrl: 'not a url' })).toMatch(/starting with http/);
    expect(baseUrlProblem({ provider: 'webgpu', baseUrl: '' })).toBeNull();
  });
});
