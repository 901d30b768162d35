import { DEFAULT_SETTINGS, normalizeSettings, type KnackSettings } from './settingsModel';

/**
 * Where settings live. Today: one localStorage key. The IndexedDB `settings` store
 * replaces it with a single `useSettingsBackend(...)` call at start-up.
 */
export interface SettingsBackend {
  load(): Promise<unknown>;
  save(settings: KnackSettings): Promise<void>;
}

export const SETTINGS_STORAGE_KEY = 'knack.settings';

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

class SettingsState {
  #current = $state<KnackSettings>({ ...DEFAULT_SETTINGS });
  #loaded = $state(false);
  #backend: SettingsBackend = localStorageBackend;
  #loading: Promise<void> | null = null;

  /** The saved settings (forms edit a copy and call `save`). */
  get current(): Readonly<KnackSettings> {
    return this.#current;
  }

  get loaded(): boolean {
    return this.#loaded;
  }

  useBackend(backend: SettingsBackend): Promise<void> {
    this.#backend = backend;
    this.#loading = null;
    return this.load();
  }

  load(): Promise<void> {
    this.#loading ??= this.#backend.load().then(
      (raw) => {
        this.#current = normalizeSettings(raw);
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
    const next = normalizeSettings({ ...this.#current, ...changes });
    await this.#backend.save(next);
    this.#current = next;
  }
}

export const settings = new SettingsState();

/** The settings storage seam, one call: `useSettingsBackend(indexedDbSettings)`. */
export function useSettingsBackend(backend: SettingsBackend): Promise<void> {
  return settings.useBackend(backend);
}
