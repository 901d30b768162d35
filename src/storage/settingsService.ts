import type { ChangeFeed } from './changes';
import type { RecordStore } from './recordStore';

/**
 * Typed settings over the `settings` record store, one value per key (the app's provider
 * settings, the skill and memory switches, the curator's schedule). `get` is synchronous
 * after `load`; `update` reads, merges, normalises and stores in one transaction and publishes
 * `settings-changed` with its key; a `settings-changed` from any context (another tab, the
 * review worker, a console write) makes the service re-read the named keys and tell its
 * subscribers when they differ.
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

/**
 * A change to one key: the fields to set, or a function of the value as stored at the moment
 * of writing that returns them. A change that depends on the current value (add to a list,
 * count up) must be a function, or it writes away what another tab stored in between.
 */
export type SettingChange<T> = Partial<T> | ((current: T) => Partial<T>);

export class SettingsService<S extends object> {
  private readonly values = new Map<keyof S, unknown>();
  /** Per key, the last read or update queued in this context (see `queued`). */
  private readonly queues = new Map<keyof S, Promise<unknown>>();
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
  read<K extends keyof S>(key: K): Promise<S[K]> {
    return this.queued(key, () => this.readStored(key));
  }

  /**
   * Applies `change` to the value as stored, in one IndexedDB readwrite transaction (the read,
   * the merge and the write), then keeps the result and tells every context. Never a lost
   * update (docs/storage.md, "No lost update"): no other tab, worker or earlier call of this
   * one can write the record between the read and the write. A transaction rather than a Web
   * Lock: it also holds against writers that would not take a lock (a restore's one
   * transaction, a console write), needs no round trip of its own, and a tab that dies
   * mid-way leaves nothing held.
   */
  update<K extends keyof S>(key: K, change: SettingChange<S[K]>): Promise<S[K]> {
    return this.queued(key, async () => {
      const definition = this.definitions[key];
      let next!: S[K];
      await this.records.updateMany([definition.record], ([stored]) => {
        const current = definition.normalize(stored);
        const fields = typeof change === 'function' ? change(current) : change;
        next = definition.normalize(definition.merge ? definition.merge(current, fields) : { ...current, ...fields });
        return { put: [[definition.record, next]] };
      });
      this.set(key, next);
      this.changes?.publish({ type: 'settings-changed', keys: [String(key)] });
      return next;
    });
  }

  /**
   * Runs reads and updates of one key one after another, in call order. The transaction makes
   * each update atomic; the queue makes the value kept in memory the one stored last: a read
   * that started before an update cannot finish after it with the older value, and updates of
   * one key from this context are applied in the order they were made. Across contexts the
   * order is IndexedDB's (readwrite transactions on one store run in the order they were
   * created), and another context's change reaches memory through `settings-changed`.
   */
  private queued<K extends keyof S, R>(key: K, operation: () => Promise<R>): Promise<R> {
    const run = (this.queues.get(key) ?? Promise.resolve()).then(operation, operation);
    this.queues.set(key, run.catch(() => undefined));
    return run;
  }

  private async readStored<K extends keyof S>(key: K): Promise<S[K]> {
    const definition = this.definitions[key];
    let stored = await this.records.get(definition.record);
    if ((stored === undefined || stored === null) && definition.migrate) {
      const migrated = await definition.migrate();
      if (migrated !== undefined && migrated !== null) {
        const adopted = definition.normalize(migrated);
        let wrote = false;
        // Adopted only if still unset: another context may have stored a value meanwhile.
        await this.records.updateMany([definition.record], ([now]) => {
          wrote = now === undefined || now === null;
          stored = wrote ? adopted : now;
          return { put: wrote ? [[definition.record, adopted]] : [] };
        });
        if (wrote) definition.migrated?.();
      }
    }
    const value = definition.normalize(stored);
    this.set(key, value);
    return value;
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
