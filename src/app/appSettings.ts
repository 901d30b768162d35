/**
 * The app settings (key "app" in the settings service): shape, defaults, normalisation and
 * the providers they select. Plain TypeScript, shared by the tab and the review worker.
 */
import { CUSTOM_PRESET_ID, PROVIDER_PRESETS } from '../providers/presets';
import type { ProviderSettings, ToolProtocol } from '../providers/createProvider';
import { defaultIntervals } from '../agent/learningCounters';
import {
  flatFieldsOf,
  keyForEndpoint,
  mergeProviderChange,
  providerById,
  savedProvidersFrom,
  type ChatModelChoice,
  type SavedProvider,
} from './savedProviders';

export type ProviderKind = 'openai-compatible' | 'webgpu';
export type ThemeChoice = 'system' | 'light' | 'dark';

export interface ProviderPreset {
  id: string;
  label: string;
  baseUrl: string;
}

export const PROVIDER_KINDS: readonly { id: ProviderKind; label: string }[] = [
  { id: 'openai-compatible', label: 'OpenAI-compatible' },
  { id: 'webgpu', label: 'In-browser (WebGPU)' },
];

export const CUSTOM_PRESET = CUSTOM_PRESET_ID;

/** The provider layer's presets (src/providers/presets.ts), which also carry CORS advice. */
export const PRESETS: readonly ProviderPreset[] = PROVIDER_PRESETS;

export const THEME_CHOICES: readonly { id: ThemeChoice; label: string }[] = [
  { id: 'system', label: 'Match the system' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
];

export const TOOL_PROTOCOLS: readonly { id: ToolProtocol; label: string }[] = [
  { id: 'auto', label: 'Automatic' },
  { id: 'native', label: 'Native (tools in the request)' },
  { id: 'text', label: 'Text protocol (<tool_call> blocks)' },
];

/** A different endpoint or model for the review agent and the gate (docs/providers.md). */
export interface ReviewProviderChoice {
  /** Empty: the chat's base URL. */
  baseUrl: string;
  /** Empty: the chat's model. */
  model: string;
}

export interface KnackSettings {
  /**
   * The saved providers (src/app/savedProviders.ts), each with its own key; never empty.
   * `provider`, `baseUrl`, `apiKey` and `model` mirror the default one.
   */
  providers: SavedProvider[];
  defaultProviderId: string;
  /** The model the last chat chose in its header; new chats start with it while it exists. */
  lastChatModel?: ChatModelChoice;
  provider: ProviderKind;
  baseUrl: string;
  /** Sent only to `baseUrl`; never exported unless the user asks (docs/providers.md). */
  apiKey: string;
  model: string;
  theme: ThemeChoice;
  /**
   * How tool calls travel, per model id (a model without native tool calling needs the text
   * protocol whichever server hosts it). Models not listed use 'auto'.
   */
  toolProtocols: Record<string, ToolProtocol>;
  /** Review skills after this many model calls without skill_manage; ≤ 0 disables (docs/learning-loop.md). */
  creationNudgeInterval: number;
  /** Review memory after this many user turns without a memory write; ≤ 0 disables. */
  memoryNudgeInterval: number;
  /** Optional separate review model; absent means the chat's own. */
  reviewProvider?: ReviewProviderChoice;
  /** Summarise the conversation's middle before a request passes this percentage of the model's window (docs/context-window.md). */
  compactAtPercent: number;
}

const DEFAULT_PROVIDER_FIELDS = { provider: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', apiKey: '', model: '' } as const;

export const DEFAULT_SETTINGS: Readonly<KnackSettings> = Object.freeze({
  ...savedProvidersFrom({}, DEFAULT_PROVIDER_FIELDS),
  ...DEFAULT_PROVIDER_FIELDS,
  theme: 'system',
  toolProtocols: {},
  creationNudgeInterval: defaultIntervals.creationNudgeInterval,
  memoryNudgeInterval: defaultIntervals.memoryNudgeInterval,
  compactAtPercent: 50,
}) as Readonly<KnackSettings>;

export function toolProtocolFor(settings: Pick<KnackSettings, 'toolProtocols'>, model: string): ToolProtocol {
  return settings.toolProtocols[model.trim()] ?? 'auto';
}

/** What the chat's provider factory needs. */
export function chatProviderSettings(settings: KnackSettings): ProviderSettings {
  return {
    kind: settings.provider,
    baseUrl: settings.baseUrl,
    apiKey: settings.apiKey,
    model: settings.model,
    toolProtocol: toolProtocolFor(settings, settings.model),
  };
}

function sameEndpoint(a: string, b: string): boolean {
  const clean = (url: string) => url.trim().replace(/\/+$/, '');
  return clean(a) === clean(b);
}

/**
 * The key for a review or gate request to `baseUrl`: the default provider's own when it is that
 * same server, else the key of the saved provider at exactly that URL, else none. A key never
 * goes to a server other than its own (docs/providers.md).
 */
export function reviewKey(settings: KnackSettings, kind: ProviderKind, chat: ProviderSettings, baseUrl: string): string {
  if (kind !== 'openai-compatible') return '';
  if (chat.kind === 'openai-compatible' && sameEndpoint(baseUrl, chat.baseUrl)) return chat.apiKey;
  return keyForEndpoint(settings, baseUrl);
}

/**
 * The review agent's provider: the default saved provider (the review does not follow each
 * chat's header choice), or the review model Settings name.
 */
export function reviewProviderSettings(settings: KnackSettings): ProviderSettings {
  const chat = chatProviderSettings(settings);
  const review = settings.reviewProvider;
  if (!review || (!review.baseUrl.trim() && !review.model.trim())) return chat;
  const baseUrl = review.baseUrl.trim() || chat.baseUrl;
  const model = review.model.trim() || chat.model;
  const kind = review.baseUrl.trim() ? 'openai-compatible' : chat.kind;
  return {
    kind,
    baseUrl,
    apiKey: reviewKey(settings, kind, chat, baseUrl),
    model,
    toolProtocol: toolProtocolFor(settings, model),
  };
}

/** Settings as they may leave the app (backup, export): never an API key (docs/providers.md). */
export function settingsWithoutSecrets(settings: KnackSettings): Omit<KnackSettings, 'apiKey'> {
  const { apiKey: _apiKey, ...rest } = settings;
  void _apiKey;
  const copy = structuredClone(rest);
  copy.providers = copy.providers.map((entry) => ({ ...entry, apiKey: '' }));
  return copy;
}

/** A settings change merged into the current settings: the saved-provider list and its flat mirror stay in step. */
export function mergeSettings(current: KnackSettings, change: Partial<KnackSettings>): KnackSettings {
  return mergeProviderChange(current, change);
}

/** The default saved provider. */
export function defaultProvider(settings: Pick<KnackSettings, 'providers' | 'defaultProviderId'>): SavedProvider {
  return providerById(settings.providers, settings.defaultProviderId) ?? settings.providers[0]!;
}

/** The preset whose URL matches (ignoring a trailing slash), or custom. */
export function presetForUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  return PRESETS.find((preset) => preset.id !== CUSTOM_PRESET && preset.baseUrl === trimmed)?.id ?? CUSTOM_PRESET;
}

function pick<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

function text(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/**
 * Turns whatever was stored (older shapes, hand edits, nothing at all) into valid settings,
 * keeping every field that is usable so one bad field never wipes the rest.
 */
export function normalizeSettings(raw: unknown): KnackSettings {
  const source = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const flat = {
    provider: pick(source.provider, PROVIDER_KINDS.map((kind) => kind.id), DEFAULT_SETTINGS.provider),
    baseUrl: text(source.baseUrl, DEFAULT_SETTINGS.baseUrl),
    apiKey: text(source.apiKey, DEFAULT_SETTINGS.apiKey),
    model: text(source.model, DEFAULT_SETTINGS.model),
  };
  // Older settings have no list: their one provider (key included) becomes its only entry.
  const list = savedProvidersFrom(source, flat);
  const lastChatModel = chatModelChoice(source.lastChatModel);
  return {
    ...list,
    ...(lastChatModel ? { lastChatModel } : {}),
    ...flatFieldsOf(defaultProvider(list)),
    theme: pick(source.theme, THEME_CHOICES.map((choice) => choice.id), DEFAULT_SETTINGS.theme),
    toolProtocols: toolProtocolMap(source.toolProtocols),
    creationNudgeInterval: interval(source.creationNudgeInterval, DEFAULT_SETTINGS.creationNudgeInterval),
    memoryNudgeInterval: interval(source.memoryNudgeInterval, DEFAULT_SETTINGS.memoryNudgeInterval),
    compactAtPercent: Math.min(90, Math.max(20, interval(source.compactAtPercent, DEFAULT_SETTINGS.compactAtPercent))),
    ...reviewChoice(source.reviewProvider),
  };
}

function chatModelChoice(value: unknown): ChatModelChoice | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { providerId, model } = value as Record<string, unknown>;
  return typeof providerId === 'string' && providerId && typeof model === 'string' && model.trim() ? { providerId, model: model.trim() } : undefined;
}

function interval(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : fallback;
}

function toolProtocolMap(value: unknown): Record<string, ToolProtocol> {
  const result: Record<string, ToolProtocol> = {};
  if (value === null || typeof value !== 'object') return result;
  const allowed = TOOL_PROTOCOLS.map((protocol) => protocol.id as string);
  for (const [model, protocol] of Object.entries(value as Record<string, unknown>)) {
    if (model.trim() && typeof protocol === 'string' && allowed.includes(protocol) && protocol !== 'auto') result[model.trim()] = protocol as ToolProtocol;
  }
  return result;
}

function reviewChoice(value: unknown): { reviewProvider?: ReviewProviderChoice } {
  if (value === null || typeof value !== 'object') return {};
  const source = value as Record<string, unknown>;
  const choice = { baseUrl: text(source.baseUrl, '').trim(), model: text(source.model, '').trim() };
  return choice.baseUrl || choice.model ? { reviewProvider: choice } : {};
}

/** A message for the Base URL field, or null when it is usable. */
export function baseUrlProblem(settings: Pick<KnackSettings, 'provider' | 'baseUrl'>): string | null {
  if (settings.provider !== 'openai-compatible') return null;
  const value = settings.baseUrl.trim();
  if (value === '') return 'Enter the server address, for example http://localhost:11434/v1.';
  // `new URL('localhost:11434')` parses with the scheme "localhost:", so check the scheme too.
  const full = URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  return full ? null : 'Enter a full address starting with http:// or https://.';
}
