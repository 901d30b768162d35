import type { KnackSettingsService } from '../../app/settings';
import { LEGACY_SETTINGS_KEY } from '../../app/settings';
import type { SettingChange } from '../../storage/settingsService';
import { DEFAULT_SETTINGS, mergeSettings, normalizeSettings, type KnackSettings } from './settingsModel';

/**
 * The app settings as rune state: a thin mirror of the settings service (key "app",
 * app/settings.ts), chosen at start-up with `useSettingsService(app.settings)`. localStorage is
 * the fallback when storage fails to open; the service itself moves what localStorage held
 * into IndexedDB once.
 */
export interface SettingsBackend {
  load(): Promise<unknown>;
  /**
   * Applies a change to the settings as stored now and returns the result. Never the whole
   * value from this tab's copy: that would write away what another tab changed meanwhile
   * (docs/storage.md, "No lost update").
   */
  save(change: SettingChange<KnackSettings>): Promise<KnackSettings>;
}

/** The change applied to `current`: its fields, merged as the settings service merges them. */
function applied(current: KnackSettings, change: SettingChange<KnackSettings>): KnackSettings {
  return normalizeSettings(mergeSettings(current, typeof change === 'function' ? change(current) : change));
}

export const SETTINGS_STORAGE_KEY = LEGACY_SETTINGS_KEY;

/** What localStorage holds, read synchronously; null for nothing or a corrupt entry. */
function readLocal(): unknown {
  const stored = localStorage.getItem(SETTINGS_STORAGE_KEY);
  if (stored === null) return null;
  try {
    return JSON.parse(stored) as unknown;
  } catch {
    return null; // a corrupt entry falls back to defaults instead of breaking start-up
  }
}

export const localStorageBackend: SettingsBackend = {
  load: async () => readLocal(),
  async save(change) {
    // Read, merge and write with no await in between: nothing else of this tab runs meanwhile.
    const next = applied(normalizeSettings(readLocal()), change);
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(next));
    return next;
  },
};

/** The settings service as a backend: loads what it read, saves through `update("app")`. */
export function serviceSettings(service: KnackSettingsService): SettingsBackend {
  return {
    load: async () => service.get('app'),
    save: (change) => service.update('app', change),
  };
}

class SettingsState {
  #current = $state<KnackSettings>({ ...DEFAULT_SETTINGS });
  #loaded = $state(false);
  /** Bumped on every load, so forms that copy the settings can start over. */
  #generation = $state(0);
  #backend: SettingsBackend | null = null;
  #loading: Promise<void> | null = null;
  #backendChosen!: () => void;
  #backendReady = new Promise<void>((resolve) => (this.#backendChosen = resolve));

  /** The saved settings (forms edit a copy and call `save`). */
  get current(): Readonly<KnackSettings> {
    return this.#current;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  get generation(): number {
    return this.#generation;
  }

  useBackend(backend: SettingsBackend): Promise<void> {
    this.#backend = backend;
    this.#loading = null;
    this.#backendChosen();
    return this.load();
  }

  /** Mirrors the service: its value now, and every change made here or in another context. */
  useService(service: KnackSettingsService): Promise<void> {
    service.subscribe('app', (value) => {
      if (this.#loaded) this.#current = normalizeSettings(value);
    });
    return this.useBackend(serviceSettings(service));
  }

  /** Loads from the chosen backend; until start-up chooses one, waits for it. */
  load(): Promise<void> {
    if (!this.#backend) return this.#backendReady.then(() => this.load());
    this.#loading ??= this.#backend.load().then(
      (raw) => {
        this.#current = normalizeSettings(raw);
        this.#generation += 1;
        this.#loaded = true;
      },
      () => {
        this.#loaded = true; // unreadable storage: keep defaults, the app still starts
      },
    );
    return this.#loading;
  }

  /**
   * Applies a change to the stored settings; rejects (and keeps the old ones) when storage
   * refuses. A change that depends on the current value (a list edited, a nested field) is a
   * function of the stored value, so another tab's change made meanwhile is kept.
   */
  async save(change: SettingChange<KnackSettings>): Promise<void> {
    await this.load();
    this.#current = await this.#backend!.save(change);
  }
}

export const settings = new SettingsState();

/** The settings storage seam, one call at start-up: `useSettingsService(app.settings)`. */
export function useSettingsService(service: KnackSettingsService): Promise<void> {
  return settings.useService(service);
}

/** The fallback when storage cannot open: `useSettingsBackend(localStorageBackend)`. */
export function useSettingsBackend(backend: SettingsBackend): Promise<void> {
  return settings.useBackend(backend);
}
