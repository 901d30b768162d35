import { describe, expect, it } from 'vitest';
import {
  baseUrlProblem,
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
    expect(kept).toEqual({ ...DEFAULT_SETTINGS, provider: 'webgpu', model: 'Qwen3' });
  });

  it('drops fields it does not know (nothing unexpected is persisted)', () => {
    const result = normalizeSettings({ ...DEFAULT_SETTINGS, extra: 'x' });
    expect(Object.keys(result).sort()).toEqual(['apiKey', 'baseUrl', 'model', 'provider', 'theme']);
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
