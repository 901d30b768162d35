import type { ChatMessage } from '../../providers/provider';
import type { ProviderSettings } from '../../providers/createProvider';
import { decideReview, defaultIntervals, type LearningCounters, type LearningIntervals, type ReviewKind } from '../../agent/learningCounters';
import type { TurnEnd } from '../../agent/agentLoop';
import { curatorActivity, reviewActivity, reviewTrigger, type ActivityRecord, type CuratorActivity, type CuratorMode } from '../../review/activity';
import type { ReviewOutcome } from '../../review/reviewRun';
import { ReviewScheduler, type ReviewBackend, type ReviewRecord, type ReviewRequest } from '../../review/reviewScheduler';
import type { ReviewWorkerClient } from '../../review/reviewWorkerClient';
import type { CuratorRun } from '../../curator/curator';
import { settings } from './settings.svelte';
import { reviewProviderSettings } from './settingsModel';

/**
 * The seam between the chat and the learning loop (SPEC §8): the chat tells it when a user
 * turn starts (a running review for the session is cancelled, without waiting) and when a
 * turn has ended (the finalizer decides whether to schedule a review). The chat persists the
 * counters it gets back.
 *
 * Reviews and curator runs happen in the review worker (workers/review.worker.ts), one per
 * tab, started on first need. Every run is written to the `activity` store for the Activity
 * view; what a review learned comes back as chat notices. Nothing here can fail the chat: a
 * review that breaks is recorded as failed and the turn goes on.
 */
export interface TurnReport {
  sessionId: string;
  /** The whole session after the turn, without the system prompt. */
  messages: ChatMessage[];
  systemPrompt: string;
  counters: LearningCounters;
  end: TurnEnd;
  finalReply: string | null;
  /** The intervals from the settings; the defaults (10 and 10) when absent. */
  intervals?: LearningIntervals;
}

export interface LearningNotice {
  id: string;
  sessionId: string;
  text: string;
}

/** How often the curator schedule is checked, and how long after start the first check waits. */
export const CURATOR_CHECK_EVERY_MS = 5 * 60_000;
export const CURATOR_FIRST_CHECK_MS = 15_000;
/** The last user input in the app, kept across reloads: the curator waits for 2 idle hours. */
export const LAST_INPUT_KEY = 'knack.lastInputAt';
const INPUT_WRITE_EVERY_MS = 30_000;

/**
 * Loads the worker client (comlink and the worker chunk) only when a review or curator run
 * needs it, so the chat's first paint does not pay for it.
 */
class LazyWorkerBackend implements ReviewBackend {
  #client: Promise<ReviewWorkerClient> | null = null;

  constructor(private readonly providerSettings: () => ProviderSettings) {}

  client(): Promise<ReviewWorkerClient> {
    this.#client ??= import('../../review/reviewWorkerClient').then(
      ({ ReviewWorkerClient }) =>
        new ReviewWorkerClient(this.providerSettings, async () => {
          const { engineHost } = await import('../../providers/webllm/engineHost');
          return engineHost().connectPort();
        }),
    );
    return this.#client;
  }

  async run(request: ReviewRequest): Promise<ReviewOutcome> {
    return (await this.client()).run(request);
  }

  async cancel(runId: string): Promise<void> {
    if (this.#client) await (await this.#client).cancel(runId);
  }

  reset(): void {
    void this.#client?.then((client) => client.reset());
  }
}

class LearningState {
  /** Chat notices from reviews ("Learned: skill `x` created — unverified"), newest last. */
  notices = $state<LearningNotice[]>([]);
  /** Runs in flight in this tab (reviews and curator), for a quiet indicator. */
  running = $state(0);

  #backend: LazyWorkerBackend | null = null;
  #scheduler: ReviewScheduler | null = null;
  /** Activity writes in order, so a run's "done" never lands before its "running". */
  #writes: Promise<void> = Promise.resolve();
  #lastInputAt: number | null = null;
  #lastInputWritten = 0;

  /** Called when the user sends a message; never blocks the turn. */
  beforeUserTurn(sessionId: string): void {
    this.noteUserInput();
    const scheduler = this.#scheduler;
    if (!scheduler?.isRunning(sessionId)) return;
    // Not awaited: the user's turn starts now; the scheduler resets the worker after 2 s.
    scheduler.cancelForLiveTurn(sessionId).catch((error: unknown) => console.warn('[knack] cancelling a review failed', error));
  }

  /** Called after every turn; returns the counters to persist for the session. */
  afterTurn(report: TurnReport): LearningCounters {
    const decision = decideReview(report.counters, report.intervals ?? this.#intervals(), {
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

  /** Whether a review is running for the session (the chat may show a quiet hint). */
  isReviewing(sessionId: string): boolean {
    return this.#scheduler?.isRunning(sessionId) ?? false;
  }

  dismissNotice = (id: string): void => {
    this.notices = this.notices.filter((notice) => notice.id !== id);
  };

  /** The review model when Settings name one, else the chat's provider (SPEC §12.4). */
  #providerSettings(): ProviderSettings {
    return reviewProviderSettings(settings.current);
  }

  #intervals(): LearningIntervals {
    const current: Partial<LearningIntervals> = settings.current;
    return {
      creationNudgeInterval: current.creationNudgeInterval ?? defaultIntervals.creationNudgeInterval,
      memoryNudgeInterval: current.memoryNudgeInterval ?? defaultIntervals.memoryNudgeInterval,
    };
  }

  #ensureScheduler(): ReviewScheduler {
    this.#backend ??= new LazyWorkerBackend(() => this.#providerSettings());
    this.#scheduler ??= new ReviewScheduler(this.#backend, (record) => this.#onReviewRecord(record));
    return this.#scheduler;
  }

  #startReview(report: TurnReport, kind: ReviewKind): void {
    const provider = this.#providerSettings();
    // Nothing to talk to (no server, or no in-browser model chosen): no review.
    if (provider.kind === 'webgpu' ? provider.model.trim() === '' : provider.baseUrl.trim() === '') return;
    const scheduler = this.#ensureScheduler();
    // A plain copy: the chat's messages may be reactive proxies, which cannot be cloned.
    const sessionMessages = $state.snapshot(report.messages) as ChatMessage[];
    scheduler.schedule({ sessionId: report.sessionId, kind, sessionMessages, systemPrompt: report.systemPrompt }, reviewTrigger(kind, report.counters));
  }

  #onReviewRecord(record: ReviewRecord): void {
    const activity = reviewActivity(record);
    if (record.status === 'running') this.running += 1;
    else this.running = Math.max(0, this.running - 1);
    this.#record(activity);
    if (record.status !== 'running') this.#afterReview(record);
  }

  #afterReview(record: ReviewRecord): void {
    const outcome = record.outcome;
    if (!outcome) return;
    if (record.status === 'done' && outcome.notices.length > 0) {
      this.notices = [...this.notices, ...outcome.notices.map((text, i) => ({ id: `${record.runId}:${i}`, sessionId: record.sessionId, text }))];
    }
    const staged = outcome.toolCalls.some((call) => call.success && /"staged"\s*:\s*true/.test(call.result));
    if (staged) void import('../../app/services').then(({ services }) => services).then((s) => s.changes.publish({ type: 'pending-changed' }));
  }

  #record(activity: ActivityRecord): void {
    this.#writes = this.#writes
      .then(async () => {
        const { activityLog } = await import('../../app/activityServices');
        await (await activityLog()).put(activity);
      })
      .catch((error: unknown) => console.warn('[knack] an activity record could not be saved', error));
  }

  /** Resolves when every activity record so far is stored (tests and the bench wait on it). */
  settled(): Promise<void> {
    return this.#writes;
  }

  // ---- Curator -------------------------------------------------------------------------

  /** Any keypress, click or touch in the app counts as input for the curator's idle rule. */
  noteUserInput = (): void => {
    const now = Date.now();
    this.#lastInputAt = now;
    if (now - this.#lastInputWritten < INPUT_WRITE_EVERY_MS) return;
    this.#lastInputWritten = now;
    try {
      localStorage.setItem(LAST_INPUT_KEY, String(now));
    } catch {
      /* private mode or full: the in-memory value still counts for this tab */
    }
  };

  /** Milliseconds since the last user input in the app (any tab), Infinity if there was none. */
  idleMs(now = Date.now()): number {
    let last = this.#lastInputAt;
    try {
      const stored = Number(localStorage.getItem(LAST_INPUT_KEY));
      if (Number.isFinite(stored) && stored > 0) last = Math.max(last ?? 0, stored);
    } catch {
      /* unreadable: use this tab's value */
    }
    return last === null ? Infinity : Math.max(0, now - last);
  }

  /**
   * Starts the curator schedule for this tab: a check shortly after start and every few
   * minutes. The check itself is cheap (one record read); the worker starts only for a run.
   * Returns the function that stops it.
   */
  startCurator(): () => void {
    const onInput = () => this.noteUserInput();
    const options = { capture: true, passive: true } as const;
    addEventListener('keydown', onInput, options);
    addEventListener('pointerdown', onInput, options);
    const check = () => void this.checkCurator();
    const first = setTimeout(check, CURATOR_FIRST_CHECK_MS);
    const every = setInterval(check, CURATOR_CHECK_EVERY_MS);
    return () => {
      removeEventListener('keydown', onInput, options);
      removeEventListener('pointerdown', onInput, options);
      clearTimeout(first);
      clearInterval(every);
    };
  }

  /**
   * One schedule check (`maybeRunCurator` semantics): the first check only starts the clock;
   * then a run at most every 7 days, after 2 idle hours. Returns the recorded run, or null.
   */
  async checkCurator(): Promise<CuratorActivity | null> {
    try {
      const [{ services }, { curatorStateStore }, { emptyCuratorState, scheduleDecision }] = await Promise.all([
        import('../../app/services'),
        import('../../curator/curatorStateStore'),
        import('../../curator/curatorRules'),
      ]);
      const idle = this.idleMs();
      const store = curatorStateStore((await services).records('settings'));
      const decision = scheduleDecision((await store.get('curator')) ?? emptyCuratorState(), new Date(), idle);
      if (decision.seedState) await store.put('curator', decision.seedState);
      if (!decision.run) return null;
      // The worker decides again under a lock, so two tabs never both run it.
      return await this.#curatorRun('scheduled', (client) => client.maybeRunCurator(idle));
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
    const activity = await this.#curatorRun(options.dryRun ? 'dry-run' : 'manual', (client) => client.runCurator({ dryRun: options.dryRun, ...now }));
    return activity!; // only a scheduled check can come back without a run
  }

  async #curatorRun(mode: CuratorMode, call: (client: ReviewWorkerClient) => Promise<CuratorRun | null>): Promise<CuratorActivity | null> {
    this.#backend ??= new LazyWorkerBackend(() => this.#providerSettings());
    const base = { id: crypto.randomUUID(), mode, startedAt: Date.now() };
    // A scheduled run is recorded only once the worker has actually run it.
    if (mode !== 'scheduled') this.#record(curatorActivity(base, null));
    this.running += 1;
    let activity: CuratorActivity | null = null;
    try {
      const run = await call(await this.#backend.client());
      if (run) activity = curatorActivity(base, { run, endedAt: Date.now() });
    } catch (error) {
      activity = curatorActivity(base, { error: error instanceof Error ? error.message : String(error), endedAt: Date.now() });
    } finally {
      this.running = Math.max(0, this.running - 1);
    }
    if (activity) this.#record(activity);
    return activity;
  }
}

export const learning = new LearningState();
