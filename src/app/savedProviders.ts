/**
 * Saved providers: the servers (and the in-browser engine) the user has set up, one of them
 * the default (docs/providers.md). Each keeps its own API key, which is only ever sent to that
 * provider's own base URL. Plain TypeScript, shared by the tab and the review worker.
 *
 * Settings stored before there was a list held one provider in flat fields
 * (`provider`, `baseUrl`, `apiKey`, `model`); `savedProvidersFrom` turns them into a one-entry
 * list on read, key included. The flat fields stay in the settings as a mirror of the default
 * provider, so every reader that wants "the" provider (review, gate) keeps working.
 */
import { presetForBaseUrl } from '../providers/presets';
import type { SessionModelChoice } from '../sessions/sessionStore';

export type SavedProviderKind = 'openai-compatible' | 'webgpu';

export interface SavedProvider {
  /** Stable id; sessions name their provider by it. */
  id: string;
  /** What the user calls it ("Ollama on this machine", "OpenRouter"). */
  label: string;
  kind: SavedProviderKind;
  baseUrl: string;
  /** Sent only to this provider's `baseUrl`; never exported unless the user asks. */
  apiKey: string;
  /** The model new chats use with this provider. */
  model: string;
  /** The server's model list as last fetched (`GET {base}/models`), or the downloaded web-llm models. */
  models: string[];
}

/** A chat's provider and model, stored with its session (src/app/chatModels.ts). */
export type ChatModelChoice = SessionModelChoice;

/** The id the migrated single provider gets, so reading old settings twice gives the same list. */
export const MIGRATED_PROVIDER_ID = 'default';

/** The fields older settings kept their one provider in. */
export interface FlatProviderFields {
  provider: SavedProviderKind;
  baseUrl: string;
  apiKey: string;
  model: string;
}

export const FLAT_PROVIDER_KEYS = ['provider', 'baseUrl', 'apiKey', 'model'] as const;

const KINDS: readonly SavedProviderKind[] = ['openai-compatible', 'webgpu'];

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);

/** A name for a provider the user did not name: the preset's, the host, or the engine's. */
export function suggestedLabel(kind: SavedProviderKind, baseUrl: string): string {
  if (kind === 'webgpu') return 'In this browser';
  const preset = presetForBaseUrl(baseUrl);
  if (preset.id !== 'custom') return preset.label;
  try {
    return new URL(baseUrl.trim()).host || 'Custom server';
  } catch {
    return 'Custom server';
  }
}

function modelList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  for (const item of value) if (typeof item === 'string' && item.trim()) seen.add(item.trim());
  return [...seen];
}

function savedProvider(value: unknown, fallbackId: string): SavedProvider | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const source = value as Record<string, unknown>;
  const kind = KINDS.includes(source.kind as SavedProviderKind) ? (source.kind as SavedProviderKind) : 'openai-compatible';
  const baseUrl = text(source.baseUrl).trim();
  const id = text(source.id).trim() || fallbackId;
  return {
    id,
    label: text(source.label).trim() || suggestedLabel(kind, baseUrl),
    kind,
    baseUrl,
    apiKey: text(source.apiKey),
    model: text(source.model).trim(),
    models: modelList(source.models),
  };
}

/** The one provider of settings stored before the list (or of nothing stored: the defaults). */
export function migratedProvider(source: Record<string, unknown>, defaults: FlatProviderFields): SavedProvider {
  const kind = KINDS.includes(source.provider as SavedProviderKind) ? (source.provider as SavedProviderKind) : defaults.provider;
  const baseUrl = text(source.baseUrl, defaults.baseUrl);
  return {
    id: MIGRATED_PROVIDER_ID,
    label: suggestedLabel(kind, baseUrl),
    kind,
    baseUrl,
    apiKey: text(source.apiKey, defaults.apiKey),
    model: text(source.model, defaults.model),
    models: [],
  };
}

/**
 * The saved providers and the default's id from whatever was stored. A stored list wins; with
 * none (older settings, nothing stored) the flat fields become the only entry. Ids are unique
 * (a repeated id is dropped: it could not be told apart), and the default is always in the list.
 */
export function savedProvidersFrom(source: Record<string, unknown>, defaults: FlatProviderFields): { providers: SavedProvider[]; defaultProviderId: string } {
  const providers: SavedProvider[] = [];
  if (Array.isArray(source.providers)) {
    source.providers.forEach((entry, index) => {
      const parsed = savedProvider(entry, `provider-${index + 1}`);
      if (parsed && !providers.some((known) => known.id === parsed.id)) providers.push(parsed);
    });
  }
  if (providers.length === 0) providers.push(migratedProvider(source, defaults));
  const wanted = text(source.defaultProviderId);
  const defaultProviderId = providers.some((entry) => entry.id === wanted) ? wanted : providers[0]!.id;
  return { providers, defaultProviderId };
}

export function providerById(providers: readonly SavedProvider[], id: string | undefined): SavedProvider | undefined {
  return providers.find((entry) => entry.id === id);
}

export function flatFieldsOf(provider: SavedProvider): FlatProviderFields {
  return { provider: provider.kind, baseUrl: provider.baseUrl, apiKey: provider.apiKey, model: provider.model };
}

interface ProviderListSettings extends FlatProviderFields {
  providers: SavedProvider[];
  defaultProviderId: string;
}

/**
 * A settings change merged into the current settings. The list is the truth; the flat fields
 * are the default provider's mirror. A change that names the list (or the default) sets it and
 * the mirror follows; a change that only names flat fields (the older way to set the
 * provider, still used by tests and the console) edits the default entry.
 */
export function mergeProviderChange<T extends ProviderListSettings>(current: T, change: Partial<T>): T {
  const next = { ...current, ...change };
  const flatChanged = FLAT_PROVIDER_KEYS.some((key) => key in change);
  if (!flatChanged) return next;
  const listChanged = 'providers' in change || 'defaultProviderId' in change;
  const providers = Array.isArray(next.providers) ? next.providers : current.providers;
  const target = listChanged ? next.defaultProviderId : current.defaultProviderId;
  return {
    ...next,
    providers: providers.map((entry) =>
      entry.id === target ? { ...entry, kind: next.provider, baseUrl: next.baseUrl, apiKey: next.apiKey, model: next.model } : entry,
    ),
  };
}

const cleanUrl = (url: string) => url.trim().replace(/\/+$/, '');

/**
 * The API key for requests to `baseUrl`: the key of the saved HTTP provider at exactly that
 * URL (the default first), else none. A key never travels to any other server.
 */
export function keyForEndpoint(settings: Pick<ProviderListSettings, 'providers' | 'defaultProviderId'>, baseUrl: string): string {
  const wanted = cleanUrl(baseUrl);
  if (!wanted) return '';
  const ordered = [...settings.providers].sort((a, b) => Number(b.id === settings.defaultProviderId) - Number(a.id === settings.defaultProviderId));
  return ordered.find((entry) => entry.kind === 'openai-compatible' && cleanUrl(entry.baseUrl) === wanted)?.apiKey ?? '';
}

/** An id not used yet in the list. */
export function newProviderId(providers: readonly SavedProvider[], random: () => string = () => crypto.randomUUID().slice(0, 8)): string {
  for (;;) {
    const id = `provider-${random()}`;
    if (!providers.some((entry) => entry.id === id)) return id;
  }
}

/**
 * The change that saves `entry` into the stored list: it replaces the entry with its id, or is
 * added. A function of the stored list (SettingsService.update), so a provider another tab
 * added or edited meanwhile stays (docs/storage.md, "No lost update").
 */
export function savedProviderChange(
  current: Pick<ProviderListSettings, 'providers' | 'defaultProviderId'>,
  entry: SavedProvider,
  options: { makeDefault: boolean },
): Pick<ProviderListSettings, 'providers' | 'defaultProviderId'> {
  const known = current.providers.some((candidate) => candidate.id === entry.id);
  const providers = known ? current.providers.map((candidate) => (candidate.id === entry.id ? entry : candidate)) : [...current.providers, entry];
  return { providers, defaultProviderId: options.makeDefault ? entry.id : current.defaultProviderId };
}

/**
 * The change that removes provider `id` from the stored list; the first one left becomes the
 * default when it was. Nothing when it is gone already or is the only one (the list is never empty).
 */
export function removedProviderChange(
  current: Pick<ProviderListSettings, 'providers' | 'defaultProviderId'>,
  id: string,
): Partial<Pick<ProviderListSettings, 'providers' | 'defaultProviderId'>> {
  const providers = current.providers.filter((candidate) => candidate.id !== id);
  if (providers.length === 0 || providers.length === current.providers.length) return {};
  return { providers, defaultProviderId: current.defaultProviderId === id ? providers[0]!.id : current.defaultProviderId };
}
