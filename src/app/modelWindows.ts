/**
 * The window book: what Knack knows of each model's window, per saved provider and model,
 * kept across sessions and contexts (docs/context-window.md, "Knowing the window"). The chat,
 * the review worker and the gate all ask it (`lookup`) before a model call; a context-length
 * refusal teaches it (`learn`), and the prompt counts servers report calibrate its counter
 * (`observe`).
 *
 * One record per model in the `settings` store (key `modelWindow:["<providerId>","<model>"]`),
 * each written in one read-modify-write transaction where the store has one, so the tab and
 * the worker never undo each other's figures and no two models share a record.
 *
 * Which figure counts: the user's (`set`) wins; otherwise the smaller of the reported and the
 * learned (a refusal proves the server runs with less than it said); otherwise the default.
 */
import type { ChangeFeed } from '../storage/changes';
import type { RecordStore } from '../storage/recordStore';
import type { ModelKey, ModelWindow, ModelWindowBook, TokenCounter } from '../providers/modelWindow';
import { LOCAL_DEFAULT_WINDOW } from '../providers/modelWindow';
import { EstimatingCounter, MIN_CALIBRATION_TOKENS, nextRatio } from '../providers/tokenEstimate';
import { defaultWindow, discoverWindow, type WindowTarget } from '../providers/windowDiscovery';

/** One figure and where it came from. */
export interface WindowFigure {
  tokens: number;
  detail: string;
  /** Epoch milliseconds. */
  at: number;
}

/** The stored record of one model. */
export interface ModelWindowRecord {
  providerId: string;
  model: string;
  /** What the server or engine said (discovery); absent until it answered. */
  reported?: WindowFigure;
  /** What a refusal taught. */
  learned?: WindowFigure;
  /** The user's figure (Settings); absent for "automatic". */
  set?: number;
  /** The counter's calibration ratio (src/providers/tokenEstimate.ts) and how many counts taught it. */
  ratio: number;
  observations: number;
  /** When discovery last ran (epoch ms); 0 never. */
  discoveredAt: number;
}

/** Where a model runs, for discovery. */
export type WindowProvider = (WindowTarget & { kind: 'openai-compatible' }) | { kind: 'webgpu'; model: string };

export interface ModelWindowsDeps {
  /** The `settings` record store (one record per model, beside the settings service's own). */
  records: RecordStore<unknown>;
  /** The saved provider behind a key, or undefined when there is none. */
  provider(key: ModelKey): WindowProvider | undefined;
  changes?: ChangeFeed | null;
  discover?: (target: WindowTarget) => Promise<ModelWindow>;
  /** The in-browser engine's window for a model (its record's `context_window_size`). */
  webllmWindow?: (modelId: string) => Promise<number | undefined>;
  now?: () => number;
}

/** What Settings shows for a model. */
export interface ModelWindowView {
  window: ModelWindow;
  record: ModelWindowRecord;
}

/** The record key of a model. */
export function windowRecordKey(key: ModelKey): string {
  return `modelWindow:${JSON.stringify([key.providerId, key.model])}`;
}

/** The change-feed key Settings listens on (a `settings-changed` the settings service ignores). */
export const MODEL_WINDOWS_CHANGE_KEY = 'modelWindows';

/** A learned window is never taken below this: no chat model runs in less. */
const MIN_LEARNED_WINDOW = 512;
/** A refusal that names no figure shrinks the known window by this share. */
const SHRINK_WITHOUT_FIGURE = 0.85;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const wholePositive = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined);

function figure(value: unknown): WindowFigure | undefined {
  if (!isRecord(value)) return undefined;
  const tokens = wholePositive(value.tokens);
  if (!tokens) return undefined;
  return { tokens, detail: typeof value.detail === 'string' ? value.detail : '', at: typeof value.at === 'number' ? value.at : 0 };
}

/** A stored record made whole (unknown fields dropped, broken ones reset). */
export function normalizeWindowRecord(stored: unknown, key: ModelKey): ModelWindowRecord {
  const source = isRecord(stored) ? stored : {};
  const record: ModelWindowRecord = {
    providerId: key.providerId,
    model: key.model,
    ratio: typeof source.ratio === 'number' && Number.isFinite(source.ratio) && source.ratio > 0 ? source.ratio : 1,
    observations: wholePositive(source.observations) ?? 0,
    discoveredAt: typeof source.discoveredAt === 'number' ? source.discoveredAt : 0,
  };
  const reported = figure(source.reported);
  const learned = figure(source.learned);
  const set = wholePositive(source.set);
  if (reported) record.reported = reported;
  if (learned) record.learned = learned;
  if (set) record.set = set;
  return record;
}

/** The window that counts for a record (see the module comment), or the fallback when nothing is known. */
export function effectiveWindow(record: ModelWindowRecord, fallback: ModelWindow): ModelWindow {
  if (record.set) return { tokens: record.set, source: 'set', detail: 'set in Settings' };
  const { reported, learned } = record;
  if (learned && (!reported || learned.tokens < reported.tokens)) return { tokens: learned.tokens, source: 'learned', detail: learned.detail };
  if (reported) return { tokens: reported.tokens, source: 'reported', detail: reported.detail };
  return fallback;
}

export class ModelWindows implements ModelWindowBook {
  readonly #deps: ModelWindowsDeps;
  /** The calibration ratio per model as this context knows it; counters read it live. */
  readonly #ratios = new Map<string, { ratio: number; observations: number }>();
  readonly #counters = new Map<string, TokenCounter>();
  readonly #discovering = new Map<string, Promise<ModelWindowRecord>>();

  constructor(deps: ModelWindowsDeps) {
    this.#deps = deps;
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  async #read(key: ModelKey): Promise<ModelWindowRecord> {
    return normalizeWindowRecord(await this.#deps.records.get(windowRecordKey(key)), key);
  }

  /**
   * Read-modify-write of one model's record, in one transaction where the store offers it.
   * Tells every context (Settings shows the window) unless `quiet`: a calibration step after
   * each model call changes nothing Settings shows.
   */
  async #update(key: ModelKey, change: (record: ModelWindowRecord) => ModelWindowRecord, quiet = false): Promise<ModelWindowRecord> {
    const recordKey = windowRecordKey(key);
    let written: ModelWindowRecord | undefined;
    const { records } = this.#deps;
    if (records.updateMany) {
      await records.updateMany([recordKey], ([current]) => {
        written = change(normalizeWindowRecord(current, key));
        return { put: [[recordKey, written]] };
      });
    } else {
      written = change(await this.#read(key));
      await records.put(recordKey, written);
    }
    if (!quiet) this.#deps.changes?.publish({ type: 'settings-changed', keys: [MODEL_WINDOWS_CHANGE_KEY] });
    return written!;
  }

  #fallback(key: ModelKey): ModelWindow {
    const provider = this.#deps.provider(key);
    if (provider?.kind === 'openai-compatible') return defaultWindow(provider.baseUrl);
    if (provider?.kind === 'webgpu') return { tokens: LOCAL_DEFAULT_WINDOW, source: 'default', detail: "the in-browser model's record names none" };
    return defaultWindow(key.providerId);
  }

  #counter(key: ModelKey, record: ModelWindowRecord): TokenCounter {
    const id = windowRecordKey(key);
    const known = this.#ratios.get(id);
    // The stored ratio wins when it has seen more (another context calibrated it further).
    if (!known || record.observations > known.observations) this.#ratios.set(id, { ratio: record.ratio, observations: record.observations });
    let counter = this.#counters.get(id);
    if (!counter) {
      counter = new EstimatingCounter(() => this.#ratios.get(id)?.ratio ?? 1);
      this.#counters.set(id, counter);
    }
    return counter;
  }

  /**
   * Asks the server or engine for the window now and stores the answer (or that none came).
   * `forgetLearned`: the user saved the provider or picked the model again, so what a refusal
   * taught may be out of date (the server may have been restarted with another window).
   */
  async discover(key: ModelKey, options: { forgetLearned?: boolean } = {}): Promise<ModelWindowRecord> {
    const id = windowRecordKey(key);
    const running = this.#discovering.get(id);
    if (running && !options.forgetLearned) return running;
    const task = this.#discoverNow(key, options.forgetLearned ?? false).finally(() => {
      if (this.#discovering.get(id) === task) this.#discovering.delete(id);
    });
    this.#discovering.set(id, task);
    return task;
  }

  async #discoverNow(key: ModelKey, forgetLearned: boolean): Promise<ModelWindowRecord> {
    const provider = this.#deps.provider(key);
    let found: ModelWindow | undefined;
    if (provider?.kind === 'webgpu') {
      const tokens = await this.#deps.webllmWindow?.(key.model).catch(() => undefined);
      if (tokens) found = { tokens, source: 'reported', detail: "web-llm's model record" };
    } else if (provider) {
      const window = await (this.#deps.discover ?? ((target) => discoverWindow(target)))(provider);
      if (window.source === 'reported') found = window;
    }
    const at = this.#now();
    return this.#update(key, (record) => {
      const next: ModelWindowRecord = { ...record, discoveredAt: at };
      if (found) next.reported = { tokens: found.tokens, detail: found.detail ?? '', at };
      if (forgetLearned) delete next.learned;
      return next;
    });
  }

  async lookup(key: ModelKey): Promise<{ window: ModelWindow; counter: TokenCounter }> {
    let record = await this.#read(key);
    if (record.discoveredAt === 0 && !record.set) {
      // The first use of this model: ask once; a failure leaves the default and asks again next time.
      record = await this.discover(key).catch(() => record);
    }
    return { window: effectiveWindow(record, this.#fallback(key)), counter: this.#counter(key, record) };
  }

  async learn(key: ModelKey, tokens: number | null, detail: string): Promise<ModelWindow> {
    const named = tokens !== null && Number.isFinite(tokens) && tokens > 0 ? Math.floor(tokens) : undefined;
    const fallback = this.#fallback(key);
    const record = await this.#update(key, (current) => {
      const known = effectiveWindow({ ...current, set: undefined }, fallback).tokens;
      const learned = Math.max(MIN_LEARNED_WINDOW, named ?? Math.floor(known * SHRINK_WITHOUT_FIGURE));
      return { ...current, learned: { tokens: learned, detail, at: this.#now() } };
    });
    return effectiveWindow(record, fallback);
  }

  observe(key: ModelKey, estimated: number, reported: number): void {
    const id = windowRecordKey(key);
    if (!(estimated >= MIN_CALIBRATION_TOKENS) || !(reported > 0) || !Number.isFinite(reported)) return;
    const known = this.#ratios.get(id) ?? { ratio: 1, observations: 0 };
    const ratio = nextRatio(known.ratio, known.observations, estimated, reported);
    const next = { ratio, observations: known.observations + 1 };
    this.#ratios.set(id, next);
    void this.#update(key, (record) => ({ ...record, ratio: next.ratio, observations: Math.max(next.observations, record.observations) }), true).catch(
      (error: unknown) => console.warn('[knack] the calibration of a model could not be saved', error),
    );
  }

  /** Sets the user's figure (null: back to automatic, which asks the server again). */
  async set(key: ModelKey, tokens: number | null): Promise<ModelWindow> {
    const value = tokens !== null && Number.isFinite(tokens) && tokens > 0 ? Math.floor(tokens) : undefined;
    const record = await this.#update(key, (current) => {
      const next = { ...current };
      if (value) next.set = value;
      else delete next.set;
      return next;
    });
    if (!value) return (await this.lookup(key)).window;
    return effectiveWindow(record, this.#fallback(key));
  }

  /** The stored record of a model as it is now (no discovery). */
  record(key: ModelKey): Promise<ModelWindowRecord> {
    return this.#read(key);
  }

  /**
   * The window and the record behind it, for Settings. Unlike `lookup` it never asks the server:
   * opening Settings contacts nothing and writes nothing (a model not asked yet shows the
   * default until its first use or until its provider is saved).
   */
  async view(key: ModelKey): Promise<ModelWindowView> {
    const record = await this.#read(key);
    return { window: effectiveWindow(record, this.#fallback(key)), record };
  }
}
