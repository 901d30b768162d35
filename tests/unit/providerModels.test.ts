/**
 * When saving a provider asks its server for its models (docs/providers.md, "Model lists"):
 * a new provider and a new server are asked once; other saves contact no server for the list.
 */
import { describe, expect, it } from 'vitest';
import { listsModelsOnSave } from '../../src/app/providerModels';
import type { SavedProvider } from '../../src/app/savedProviders';

const saved: SavedProvider = { id: 'default', label: 'Server A', kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:9001/v1', apiKey: '', model: 'alpha', models: ['alpha', 'gamma'] };

describe('listsModelsOnSave', () => {
  it('asks a provider just added', () => {
    expect(listsModelsOnSave([saved], { ...saved, id: 'provider-2', baseUrl: 'http://127.0.0.1:9002/v1' })).toBe(true);
  });

  it('asks the existing provider pointed at a new server', () => {
    expect(listsModelsOnSave([saved], { ...saved, baseUrl: 'http://127.0.0.1:9002/v1', models: [] })).toBe(true);
  });

  it('asks nobody when the server stayed the same (a new model, key or name, spaces around the URL)', () => {
    expect(listsModelsOnSave([saved], { ...saved, model: 'gamma', apiKey: 'sk-new', label: 'Renamed' })).toBe(false);
    expect(listsModelsOnSave([saved], { ...saved, baseUrl: ` ${saved.baseUrl} ` })).toBe(false);
  });

  it('never asks for the in-browser engine, or a provider without a Base URL', () => {
    expect(listsModelsOnSave([saved], { ...saved, kind: 'webgpu', baseUrl: '' })).toBe(false);
    expect(listsModelsOnSave([], { ...saved, baseUrl: ' ' })).toBe(false);
  });
});
