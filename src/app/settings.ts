/**
 * Knack's settings, one typed service for every context (storage/settingsService.ts): the
 * app settings (provider, theme, learning intervals), the skill and memory switches and the
 * curator's schedule. The tab and the review worker read the same records; the worker takes
 * the review provider from here (`reviewProvider`) instead of receiving it with every job.
 */
import type { ChangeFeed } from '../storage/changes';
import type { RecordStore } from '../storage/recordStore';
import { SettingsService, type SettingDefinition } from '../storage/settingsService';
import type { ProviderSettings } from '../providers/createProvider';
import type { LearningIntervals } from '../agent/learningCounters';
import { emptyCuratorState, type CuratorState } from '../curator/curatorRules';
import type { MemoryApprovalMode } from '../memory/memoryTool';
import { defaultSkillSettings, type SkillSettings } from '../skills/skillEngine';
import { DEFAULT_GATE_SETTINGS, type GateSettings } from '../gate/gateSettings';
import { DEFAULT_SYNC_SETTINGS, normalizeSyncSettings, type SyncSettings } from '../sync/syncSettings';
import { isEvidencePolicy } from '../gate/policy';
import { newChatModel, resolveChatModel, type ChatModelChoice } from './chatModels';
import { DEFAULT_SETTINGS, mergeSettings, normalizeSettings, reviewKey, reviewProviderSettings, toolProtocolFor, type KnackSettings } from './appSettings';

export interface MemorySettings {
  /** The agent's notes (MEMORY.md) go into the system prompt and the tool can write them. */
  memoryEnabled: boolean;
  /** The user profile (USER.md) likewise. */
  userProfileEnabled: boolean;
  /** Stage memory writes for approval: never (default), always, or only the review agent's. */
  writeApproval: MemoryApprovalMode;
}

export const defaultMemorySettings: MemorySettings = { memoryEnabled: true, userProfileEnabled: true, writeApproval: 'off' };

export interface KnackSettingsSchema {
  app: KnackSettings;
  skills: SkillSettings;
  memory: MemorySettings;
  curator: CuratorState;
  gate: GateSettings;
  /** Settings → Sync (docs/sync.md); its `token` is a secret like `apiKey`. */
  sync: SyncSettings;
}

export type KnackSettingsService = SettingsService<KnackSettingsSchema>;

/** Where app settings lived before IndexedDB; moved once into the `app` record, then removed. */
export const LEGACY_SETTINGS_KEY = 'knack.settings';

export type LegacySettingsStorage = Pick<Storage, 'getItem' | 'removeItem'>;

function withDefaults<T extends object>(defaults: T): (stored: unknown) => T {
  return (stored) => ({ ...defaults, ...(stored !== null && typeof stored === 'object' ? (stored as Partial<T>) : {}) });
}

/**
 * The first load finds no `app` record and adopts what localStorage held (the earlier home of
 * settings), then removes the old key so the API key is kept in one place only.
 */
function legacyAppSettings(legacy: LegacySettingsStorage | null): Pick<SettingDefinition<KnackSettings>, 'migrate' | 'migrated'> {
  if (!legacy) return {};
  return {
    migrate: () => {
      const old = legacy.getItem(LEGACY_SETTINGS_KEY);
      if (old === null || old === undefined) return undefined;
      let parsed: unknown;
      try {
        parsed = JSON.parse(old) as unknown;
      } catch {
        parsed = null; // a corrupt entry becomes the defaults
      }
      return parsed ?? {};
    },
    migrated: () => legacy.removeItem(LEGACY_SETTINGS_KEY),
  };
}

export function createSettingsService(
  records: RecordStore<unknown>,
  changes: ChangeFeed | null,
  options: { legacy?: LegacySettingsStorage | null } = {},
): KnackSettingsService {
  return new SettingsService<KnackSettingsSchema>(records, changes, {
    app: { record: 'app', defaults: { ...DEFAULT_SETTINGS }, normalize: normalizeSettings, merge: mergeSettings, ...legacyAppSettings(options.legacy ?? null) },
    skills: { record: 'skills', defaults: { ...defaultSkillSettings }, normalize: withDefaults(defaultSkillSettings) },
    memory: { record: 'memory', defaults: { ...defaultMemorySettings }, normalize: withDefaults(defaultMemorySettings) },
    curator: { record: 'curatorState', defaults: emptyCuratorState(), normalize: withDefaults(emptyCuratorState()) },
    gate: { record: 'gate', defaults: structuredClone(DEFAULT_GATE_SETTINGS) as GateSettings, normalize: normalizeGateSettings },
    sync: { record: 'sync', defaults: { ...DEFAULT_SYNC_SETTINGS }, normalize: normalizeSyncSettings },
  });
}

/** The review agent's provider: the review model when Settings name one, else the chat's. */
export function reviewProvider(settings: KnackSettingsService): ProviderSettings {
  return reviewProviderSettings(settings.get('app'));
}

export function learningIntervals(settings: KnackSettingsService): LearningIntervals {
  const app = settings.get('app');
  return { creationNudgeInterval: app.creationNudgeInterval, memoryNudgeInterval: app.memoryNudgeInterval };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const nonNegative = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback);

/** The stored gate record made whole: unknown or broken fields take their defaults. */
export function normalizeGateSettings(stored: unknown): GateSettings {
  const defaults = structuredClone(DEFAULT_GATE_SETTINGS) as GateSettings;
  if (!isRecord(stored)) return defaults;
  const provider = isRecord(stored.provider) ? { baseUrl: String(stored.provider.baseUrl ?? ''), model: String(stored.provider.model ?? '') } : undefined;
  const usage = isRecord(stored.usage) ? { day: String(stored.usage.day ?? ''), requests: nonNegative(stored.usage.requests, 0) } : defaults.usage;
  const noise: GateSettings['noise'] = {};
  if (isRecord(stored.noise)) {
    for (const [key, value] of Object.entries(stored.noise)) {
      if (isRecord(value)) noise[key] = { probes: nonNegative(value.probes, 0), flips: nonNegative(value.flips, 0) };
    }
  }
  return {
    policy: isEvidencePolicy(stored.policy) ? stored.policy : defaults.policy,
    ...(provider ? { provider } : {}),
    automatic: typeof stored.automatic === 'boolean' ? stored.automatic : defaults.automatic,
    allowedHosts: Array.isArray(stored.allowedHosts) ? stored.allowedHosts.filter((host): host is string => typeof host === 'string') : [],
    dailyCap: nonNegative(stored.dailyCap, defaults.dailyCap),
    usage,
    noise,
    maxTokens: nonNegative(stored.maxTokens, defaults.maxTokens) || defaults.maxTokens,
  };
}

/**
 * The gate's provider: the gate's own choice when Settings name one, else the model the user
 * chats with (`chat`, or the model a new chat starts with), so a skill written by a hosted
 * review model is proven on the model that will use it (docs/gate.md, "Per-model verdicts");
 * the review provider when no chat model resolves. As for the review, an API key goes along
 * only to its own provider's base URL.
 */
export function gateProviderSettings(app: KnackSettings, gate: GateSettings, chat?: ChatModelChoice | null): ProviderSettings {
  const review = reviewProviderSettings(app);
  const choice = gate.provider;
  if (!choice || (!choice.baseUrl.trim() && !choice.model.trim())) {
    const resolved = resolveChatModel(app, chat ?? newChatModel(app));
    return resolved.ok ? resolved.provider : review;
  }
  const baseUrl = choice.baseUrl.trim() || review.baseUrl;
  const model = choice.model.trim() || review.model;
  const kind = choice.baseUrl.trim() ? 'openai-compatible' : review.kind;
  const apiKey = reviewKey(app, kind, { kind: app.provider, baseUrl: app.baseUrl, apiKey: app.apiKey, model: app.model, toolProtocol: 'auto' }, baseUrl);
  return { kind, baseUrl, apiKey, model, toolProtocol: toolProtocolFor(app, model) };
}

/** The gate's provider from the settings service's current values. */
export function gateProvider(settings: KnackSettingsService): ProviderSettings {
  return gateProviderSettings(settings.get('app'), settings.get('gate'));
}

/** The key of `gate.noise`: where the gate's model runs, and which model. */
export function gateNoiseKey(provider: Pick<ProviderSettings, 'kind' | 'baseUrl' | 'model'>, providerId: string): string {
  return `${providerId} ${provider.model.trim()}`;
}

/** A local calendar day as YYYY-MM-DD (automatic runs' daily cap resets on it). */
export function localDay(now: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * What a finished run adds to the gate settings: its noise probe to the model's counters and,
 * for an automatic run, its requests to today's usage (a new local day starts from zero).
 * Counted on the stored value inside the settings transaction, so runs finishing together in
 * the worker and a tab, or a change the user makes meanwhile, are all kept (docs/storage.md).
 */
export async function recordGateRun(
  settings: KnackSettingsService,
  run: { noiseKey: string; probed: boolean; flipped: boolean; automatic: boolean; requests: number; now: Date },
): Promise<GateSettings> {
  if (!run.probed && !run.automatic) return settings.read('gate');
  return settings.update('gate', (gate) => {
    const change: Partial<GateSettings> = {};
    if (run.probed) {
      const seen = gate.noise[run.noiseKey] ?? { probes: 0, flips: 0 };
      change.noise = { ...gate.noise, [run.noiseKey]: { probes: seen.probes + 1, flips: seen.flips + (run.flipped ? 1 : 0) } };
    }
    if (run.automatic) {
      const day = localDay(run.now);
      change.usage = { day, requests: (gate.usage.day === day ? gate.usage.requests : 0) + run.requests };
    }
    return change;
  });
}
