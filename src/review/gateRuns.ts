/**
 * The tab's side of the verification gate (docs/gate.md, "Triggers"): starting, stopping and
 * recording gate runs, which happen in the review worker like reviews do.
 *
 * - Verify (manual): starts at once, never capped. One run per skill: asking again while it
 *   runs returns the running one.
 * - Automatic: a write to a skill (a review's, the chat's, the user's, an import with cases)
 *   makes one pending run for that skill, due 30 s after the last write. It starts only when
 *   automatic runs are on, nothing is generating in the foreground, the user has been idle for
 *   a minute, today's request cap has room, and, for a provider off this machine, the user has
 *   allowed that host once (until then the loop asks, through `onPermission`).
 *
 * Every run writes its activity records in order (running, then how it ended). After a done
 * run nothing is published here: the worker's effects publish the skill's change.
 */
import { AUTO_RUN_DEBOUNCE_MS, AUTO_RUN_IDLE_MS, DEFAULT_GATE_SETTINGS, type GateSettings } from '../gate/gateSettings';
import { providerLocality, replayProviderId } from '../gate/cacheKey';
import type { GateProgress } from '../gate/types';
import type { ProviderSettings } from '../providers/createProvider';
import type { StorageChange } from '../storage/changes';
import type { SettingChange } from '../storage/settingsService';
import { gateEndedActivity, gateRunningActivity, type GateActivity, type GateRunBase, type GateTrigger } from './activity';
import type { GateJob, GateJobOutcome } from './reviewWorkerApi';
import { CANCEL_GRACE_MS } from './reviewScheduler';

/** Where gate runs happen (the review worker, or its handler in this thread). */
export interface GateBackend {
  runGate(job: GateJob, onProgress?: (progress: GateProgress) => void): Promise<GateJobOutcome>;
  cancel(runId: string): Promise<void>;
}

/** Change actions that rewrite a skill's files: each makes its verdict stale, so it is run again. */
export const GATE_WRITE_ACTIONS: readonly string[] = ['create', 'edit', 'patch', 'write_file', 'remove_file', 'rollback', 'import', 'update'];
/** Change actions after which a pending run of the skill is dropped. */
const GATE_DROP_ACTIONS: readonly string[] = ['delete', 'archive'];
/** Requests a case costs (its two arms), for the permission question's estimate. */
export const REQUESTS_PER_CASE = 2;
/** Runs measure at most this many cases (docs/gate.md, "Split"). */
const MAX_CASES_PER_RUN = 24;

export interface PermissionRequest {
  host: string;
  estimateRequests: number;
}

export interface Timers {
  set(run: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const globalTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface GateRunsDeps {
  backend(): Promise<GateBackend>;
  /** Hard stop when a cancel is not acknowledged in time (the worker is restarted). */
  resetBackend(): void;
  /** Stores an activity record, in order with every other record. */
  record(activity: GateActivity): void;
  gateSettings?(): GateSettings;
  /** A change of the stored gate settings (SettingsService.update): fields, or a function of the stored value. */
  updateGateSettings?(change: SettingChange<GateSettings>): Promise<void>;
  /** The provider the gate replays with. */
  gateProvider(): ProviderSettings;
  /** Milliseconds since the last user input. */
  idleMs(): number;
  /** Subscribes to skill changes; returns the function that unsubscribes. */
  subscribeChanges?(listener: (change: StorageChange) => void): () => void;
  /** Cases in the skill's evals/evals.json, null when it has none (imports run only with cases). */
  countCases?(skill: string): Promise<number | null>;
  /**
   * Whether a fresh verdict of the gate's model already describes the skill's bytes — one a
   * sync brought from another device with the files (docs/sync.md, "Proof travels"): then an
   * import queues no automatic run, and a queued one is dropped before it starts.
   */
  measuredAlready?(skill: string): Promise<boolean>;
  timers?: Timers;
  now(): number;
  onUpdate?(): void;
  /**
   * Claims the skill's automatic run across tabs: resolves with the release function, or null
   * when another tab of the profile holds the claim (its run covers the same write, so this tab
   * drops its own). Without it every run starts at once (one tab, tests).
   */
  claimAutomaticRun?(skill: string): Promise<(() => void) | null>;
}

interface Run {
  base: GateRunBase;
  runId: string;
  done: Promise<GateActivity>;
  settle(activity: GateActivity): void;
  settled: boolean;
  progress: GateProgress | null;
}

interface Pending {
  trigger: GateTrigger;
  /** Before this time the run waits for more writes (the debounce). */
  dueAt: number;
  timer: unknown;
}

const isAutomatic = (trigger: GateTrigger) => trigger !== 'manual' && trigger !== 'manual-no-cache';

/** The local calendar day, as the gate settings' usage counts it. */
export function localDay(at: number): string {
  const date = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The host a provider id names ("api.example.com"), or null when it runs on this machine. */
export function remoteHost(provider: ProviderSettings): string | null {
  const id = replayProviderId(provider);
  if (providerLocality(id) !== 'remote') return null;
  try {
    return new URL(id).host;
  } catch {
    return id;
  }
}

export class GateRuns {
  readonly #runs = new Map<string, Run>();
  readonly #pending = new Map<string, Pending>();
  readonly #progressListeners = new Set<(skill: string, progress: GateProgress | null) => void>();
  readonly #permissionListeners = new Set<(request: PermissionRequest | null) => void>();
  readonly #declinedHosts = new Set<string>();
  /** Hosts allowed in this tab (kept even if the settings could not be written). */
  readonly #allowedHosts = new Set<string>();
  readonly #timers: Timers;
  readonly #unsubscribe: (() => void) | null;
  #generating = false;
  #permission: PermissionRequest | null = null;

  constructor(private readonly deps: GateRunsDeps) {
    this.#timers = deps.timers ?? globalTimers;
    this.#unsubscribe = deps.subscribeChanges?.((change) => this.#onChange(change)) ?? null;
  }

  /** A run now (the Verify button, or a trigger that passed its rules); the running one if any. */
  verify(skill: string, options: { useCache?: boolean; trigger?: GateTrigger; model?: GateJob['model'] } = {}): Promise<GateActivity> {
    const running = this.#runs.get(skill);
    if (running) return running.done;
    this.#dropPending(skill);
    const trigger = options.trigger ?? (options.useCache === false ? 'manual-no-cache' : 'manual');
    return this.#start(skill, trigger, { useCache: options.useCache, ...(options.model ? { model: options.model } : {}) }).done;
  }

  isVerifying(skill: string): boolean {
    return this.#runs.has(skill);
  }

  /** Skills with a run in flight. */
  verifying(): string[] {
    return [...this.#runs.keys()];
  }

  /** Whether an automatic run of the skill is waiting (for its debounce, idle time or permission). */
  isPending(skill: string): boolean {
    return this.#pending.has(skill);
  }

  /**
   * Stops the skill's run: the worker is asked to stop; if it has not answered within the
   * grace period it is restarted. Resolves once the run is recorded as cancelled.
   */
  async cancelVerify(skill: string): Promise<void> {
    const run = this.#runs.get(skill);
    if (!run) return;
    let timer: unknown;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = this.#timers.set(() => resolve('timeout'), CANCEL_GRACE_MS);
    });
    const acknowledged = (async () => {
      await (await this.deps.backend()).cancel(run.runId);
      await run.done;
      return 'ok' as const;
    })();
    const result = await Promise.race([acknowledged, timedOut]).catch(() => 'ok' as const);
    this.#timers.clear(timer);
    if (result !== 'timeout') return;
    this.deps.resetBackend();
    const progress = run.progress;
    run.settle(gateEndedActivity(run.base, { kind: 'cancelled', pairsDone: progress?.casesDone ?? 0, pairsTotal: progress?.casesTotal ?? 0 }, this.deps.now(), progress));
  }

  onGateProgress(listener: (skill: string, progress: GateProgress | null) => void): () => void {
    this.#progressListeners.add(listener);
    return () => this.#progressListeners.delete(listener);
  }

  /** The one-time question for a non-local host; null when nothing is asked. */
  get pendingPermission(): PermissionRequest | null {
    return this.#permission;
  }

  onPermission(listener: (request: PermissionRequest | null) => void): () => void {
    this.#permissionListeners.add(listener);
    return () => this.#permissionListeners.delete(listener);
  }

  /** The user allowed automatic runs against `host`: remembered in the gate settings. */
  async allowAutomatic(host: string): Promise<void> {
    this.#allowedHosts.add(host);
    this.#declinedHosts.delete(host);
    const settings = this.#settings();
    try {
      // Added to the stored list, not this tab's copy: a host allowed in another tab stays.
      if (!settings.allowedHosts.includes(host)) {
        await this.deps.updateGateSettings?.((stored) => (stored.allowedHosts.includes(host) ? {} : { allowedHosts: [...stored.allowedHosts, host] }));
      }
    } catch (error) {
      console.warn('[knack] the allowed host could not be saved; it stays allowed in this tab', error);
    } finally {
      this.#setPermission(null);
      this.#checkAll();
    }
  }

  /** The user said no: nothing is asked again for this host in this tab, and waiting runs are dropped. */
  declineAutomatic(): void {
    if (this.#permission) this.#declinedHosts.add(this.#permission.host);
    this.#setPermission(null);
    for (const skill of [...this.#pending.keys()]) this.#dropPending(skill);
  }

  /** The chat says when a foreground generation starts and ends: automatic runs wait for it. */
  noteGeneration(active: boolean): void {
    this.#generating = active;
    if (!active) this.#checkAll();
  }

  /** Queues an automatic run of the skill, due after the debounce (a newer call restarts it). */
  schedule(skill: string, trigger: GateTrigger): void {
    const previous = this.#pending.get(skill);
    if (previous) this.#timers.clear(previous.timer);
    const entry: Pending = { trigger, dueAt: this.deps.now() + AUTO_RUN_DEBOUNCE_MS, timer: null };
    entry.timer = this.#timers.set(() => this.#check(skill), AUTO_RUN_DEBOUNCE_MS);
    this.#pending.set(skill, entry);
  }

  dispose(): void {
    this.#unsubscribe?.();
    for (const skill of [...this.#pending.keys()]) this.#dropPending(skill);
  }

  #settings(): GateSettings {
    return this.deps.gateSettings?.() ?? DEFAULT_GATE_SETTINGS;
  }

  #onChange(change: StorageChange): void {
    if (change.type !== 'skill-changed' || !change.action) return;
    const skill = change.name;
    if (GATE_DROP_ACTIONS.includes(change.action)) return this.#dropPending(skill);
    if (!GATE_WRITE_ACTIONS.includes(change.action)) return;
    if (change.action !== 'import') return this.schedule(skill, 'changed');
    // An import runs only when it brought cases, and not when it brought the verdict of the
    // gate's model for these very bytes (a sync from another device).
    void Promise.all([this.deps.countCases?.(skill) ?? Promise.resolve(null), this.#measuredAlready(skill)])
      .then(([cases, measured]) => {
        if (cases && !measured) this.schedule(skill, 'import');
      })
      .catch((error: unknown) => console.warn('[knack] reading an imported skill\u2019s cases failed', error));
  }

  async #measuredAlready(skill: string): Promise<boolean> {
    if (!this.deps.measuredAlready) return false;
    try {
      return await this.deps.measuredAlready(skill);
    } catch (error) {
      console.warn('[knack] reading the skill\u2019s verdicts failed; the gate runs as if it had none', error);
      return false;
    }
  }

  #dropPending(skill: string): void {
    const entry = this.#pending.get(skill);
    if (!entry) return;
    this.#timers.clear(entry.timer);
    this.#pending.delete(skill);
  }

  #checkAll(): void {
    for (const skill of [...this.#pending.keys()]) this.#check(skill);
  }

  /** Re-checks the skill's pending run later (idle time not reached yet). */
  #recheck(skill: string, entry: Pending, ms: number): void {
    this.#timers.clear(entry.timer);
    entry.timer = this.#timers.set(() => this.#check(skill), Math.max(1000, ms));
  }

  /** Starts the skill's pending run if every rule for automatic runs holds now. */
  #check(skill: string): void {
    const entry = this.#pending.get(skill);
    if (!entry) return;
    const now = this.deps.now();
    if (now < entry.dueAt) return this.#recheck(skill, entry, entry.dueAt - now);
    const settings = this.#settings();
    if (!settings.automatic) return this.#dropPending(skill);
    // A run of this skill in flight: its end checks again. Generation: its end checks again.
    if (this.#runs.has(skill) || this.#generating) return;
    const idle = this.deps.idleMs();
    if (idle < AUTO_RUN_IDLE_MS) return this.#recheck(skill, entry, AUTO_RUN_IDLE_MS - idle);
    const used = settings.usage.day === localDay(now) ? settings.usage.requests : 0;
    if (used >= settings.dailyCap) return this.#dropPending(skill);
    const host = remoteHost(this.deps.gateProvider());
    if (host && !settings.allowedHosts.includes(host) && !this.#allowedHosts.has(host)) {
      if (this.#declinedHosts.has(host)) return this.#dropPending(skill);
      // Waits (without a timer) until the user answers.
      this.#timers.clear(entry.timer);
      if (!this.#permission) void this.#askPermission(host, skill);
      return;
    }
    this.#dropPending(skill);
    const options = { budget: { maxRequests: settings.dailyCap - used } };
    if (!this.deps.claimAutomaticRun && !this.deps.measuredAlready) {
      this.#start(skill, entry.trigger, options);
      return;
    }
    void this.#claimThenStart(skill, entry.trigger, options);
  }

  /**
   * Starts an automatic run only if no fresh verdict of the gate's model arrived meanwhile (a
   * sync) and no other tab runs the same skill now (docs/gate.md, "Triggers").
   */
  async #claimThenStart(skill: string, trigger: GateTrigger, options: Pick<GateJob, 'budget'>): Promise<void> {
    if (await this.#measuredAlready(skill)) return;
    if (this.#runs.has(skill)) return;
    if (!this.deps.claimAutomaticRun) {
      this.#start(skill, trigger, options);
      return;
    }
    let release: (() => void) | null;
    try {
      release = await this.deps.claimAutomaticRun!(skill);
    } catch (error) {
      console.warn('[knack] the cross-tab gate claim failed; running in this tab', error);
      release = () => undefined;
    }
    if (!release) return;
    // A Verify in this tab may have started while the claim was asked for: it covers the write.
    if (this.#runs.has(skill)) return release();
    void this.#start(skill, trigger, options).done.finally(release);
  }

  async #askPermission(host: string, skill: string): Promise<void> {
    this.#setPermission({ host, estimateRequests: 0 });
    const cases = await (this.deps.countCases?.(skill) ?? Promise.resolve(null)).catch(() => null);
    if (this.#permission?.host !== host) return;
    this.#setPermission({ host, estimateRequests: REQUESTS_PER_CASE * Math.min(cases ?? 0, MAX_CASES_PER_RUN) });
  }

  #setPermission(request: PermissionRequest | null): void {
    this.#permission = request;
    for (const listener of [...this.#permissionListeners]) listener(request);
    this.deps.onUpdate?.();
  }

  #emitProgress(skill: string, progress: GateProgress | null): void {
    for (const listener of [...this.#progressListeners]) {
      try {
        listener(skill, progress);
      } catch (error) {
        console.warn('[knack] a gate progress listener failed', error);
      }
    }
  }

  #start(skill: string, trigger: GateTrigger, options: Pick<GateJob, 'useCache' | 'budget' | 'model'>): Run {
    const base: GateRunBase = { id: crypto.randomUUID(), skill, trigger, startedAt: this.deps.now() };
    let settle!: (activity: GateActivity) => void;
    const run: Run = { base, runId: base.id, done: new Promise((resolve) => (settle = resolve)), settle: () => undefined, settled: false, progress: null };
    run.settle = (activity) => {
      if (run.settled) return;
      run.settled = true;
      this.#finish(run, activity);
      settle(activity);
    };
    this.#runs.set(skill, run);
    this.deps.record(gateRunningActivity(base));
    this.deps.onUpdate?.();
    // `automatic` tells the worker to count the run's requests against today's cap (the
    // worker writes the usage after the run, next to the noise counts).
    const job: GateJob = { runId: run.runId, skill, policy: this.#settings().policy, ...options };
    if (isAutomatic(trigger)) job.automatic = true;
    const onProgress = (progress: GateProgress) => {
      if (run.settled) return;
      run.progress = progress;
      this.#emitProgress(skill, progress);
    };
    void (async () => {
      let outcome: GateJobOutcome;
      try {
        outcome = await (await this.deps.backend()).runGate(job, onProgress);
      } catch (error) {
        outcome = { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
      }
      run.settle(gateEndedActivity(base, outcome, this.deps.now(), run.progress));
    })();
    return run;
  }

  #finish(run: Run, activity: GateActivity): void {
    const skill = run.base.skill;
    if (this.#runs.get(skill) === run) this.#runs.delete(skill);
    this.deps.record(activity);
    this.#emitProgress(skill, null);
    this.deps.onUpdate?.();
    // A write during the run left a pending run: it may start now.
    if (this.#pending.has(skill)) this.#check(skill);
  }
}
