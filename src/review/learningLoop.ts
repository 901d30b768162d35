/**
 * The learning loop (docs/learning-loop.md), in plain TypeScript: the chat tells it when a user turn starts
 * (a running review for the session is cancelled, without waiting) and when a turn has ended
 * (the finalizer decides whether to schedule a review); the curator's schedule is checked on
 * a timer the UI owns, against an idle clock the UI feeds with input events.
 *
 * Reviews and curator runs happen in a backend created on first need (the review worker in
 * the app, an in-thread handler in unit tests). Every run is written to the activity log, in
 * order; what a review learned comes back as notices; a review that staged a write tells the
 * Pending views. Nothing here can fail the chat: a review that breaks is recorded as failed.
 * Gate runs (Verify, and the automatic runs after a skill changed) live in gateRuns.ts on the
 * same backend and the same ordered activity writes.
 */
import type { TurnEnd } from '../agent/agentLoop';
import { decideReview, type LearningCounters, type LearningIntervals, type ReviewKind } from '../agent/learningCounters';
import type { CuratorRun } from '../curator/curator';
import { emptyCuratorState, scheduleDecision, type CuratorState } from '../curator/curatorRules';
import type { ProviderSettings } from '../providers/createProvider';
import type { ChatMessage } from '../providers/provider';
import type { GateSettings } from '../gate/gateSettings';
import type { GateProgress } from '../gate/types';
import type { StorageChange } from '../storage/changes';
import type { SettingChange } from '../storage/settingsService';
import { curatorActivity, memoryActivity, reviewActivity, reviewTrigger, type ActivityRecord, type CuratorActivity, type CuratorMode, type GateActivity, type MemoryActivity } from './activity';
import { GateRuns, type GateBackend, type PermissionRequest, type Timers } from './gateRuns';
import { stagedAny } from './reviewRun';
import { reviewTranscript } from './reviewTranscript';
import type { CheckDraftJob, CuratorRunOptions, ReviewWorkerApi } from './reviewWorkerApi';
import type { CheckDraft } from '../gate/checkDraft';
import type { SummaryJob, SummaryOutcome } from '../sessions/sessionSummary';
import type { ConsolidationJob, ConsolidationOutcome } from '../memory/memoryConsolidation';
import type { TwinMergeJob, TwinMergeOutcome } from './twinMerge';
import type { MemoryTarget } from '../memory/memoryEntries';
import { isLocalHost } from '../providers/windowDiscovery';
import { ReviewScheduler, type ReviewBackend, type ReviewRecord } from './reviewScheduler';

export interface TurnReport {
  sessionId: string;
  /**
   * The whole session after the turn, without the system prompt. Read only when a review is
   * scheduled (the chat builds it on first read), and then bounded for the review.
   */
  readonly messages: ChatMessage[];
  systemPrompt: string;
  counters: LearningCounters;
  end: TurnEnd;
  finalReply: string | null;
  /** The intervals from the settings; the loop's own settings when absent. */
  intervals?: LearningIntervals;
}

export interface LearningNotice {
  id: string;
  sessionId: string;
  text: string;
}

/** Where runs happen: reviews for the scheduler, the curator, and gate runs. */
export interface LearningBackend extends ReviewBackend, GateBackend {
  runCurator(options: CuratorRunOptions): Promise<CuratorRun>;
  maybeRunCurator(idleMs: number): Promise<CuratorRun | null>;
  draftChecks(job: CheckDraftJob): Promise<CheckDraft>;
  summariseSessions(job: SummaryJob): Promise<SummaryOutcome>;
  consolidateMemory(job: ConsolidationJob): Promise<ConsolidationOutcome>;
  mergeTwins(job: TwinMergeJob): Promise<TwinMergeOutcome>;
}

/**
 * A backend that calls a ReviewWorkerApi implementation in this thread (unit tests, or any
 * context without workers). There is no thread to terminate, so `reset` does nothing: the
 * cancel already stopped the run.
 */
export function inThreadBackend(api: ReviewWorkerApi): LearningBackend {
  return {
    run: (request) => api.runReview(request),
    cancel: (runId) => api.cancel(runId),
    reset: () => undefined,
    runCurator: (options) => api.runCurator(options),
    maybeRunCurator: (idleMs) => api.maybeRunCurator(idleMs),
    runGate: (job, onProgress) => api.runGate(job, onProgress),
    draftChecks: (job) => api.draftChecks(job),
    summariseSessions: (job) => api.summariseSessions(job),
    consolidateMemory: (job) => api.consolidateMemory(job),
    mergeTwins: (job) => api.mergeTwins(job),
  };
}

/** Remembers the last user input, optionally in storage shared by tabs (the UI's localStorage). */
export interface InputTimeStore {
  read(): number | null;
  write(at: number): void;
}

/** How often the last input is written to the shared store at most. */
export const INPUT_WRITE_EVERY_MS = 30_000;

/** The curator's idle rule reads this: fed by the UI's input listeners, plain arithmetic here. */
export class IdleClock {
  #lastInputAt: number | null = null;
  #lastWritten = 0;

  constructor(private readonly shared: InputTimeStore | null = null) {}

  noteInput(now: number): void {
    this.#lastInputAt = now;
    if (now - this.#lastWritten < INPUT_WRITE_EVERY_MS) return;
    this.#lastWritten = now;
    this.shared?.write(now);
  }

  /** Milliseconds since the last input (in any tab sharing the store), Infinity if there was none. */
  idleMs(now: number): number {
    let last = this.#lastInputAt;
    const stored = this.shared?.read() ?? null;
    if (stored !== null && Number.isFinite(stored) && stored > 0) last = Math.max(last ?? 0, stored);
    return last === null ? Infinity : Math.max(0, now - last);
  }
}

export interface LearningLoopDeps {
  /** Called once, on the first run that needs it (the worker chunk loads only then). */
  createBackend(): Promise<LearningBackend>;
  activity: { put(record: ActivityRecord): Promise<void> };
  curatorState: { read(): Promise<CuratorState>; write(state: CuratorState): Promise<void> };
  /** The review model when Settings name one, else the chat's provider. */
  reviewProvider(): ProviderSettings;
  intervals(): LearningIntervals;
  /** A review staged a write: Pending views re-read. */
  notifyPendingChanged(): void;
  idle: IdleClock;
  /** Notices, the running count, gate runs or the gate's permission question changed. */
  onUpdate?(): void;
  now?(): number;
  /** Whether the browser is online (`navigator.onLine` in the tab); unknown when absent. */
  online?(): boolean;
  /** The gate settings (settings key "gate"); the defaults when absent. */
  gateSettings?(): GateSettings;
  updateGateSettings?(change: SettingChange<GateSettings>): Promise<void>;
  /** The gate's provider; the review provider when absent. */
  gateProvider?(): ProviderSettings;
  /** Skill changes (the change feed): writes queue automatic gate runs. */
  subscribeChanges?(listener: (change: StorageChange) => void): () => void;
  /** Cases in a skill's evals/evals.json, null when it has none. */
  countCases?(skill: string): Promise<number | null>;
  /** A fresh verdict of the gate's model already describes the skill (see gateRuns.ts). */
  measuredAlready?(skill: string): Promise<boolean>;
  /** Timers for the gate's debounce and idle checks (tests pass fake ones). */
  timers?: Timers;
  /** The cross-tab claim on a skill's automatic gate run (see gateRuns.ts). */
  claimAutomaticRun?(skill: string): Promise<(() => void) | null>;
}

/** Whether a review has anything to talk to (a server, or a chosen in-browser model). */
export function canReview(provider: ProviderSettings): boolean {
  return provider.kind === 'webgpu' ? provider.model.trim() !== '' : provider.baseUrl.trim() !== '';
}

/** The backend is created on first use and shared by reviews and curator runs. */
class LazyBackend implements ReviewBackend {
  #backend: Promise<LearningBackend> | null = null;

  constructor(private readonly create: () => Promise<LearningBackend>) {}

  get(): Promise<LearningBackend> {
    this.#backend ??= this.create();
    return this.#backend;
  }

  async run(request: Parameters<ReviewBackend['run']>[0]) {
    return (await this.get()).run(request);
  }

  async cancel(runId: string): Promise<void> {
    if (this.#backend) await (await this.#backend).cancel(runId);
  }

  reset(): void {
    void this.#backend?.then((backend) => backend.reset());
  }
}

export class LearningLoop {
  /** Review notices ("Learned: skill `x` created — unverified"), newest last. */
  notices: LearningNotice[] = [];
  /** Runs in flight (reviews and curator). */
  running = 0;

  readonly #backend: LazyBackend;
  #drafts = 0;
  readonly #scheduler: ReviewScheduler;
  readonly #gate: GateRuns;
  /** Activity writes in order, so a run's "done" never lands before its "running". */
  #writes: Promise<void> = Promise.resolve();

  constructor(private readonly deps: LearningLoopDeps) {
    this.#backend = new LazyBackend(deps.createBackend);
    this.#scheduler = new ReviewScheduler(this.#backend, (record) => this.#onReviewRecord(record), () => this.#now());
    this.#gate = new GateRuns({
      backend: () => this.#backend.get(),
      resetBackend: () => this.#backend.reset(),
      record: (activity) => this.#record(activity),
      gateSettings: deps.gateSettings,
      updateGateSettings: deps.updateGateSettings,
      gateProvider: () => deps.gateProvider?.() ?? deps.reviewProvider(),
      idleMs: () => this.idleMs(),
      subscribeChanges: deps.subscribeChanges,
      countCases: deps.countCases,
      measuredAlready: deps.measuredAlready,
      claimAutomaticRun: deps.claimAutomaticRun,
      timers: deps.timers,
      now: () => this.#now(),
      onUpdate: deps.onUpdate,
    });
  }

  /** A gate run of the skill now (Verify); while one runs, that one (see gateRuns.ts). */
  verify(skill: string, options: Parameters<GateRuns['verify']>[1] = {}): Promise<GateActivity> {
    return this.#gate.verify(skill, options);
  }

  /** Stops the skill's gate run; the worker is restarted if it does not stop within 2 s. */
  cancelVerify(skill: string): Promise<void> {
    return this.#gate.cancelVerify(skill);
  }

  isVerifying(skill: string): boolean {
    return this.#gate.isVerifying(skill);
  }

  /** Whether an automatic gate run of the skill is waiting (debounce, idle time or permission). */
  isGatePending(skill: string): boolean {
    return this.#gate.isPending(skill);
  }

  /** Skills with a gate run in flight. */
  verifying(): string[] {
    return this.#gate.verifying();
  }

  /** Progress of a skill's run; null when it ended. Returns the function that unsubscribes. */
  onGateProgress(listener: (skill: string, progress: GateProgress | null) => void): () => void {
    return this.#gate.onGateProgress(listener);
  }

  /** The one-time question before automatic runs talk to a non-local host. */
  get pendingPermission(): PermissionRequest | null {
    return this.#gate.pendingPermission;
  }

  onPermission(listener: (request: PermissionRequest | null) => void): () => void {
    return this.#gate.onPermission(listener);
  }

  allowAutomatic(host: string): Promise<void> {
    return this.#gate.allowAutomatic(host);
  }

  declineAutomatic(): void {
    this.#gate.declineAutomatic();
  }

  /** The chat calls this when a turn starts and ends: automatic gate runs wait for it. */
  noteGeneration(active: boolean): void {
    this.#gate.noteGeneration(active);
  }

  /** Stops listening for skill changes and drops waiting automatic runs. */
  dispose(): void {
    this.#gate.dispose();
  }

  /** Called when the user sends a message; never blocks the turn. */
  beforeUserTurn(sessionId: string): void {
    this.noteUserInput();
    if (!this.#scheduler.isRunning(sessionId)) return;
    // Not awaited: the user's turn starts now; the scheduler resets the backend after 2 s.
    this.#scheduler.cancelForLiveTurn(sessionId).catch((error: unknown) => console.warn('[knack] cancelling a review failed', error));
  }

  /** Called after every turn; returns the counters to persist for the session. */
  afterTurn(report: TurnReport): LearningCounters {
    const decision = decideReview(report.counters, report.intervals ?? this.deps.intervals(), {
      finalReply: (report.finalReply ?? '').trim() !== '',
      stopped: report.end === 'stopped',
    });
    if (decision.review) {
      try {
        this.#startReview(report, decision.review);
      } catch (error) {
        console.warn('[knack] a review could not start', error);
      }
    }
    return decision.counters;
  }

  isReviewing(sessionId: string): boolean {
    return this.#scheduler.isRunning(sessionId);
  }

  dismissNotice(id: string): void {
    this.notices = this.notices.filter((notice) => notice.id !== id);
    this.deps.onUpdate?.();
  }

  /** Resolves when every activity record so far is stored (tests and the bench wait on it). */
  settled(): Promise<void> {
    return this.#writes;
  }

  noteUserInput(): void {
    this.deps.idle.noteInput(this.#now());
  }

  idleMs(): number {
    return this.deps.idle.idleMs(this.#now());
  }

  /**
   * One schedule check (`maybeRunCurator` semantics): the first check only starts the clock;
   * then a run at most every 7 days, after 2 idle hours. The check is one record read; the
   * backend starts only for a run. Returns the recorded run, or null.
   */
  async checkCurator(): Promise<CuratorActivity | null> {
    try {
      const idle = this.idleMs();
      const state = (await this.deps.curatorState.read()) ?? emptyCuratorState();
      const decision = scheduleDecision(state, new Date(this.#now()), idle);
      if (decision.seedState) await this.deps.curatorState.write(decision.seedState);
      if (!decision.run) return null;
      // The backend decides again under a lock, so two tabs never both run it.
      return await this.#curatorRun('scheduled', (backend) => backend.maybeRunCurator(idle));
    } catch (error) {
      console.warn('[knack] the curator check failed', error);
      return null;
    }
  }

  /**
   * A curator run on request: `dryRun` reports what would change without changing anything;
   * `now` runs it as if at another time (a preview of a later run, and tests).
   */
  async runCurator(options: { dryRun: boolean; now?: Date }): Promise<CuratorActivity> {
    const now = options.now ? { now: options.now.toISOString() } : {};
    const activity = await this.#curatorRun(options.dryRun ? 'dry-run' : 'manual', (backend) => backend.runCurator({ dryRun: options.dryRun, ...now }));
    return activity!; // only a scheduled check can come back without a run
  }

  /**
   * The review model drafts the checks of a case added from a chat (docs/gate.md, "Independent
   * cases"). One request the user asked for, answered into the case editor: no activity record.
   */
  async draftChecks(skill: string, prompt: string): Promise<CheckDraft> {
    if (!canReview(this.deps.reviewProvider())) return { success: false, error: 'no review model is set up' };
    try {
      const backend = await this.#backend.get();
      return await backend.draftChecks({ runId: `draft-checks-${this.#now()}-${++this.#drafts}`, skill, prompt });
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * `session_search` asks for summaries of its top sessions (docs/chat.md, "Session search that answers"). No
   * background model, or a remote one while the browser is offline: unavailable at once, and the
   * tool shows snippets. Not an activity record: it answers a tool call in the chat.
   */
  async summariseSessions(job: Pick<SummaryJob, 'query' | 'sessions'>): Promise<SummaryOutcome> {
    const provider = this.deps.reviewProvider();
    if (!canReview(provider)) return { kind: 'unavailable', reason: 'no background model is set up' };
    const local = provider.kind === 'webgpu' || isLocalHost(provider.baseUrl);
    if (!local && this.deps.online?.() === false) return { kind: 'unavailable', reason: 'offline, and the background model is not on this device' };
    try {
      const backend = await this.#backend.get();
      return await backend.summariseSessions({ runId: `session-summaries-${this.#now()}-${++this.#drafts}`, ...job });
    } catch (error) {
      return { kind: 'unavailable', reason: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * The review's extra task when a memory file passed 80 % of its limit after a write
   * (docs/learning-loop.md, "Memory consolidation"): one job in the review worker, recorded in
   * Activity with the file before and after. Null when there is no background model.
   */
  async consolidateMemory(target: MemoryTarget): Promise<MemoryActivity | null> {
    if (!canReview(this.deps.reviewProvider())) return null;
    const base = { id: crypto.randomUUID(), target, startedAt: this.#now() };
    this.#record(memoryActivity(base));
    this.#setRunning(1);
    let activity: MemoryActivity;
    try {
      const backend = await this.#backend.get();
      const outcome = await backend.consolidateMemory({ runId: `memory-${base.id}`, target });
      activity = memoryActivity(base, { outcome, endedAt: this.#now() });
    } catch (error) {
      activity = memoryActivity(base, { error: error instanceof Error ? error.message : String(error), endedAt: this.#now() });
    } finally {
      this.#setRunning(-1);
    }
    this.#record(activity);
    await this.#writes;
    return activity;
  }

  /** Merge two twin skills on evidence in the review worker (review/twinMerge.ts); writes nothing. */
  async mergeTwins(a: string, b: string): Promise<TwinMergeOutcome> {
    if (!canReview(this.deps.reviewProvider())) return { kind: 'refused', reason: 'no review model is set up', requests: 0 };
    try {
      const backend = await this.#backend.get();
      return await backend.mergeTwins({ runId: `merge-${this.#now()}-${++this.#drafts}`, a, b });
    } catch (error) {
      return { kind: 'refused', reason: error instanceof Error ? error.message : String(error), requests: 0 };
    }
  }

  #now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  #startReview(report: TurnReport, kind: ReviewKind): void {
    // Nothing to talk to (no server, or no in-browser model chosen): no review.
    if (!canReview(this.deps.reviewProvider())) return;
    this.#scheduler.schedule(
      // Bounded and copied here: a long tool-heavy session is not sent whole (reviewTranscript.ts).
      { sessionId: report.sessionId, kind, sessionMessages: reviewTranscript(report.messages), systemPrompt: report.systemPrompt },
      reviewTrigger(kind, report.counters),
    );
  }

  #onReviewRecord(record: ReviewRecord): void {
    this.#setRunning(record.status === 'running' ? 1 : -1);
    this.#record(reviewActivity(record));
    if (record.status !== 'running') this.#afterReview(record);
  }

  #afterReview(record: ReviewRecord): void {
    const outcome = record.outcome;
    if (!outcome) return;
    if (record.status === 'done' && outcome.notices.length > 0) {
      this.notices = [...this.notices, ...outcome.notices.map((text, i) => ({ id: `${record.runId}:${i}`, sessionId: record.sessionId, text }))];
      this.deps.onUpdate?.();
    }
    if (stagedAny(outcome.toolCalls)) this.deps.notifyPendingChanged();
  }

  #setRunning(delta: 1 | -1): void {
    this.running = Math.max(0, this.running + delta);
    this.deps.onUpdate?.();
  }

  #record(activity: ActivityRecord): void {
    this.#writes = this.#writes
      .then(() => this.deps.activity.put(activity))
      .catch((error: unknown) => console.warn('[knack] an activity record could not be saved', error));
  }

  async #curatorRun(mode: CuratorMode, call: (backend: LearningBackend) => Promise<CuratorRun | null>): Promise<CuratorActivity | null> {
    const base = { id: crypto.randomUUID(), mode, startedAt: this.#now() };
    // A scheduled run is recorded only once the backend has actually run it.
    if (mode !== 'scheduled') this.#record(curatorActivity(base, null));
    this.#setRunning(1);
    let activity: CuratorActivity | null = null;
    try {
      const run = await call(await this.#backend.get());
      if (run) activity = curatorActivity(base, { run, endedAt: this.#now() });
    } catch (error) {
      activity = curatorActivity(base, { error: error instanceof Error ? error.message : String(error), endedAt: this.#now() });
    } finally {
      this.#setRunning(-1);
    }
    if (activity) this.#record(activity);
    return activity;
  }
}
