import type { KnackSettingsService } from '../../app/settings';
import { LEGACY_SETTINGS_KEY } from '../../app/settings';
import { DEFAULT_SETTINGS, mergeSettings, normalizeSettings, type KnackSettings } from './settingsModel';

/**
 * The app settings as rune state: a thin mirror of the settings service (key "app",
 * app/settings.ts), chosen at start-up with `useSettingsService(app.settings)`. localStorage is
 * the fallback when storage fails to open; the service itself moves what localStorage held
 * into IndexedDB once.
 */
export interface SettingsBackend {
  load(): Promise<unknown>;
  save(settings: KnackSettings): Promise<void>;
}

export const SETTINGS_STORAGE_KEY = LEGACY_SETTINGS_KEY;

export const localStorageBackend: SettingsBackend = {
  async load() {
    const stored = localStorage.getItem(SETTINGS_STORAGE_KEY);
    if (stored === null) return null;
    try {
      return JSON.parse(stored) as unknown;
    } catch {
      return null; // a corrupt entry falls back to defaults instead of breaking start-up
    }
  },
  async save(settings) {
    localStorage.setItem(SETTINGS_STORAGE_KEY, JSON.stringify(settings));
  },
};

/** The settings service as a backend: loads what it read, saves through `update("app")`. */
export function serviceSettings(service: KnackSettingsService): SettingsBackend {
  return {
    load: async () => service.get('app'),
    // The whole value: an optional field left out (a cleared review model) must clear.
    save: async (settings) => void (await service.update('app', { reviewProvider: undefined, ...settings })),
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

  /** Saves the merged settings; rejects (and keeps the old ones) when storage refuses. */
  async save(changes: Partial<KnackSettings>): Promise<void> {
    await this.load();
    const next = normalizeSettings(mergeSettings($state.snapshot(this.#current) as KnackSettings, changes));
    await this.#backend!.save(next);
    this.#current = next;
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
