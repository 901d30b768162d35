/**
 * A saved provider's model list: `GET {base}/models` with that provider's own key (and no
 * other), cached in the saved provider so the chat header can list the models offline
 * (docs/providers.md). Plain TypeScript.
 */
import { OpenAICompatibleProvider } from '../providers/openaiCompatible';
import type { SavedProvider } from './savedProviders';

/** The model ids the provider's server lists now; throws the provider's error when it cannot be reached. */
export async function fetchModelList(provider: SavedProvider, options: { fetch?: typeof fetch; signal?: AbortSignal } = {}): Promise<string[]> {
  if (provider.kind !== 'openai-compatible') return provider.models;
  const client = new OpenAICompatibleProvider({
    baseUrl: provider.baseUrl,
    model: provider.model,
    apiKey: provider.apiKey || undefined,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const listed = await client.listModels(options.signal);
  return [...new Set(listed.map((model) => model.id.trim()).filter(Boolean))].sort((a, b) => a.localeCompare(b));
}

/** The list with one provider's cached models replaced; the same array when nothing changed. */
export function withModels(providers: readonly SavedProvider[], providerId: string, models: readonly string[]): SavedProvider[] {
  const target = providers.find((entry) => entry.id === providerId);
  if (!target || JSON.stringify(target.models) === JSON.stringify(models)) return providers as SavedProvider[];
  return providers.map((entry) => (entry.id === providerId ? { ...entry, models: [...models] } : entry));
}

/**
 * Whether saving `entry` asks its server for its models (docs/providers.md, "Model lists"): an
 * OpenAI-compatible provider that is new, or whose server changed, is asked once, as it is
 * asked for its window; the list it had says nothing about the new server. Other saves contact
 * no server for the list.
 */
export function listsModelsOnSave(previous: readonly SavedProvider[], entry: SavedProvider): boolean {
  if (entry.kind !== 'openai-compatible' || entry.baseUrl.trim() === '') return false;
  const old = previous.find((candidate) => candidate.id === entry.id);
  return !old || old.kind !== entry.kind || old.baseUrl.trim() !== entry.baseUrl.trim();
}
