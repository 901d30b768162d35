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
import { DEFAULT_SETTINGS, normalizeSettings, reviewProviderSettings, type KnackSettings } from './appSettings';

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
      let parsed: unknown = null;
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
    app: { record: 'app', defaults: { ...DEFAULT_SETTINGS }, normalize: normalizeSettings, ...legacyAppSettings(options.legacy ?? null) },
    skills: { record: 'skills', defaults: { ...defaultSkillSettings }, normalize: withDefaults(defaultSkillSettings) },
    memory: { record: 'memory', defaults: { ...defaultMemorySettings }, normalize: withDefaults(defaultMemorySettings) },
    curator: { record: 'curatorState', defaults: emptyCuratorState(), normalize: withDefaults(emptyCuratorState()) },
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
