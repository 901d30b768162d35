/**
 * Builds the window book of one context (app/modelWindows.ts) on the context's settings store
 * and saved providers (docs/context-window.md). Saving a provider with a new base URL or chat
 * model in Settings asks that server again and forgets what refusals taught about the old one
 * (`providerSaved`); settings that change any other way (a restore, another tab) do not.
 */
import type { KnackServices } from './storageServices';
import type { KnackSettingsService } from './settings';
import type { ModelKey } from '../providers/modelWindow';
import { keyForEndpoint, providerById, type SavedProvider } from './savedProviders';
import { ModelWindows, type WindowProvider } from './modelWindows';

/**
 * The provider behind a key: a saved provider by id, or (for a review or gate endpoint that is
 * not a saved provider) a base URL given as the id, with the key of the saved provider at that URL.
 */
export function windowProviderFor(settings: KnackSettingsService, key: ModelKey): WindowProvider | undefined {
  const app = settings.get('app');
  const saved = providerById(app.providers, key.providerId);
  if (saved?.kind === 'webgpu') return { kind: 'webgpu', model: key.model };
  if (saved) return { kind: 'openai-compatible', baseUrl: saved.baseUrl, apiKey: saved.apiKey, model: key.model };
  if (/^https?:\/\//i.test(key.providerId)) return { kind: 'openai-compatible', baseUrl: key.providerId, apiKey: keyForEndpoint(app, key.providerId), model: key.model };
  return undefined;
}

/** The in-browser engine's window for a model: its prebuilt record's `context_window_size`. */
async function webllmWindow(modelId: string): Promise<number | undefined> {
  const { loadModelCatalog } = await import('../providers/webllm/models');
  return (await loadModelCatalog()).models.find((model) => model.id === modelId)?.contextWindow;
}

/**
 * The options the in-browser engine loads a model with: the user's window for it, set on any
 * saved in-browser provider (web-llm takes it as `context_window_size`).
 */
export async function webllmChatOptions(windows: ModelWindows, settings: KnackSettingsService, modelId: string): Promise<{ context_window_size: number } | undefined> {
  for (const provider of settings.get('app').providers.filter((entry) => entry.kind === 'webgpu')) {
    const set = (await windows.record({ providerId: provider.id, model: modelId })).set;
    if (set) return { context_window_size: set };
  }
  return undefined;
}

/** The providers whose server or chat model changed between two lists (new ones included). */
export function changedProviders(before: readonly SavedProvider[], after: readonly SavedProvider[]): SavedProvider[] {
  return after.filter((entry) => {
    const old = before.find((known) => known.id === entry.id);
    return entry.model.trim() !== '' && (!old || old.baseUrl !== entry.baseUrl || old.model !== entry.model || old.kind !== entry.kind);
  });
}

/**
 * After the user saved providers in Settings: each one whose server, kind or chat model changed
 * (or that is new) is asked for its window now. Resolves when every answer is stored.
 */
export async function providerSaved(windows: ModelWindows, before: readonly SavedProvider[], after: readonly SavedProvider[]): Promise<void> {
  const changed = changedProviders(before, after).filter((entry) => entry.kind === 'openai-compatible' || entry.kind === 'webgpu');
  await Promise.all(changed.map((entry) => windows.discover({ providerId: entry.id, model: entry.model }, { forgetLearned: true })));
}

export function createModelWindows(storage: KnackServices, settings: KnackSettingsService, context: 'tab' | 'worker'): ModelWindows {
  const windows = new ModelWindows({
    records: storage.stores.settings,
    changes: storage.changes,
    provider: (key) => windowProviderFor(settings, key),
    webllmWindow,
  });
  if (context === 'tab') {
    // Only once an in-browser provider exists: the engine host's chunk is not loaded before.
    let engineHooked = false;
    const hookEngine = (providers: readonly SavedProvider[]) => {
      if (engineHooked || !providers.some((entry) => entry.kind === 'webgpu')) return;
      engineHooked = true;
      void import('../providers/webllm/engineHost').then(({ engineHost }) => engineHost().useChatOptions((modelId) => webllmChatOptions(windows, settings, modelId)));
    };
    hookEngine(settings.get('app').providers);
    settings.subscribe('app', (app) => hookEngine(app.providers));
  }
  return windows;
}
