import { DEFAULT_SETTINGS, normalizeSettings, type KnackSettings } from './settingsModel';

/**
 * Where settings live: the IndexedDB `settings` store (key "app"), chosen at start-up with
 * `useSettingsBackend(indexedDbSettings(...))` once storage is open. localStorage is the
 * fallback when storage fails to open, and the source of a one-time migration.
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

export const SETTINGS_RECORD_KEY = 'app';

/** The part of a RecordStore the settings need (kept structural: no storage import here). */
export interface SettingsRecords {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
}

/**
 * Settings in IndexedDB. The first load finds no record and moves what localStorage held
 * (the earlier home of settings) into it, then removes the old key, so the API key is kept
 * in one place only.
 */
export function indexedDbSettings(records: SettingsRecords, legacy: Pick<Storage, 'getItem' | 'removeItem'> | null = globalThis.localStorage ?? null): SettingsBackend {
  return {
    async load() {
      const stored = await records.get(SETTINGS_RECORD_KEY);
      if (stored !== undefined && stored !== null) return stored;
      const old = legacy?.getItem(SETTINGS_STORAGE_KEY);
      if (old === null || old === undefined) return null;
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(old) as unknown;
      } catch {
        parsed = null;
      }
      await records.put(SETTINGS_RECORD_KEY, normalizeSettings(parsed));
      legacy?.removeItem(SETTINGS_STORAGE_KEY);
      return parsed;
    },
    async save(settings) {
      await records.put(SETTINGS_RECORD_KEY, $state.snapshot(settings));
    },
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
    const next = normalizeSettings({ ...$state.snapshot(this.#current), ...changes });
    await this.#backend!.save(next);
    this.#current = next;
  }
}

export const settings = new SettingsState();

/** The settings storage seam, one call at start-up: `useSettingsBackend(indexedDbSettings(records))`. */
export function useSettingsBackend(backend: SettingsBackend): Promise<void> {
  return settings.useBackend(backend);
}
