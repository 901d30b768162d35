/** Settings shape, defaults and provider presets. Plain TypeScript: no runes, no DOM. */
import { CUSTOM_PRESET_ID, PROVIDER_PRESETS } from '../../providers/presets';

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

export interface KnackSettings {
  provider: ProviderKind;
  baseUrl: string;
  /** Sent only to `baseUrl`; never exported unless the user asks (SPEC §12.1). */
  apiKey: string;
  model: string;
  theme: ThemeChoice;
}

export const DEFAULT_SETTINGS: Readonly<KnackSettings> = Object.freeze({
  provider: 'openai-compatible',
  baseUrl: 'http://localhost:11434/v1',
  apiKey: '',
  model: '',
  theme: 'system',
});

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
  return {
    provider: pick(source.provider, PROVIDER_KINDS.map((kind) => kind.id), DEFAULT_SETTINGS.provider),
    baseUrl: text(source.baseUrl, DEFAULT_SETTINGS.baseUrl),
    apiKey: text(source.apiKey, DEFAULT_SETTINGS.apiKey),
    model: text(source.model, DEFAULT_SETTINGS.model),
    theme: pick(source.theme, THEME_CHOICES.map((choice) => choice.id), DEFAULT_SETTINGS.theme),
  };
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
