/**
 * Which provider and model a chat talks to (docs/providers.md, "Per-chat model"). Each session
 * stores its choice `{providerId, model}`; a session stored before chats had one uses the
 * default provider's model. A choice whose provider was deleted, or whose model the provider
 * no longer lists, is reported as unavailable and never swapped for another silently.
 */
import type { ProviderSettings } from '../providers/createProvider';
import { providerById, type ChatModelChoice, type SavedProvider } from './savedProviders';
import { toolProtocolFor, type KnackSettings } from './appSettings';

export type { ChatModelChoice };

export interface ChatModelGroup {
  providerId: string;
  label: string;
  models: string[];
}

export type ChatModelResolution =
  | { ok: true; choice: ChatModelChoice; provider: ProviderSettings; label: string }
  | { ok: false; choice: ChatModelChoice | null; reason: 'no-model' | 'provider-gone' | 'model-gone'; message: string };

type ProviderSettingsPart = Pick<KnackSettings, 'providers' | 'defaultProviderId' | 'toolProtocols' | 'lastChatModel'>;

export function sameChoice(a: ChatModelChoice | null | undefined, b: ChatModelChoice | null | undefined): boolean {
  return !!a && !!b && a.providerId === b.providerId && a.model === b.model;
}

/** A stored value as a choice, or null when it is not one (older sessions, hand edits). */
export function asChatModelChoice(value: unknown): ChatModelChoice | null {
  if (value === null || typeof value !== 'object') return null;
  const { providerId, model } = value as Record<string, unknown>;
  return typeof providerId === 'string' && typeof model === 'string' && providerId && model.trim() ? { providerId, model: model.trim() } : null;
}

/** Every model a provider offers: its configured one first, then what it last listed. */
export function modelsOf(provider: SavedProvider, extra: readonly string[] = []): string[] {
  const all = [provider.model, ...provider.models, ...extra].map((model) => model.trim()).filter(Boolean);
  return [...new Set(all)];
}

/**
 * The header's options, grouped by provider. `extra` adds models known elsewhere (the
 * downloaded web-llm models, by provider id).
 */
export function chatModelGroups(settings: ProviderSettingsPart, extra: Record<string, readonly string[]> = {}): ChatModelGroup[] {
  return settings.providers.map((provider) => ({ providerId: provider.id, label: provider.label, models: modelsOf(provider, extra[provider.id]) }));
}

/** The default provider with its configured model, or null when it has none yet. */
export function defaultChatModel(settings: ProviderSettingsPart): ChatModelChoice | null {
  const provider = providerById(settings.providers, settings.defaultProviderId) ?? settings.providers[0];
  return provider && provider.model.trim() ? { providerId: provider.id, model: provider.model.trim() } : null;
}

/** What a new chat starts with: the model used last while it is still there, else the default. */
export function newChatModel(settings: ProviderSettingsPart, extra: Record<string, readonly string[]> = {}): ChatModelChoice | null {
  const last = settings.lastChatModel;
  if (last && resolveChatModel(settings, last, extra).ok) return last;
  return defaultChatModel(settings);
}

/** The session's own choice, or (stored before sessions had one) the default's. */
export function sessionChatModel(session: { chatModel?: unknown } | undefined, settings: ProviderSettingsPart): ChatModelChoice | null {
  return asChatModelChoice(session?.chatModel) ?? defaultChatModel(settings);
}

/** The label the header and notices use: "Provider · model". */
export function choiceLabel(settings: ProviderSettingsPart, choice: ChatModelChoice): string {
  const provider = providerById(settings.providers, choice.providerId);
  return provider ? `${provider.label} · ${choice.model}` : choice.model;
}

/**
 * The provider settings for a choice, or why there are none. The API key is the chosen
 * provider's own: a request for one saved provider never carries another's key.
 */
export function resolveChatModel(settings: ProviderSettingsPart, choice: ChatModelChoice | null, extra: Record<string, readonly string[]> = {}): ChatModelResolution {
  if (!choice) {
    return { ok: false, choice: null, reason: 'no-model', message: 'No model is chosen yet. Open Settings, set up a provider with a Model, then Save.' };
  }
  const provider = providerById(settings.providers, choice.providerId);
  if (!provider) {
    return { ok: false, choice, reason: 'provider-gone', message: `This chat's model ${choice.model} is no longer available (its provider was removed); choose another in Chat model.` };
  }
  if (!modelsOf(provider, extra[provider.id]).includes(choice.model)) {
    return { ok: false, choice, reason: 'model-gone', message: `This chat's model ${choice.model} is no longer available on ${provider.label}; choose another in Chat model.` };
  }
  return {
    ok: true,
    choice,
    label: `${provider.label} · ${choice.model}`,
    provider: {
      kind: provider.kind,
      baseUrl: provider.baseUrl,
      apiKey: provider.kind === 'openai-compatible' ? provider.apiKey : '',
      model: choice.model,
      toolProtocol: toolProtocolFor(settings, choice.model),
    },
  };
}

/** The option value of a choice in the header's select. */
export function choiceValue(choice: ChatModelChoice): string {
  return JSON.stringify([choice.providerId, choice.model]);
}

export function choiceFromValue(value: string): ChatModelChoice | null {
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? asChatModelChoice({ providerId: parsed[0], model: parsed[1] }) : null;
  } catch {
    return null;
  }
}
