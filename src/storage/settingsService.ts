import type { ChangeFeed } from './changes';
import type { RecordStore } from './recordStore';

/**
 * Typed settings over the `settings` record store, one value per key (the app's provider
 * settings, the skill and memory switches, the curator's schedule). `get` is synchronous
 * after `load`; `update` merges, normalises, stores and publishes `settings-changed` with its
 * key; a `settings-changed` from any context (another tab, the review worker, a console
 * write) makes the service re-read the named keys and tell its subscribers when they differ.
 */
export interface SettingDefinition<T> {
  /** The record key in the `settings` store. */
  record: string;
  defaults: T;
  /** Turns whatever was stored (older shapes, hand edits, nothing) into a valid value. */
  normalize(stored: unknown): T;
  /** How a partial change combines with the current value before normalising; default: a shallow merge. */
  merge?(current: T, change: Partial<T>): unknown;
  /** When nothing is stored yet: a value to adopt and save once (a migration), or undefined. */
  migrate?(): Promise<unknown> | unknown;
  /** Called once the migrated value is stored (e.g. to remove the old copy). */
  migrated?(): void;
}

export type SettingDefinitions<S> = { [K in keyof S]: SettingDefinition<S[K]> };

type Listener<T> = (value: T) => void;

export class SettingsService<S extends object> {
  private readonly values = new Map<keyof S, unknown>();
  /** Bumped by every local update, so a re-read that started earlier cannot undo it. */
  private readonly versions = new Map<keyof S, number>();
  private readonly listeners = new Map<keyof S, Set<Listener<never>>>();

  constructor(
    private readonly records: RecordStore<unknown>,
    private readonly changes: ChangeFeed | null,
    private readonly definitions: SettingDefinitions<S>,
  ) {
    changes?.subscribe((change) => {
      if (change.type !== 'settings-changed') return;
      const keys = change.keys ? this.keys().filter((key) => change.keys!.includes(String(key))) : this.keys();
      for (const key of keys) void this.read(key).catch((error: unknown) => console.warn(`[knack] settings "${String(key)}" could not be re-read`, error));
    });
  }

  keys(): (keyof S)[] {
    return Object.keys(this.definitions) as (keyof S)[];
  }

  /** Reads every key (or the given ones) from storage; runs a key's migration when it is unset. */
  async load(keys: (keyof S)[] = this.keys()): Promise<void> {
    await Promise.all(keys.map((key) => this.read(key)));
  }

  /** The current value: the defaults until `load` (or a read) finished. */
  get<K extends keyof S>(key: K): S[K] {
    return (this.values.has(key) ? this.values.get(key) : this.definitions[key].defaults) as S[K];
  }

  /** Re-reads one key from storage (another context may have written it) and returns it. */
  async read<K extends keyof S>(key: K): Promise<S[K]> {
    const definition = this.definitions[key];
    const version = this.versions.get(key) ?? 0;
    let stored = await this.records.get(definition.record);
    if ((stored === undefined || stored === null) && definition.migrate) {
      const migrated = await definition.migrate();
      if (migrated !== undefined && migrated !== null) {
        stored = definition.normalize(migrated);
        await this.records.put(definition.record, stored);
        definition.migrated?.();
      }
    }
    const value = definition.normalize(stored);
    if ((this.versions.get(key) ?? 0) === version) this.set(key, value);
    return this.get(key);
  }

  /** Merges `change`, stores the normalised result and tells every context. */
  async update<K extends keyof S>(key: K, change: Partial<S[K]>): Promise<S[K]> {
    const definition = this.definitions[key];
    const current = this.get(key);
    const next = definition.normalize(definition.merge ? definition.merge(current, change) : { ...current, ...change });
    await this.records.put(definition.record, next);
    this.versions.set(key, (this.versions.get(key) ?? 0) + 1);
    this.set(key, next);
    this.changes?.publish({ type: 'settings-changed', keys: [String(key)] });
    return next;
  }

  /** Called with the new value whenever the key changes here or elsewhere; returns the unsubscribe. */
  subscribe<K extends keyof S>(key: K, listener: Listener<S[K]>): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  private set<K extends keyof S>(key: K, value: S[K]): void {
    const known = this.values.has(key);
    const same = known && JSON.stringify(this.values.get(key)) === JSON.stringify(value);
    this.values.set(key, value);
    if (same) return;
    for (const listener of [...(this.listeners.get(key) ?? [])]) {
      try {
        (listener as Listener<S[K]>)(value);
      } catch (error) {
        console.error('[knack] settings listener failed', error);
      }
    }
  }
}
