/**
 * The chat's view of the learning loop (src/review/learningLoop.ts, wired in
 * app/tabLearning.ts): rune state for the chat notices and the quiet "running" indicator, and
 * the DOM input listeners that feed the curator's idle clock. Scheduling, the worker, activity
 * records and the curator schedule live in the loop; this module only delegates. The same goes
 * for the gate: runs, their triggers and the permission question live in the loop
 * (review/gateRuns.ts); here is only what the views show of them.
 */
import type { TwinMergeOutcome } from '../../review/twinMerge';
import type { LearningCounters } from '../../agent/learningCounters';
import { appServices } from '../../app/services';
import { IdleClock, type LearningLoop, type LearningNotice, type TurnReport } from '../../review/learningLoop';
import type { CuratorActivity, GateActivity, GateTrigger } from '../../review/activity';
import type { GateProgress } from '../../gate/types';
import type { CheckDraft } from '../../gate/checkDraft';
import type { PermissionRequest } from '../../review/gateRuns';

export type { LearningNotice, TurnReport } from '../../review/learningLoop';

/** How often the curator schedule is checked, and how long after start the first check waits. */
export const CURATOR_CHECK_EVERY_MS = 5 * 60_000;
export const CURATOR_FIRST_CHECK_MS = 15_000;
/** The last user input in the app, kept across reloads: the curator waits for 2 idle hours. */
export const LAST_INPUT_KEY = 'knack.lastInputAt';

/** The idle clock's copy shared by the tabs; private mode or a full store just keep this tab's. */
const sharedInputTime = {
  read(): number | null {
    try {
      const stored = Number(localStorage.getItem(LAST_INPUT_KEY));
      return Number.isFinite(stored) && stored > 0 ? stored : null;
    } catch {
      return null;
    }
  },
  write(at: number): void {
    try {
      localStorage.setItem(LAST_INPUT_KEY, String(at));
    } catch {
      /* the in-memory value still counts for this tab */
    }
  },
};

class LearningState {
  /** Chat notices from reviews ("Learned: skill `x` created — unverified"), newest last. */
  notices = $state<LearningNotice[]>([]);
  /** Runs in flight in this tab (reviews and curator), for a quiet indicator. */
  running = $state(0);
  /** Progress of the gate runs in flight, by skill name. */
  gateProgress = $state<Record<string, GateProgress>>({});
  /** Skills with a gate run in flight. */
  verifying = $state<string[]>([]);
  /** The one-time question before automatic verification talks to a non-local host. */
  permissionRequest = $state<PermissionRequest | null>(null);

  readonly #idle = new IdleClock(sharedInputTime);
  #loop: LearningLoop | null = null;
  #starting: Promise<LearningLoop> | null = null;
  /** Whether the chat is generating (handed to the loop once it exists). */
  #generating = false;

  #ready(): Promise<LearningLoop> {
    this.#starting ??= Promise.all([appServices(), import('../../app/tabLearning')]).then(([app, { createTabLearningLoop }]) => {
      const loop = createTabLearningLoop(app, { idle: this.#idle, onUpdate: () => this.#mirror(loop) });
      this.#loop = loop;
      loop.onGateProgress((skill, progress) => this.#mirrorProgress(skill, progress));
      loop.noteGeneration(this.#generating);
      return loop;
    });
    this.#starting.catch(() => (this.#starting = null));
    return this.#starting;
  }

  #mirror(loop: LearningLoop): void {
    this.notices = loop.notices;
    this.running = loop.running;
    this.verifying = loop.verifying();
    this.permissionRequest = loop.pendingPermission;
  }

  #mirrorProgress(skill: string, progress: GateProgress | null): void {
    const { [skill]: _ended, ...others } = this.gateProgress;
    this.gateProgress = progress ? { ...others, [skill]: progress } : others;
  }

  /** The chat calls this when a turn starts and ends: automatic gate runs wait for it. */
  noteGeneration(active: boolean): void {
    this.#generating = active;
    this.#loop?.noteGeneration(active);
  }

  /** A gate run of the skill now (the Verify button); resolves with its activity record. */
  async verify(name: string, options: { useCache?: boolean; trigger?: GateTrigger; model?: { providerId: string; model: string } } = {}): Promise<GateActivity> {
    return (await this.#ready()).verify(name, options);
  }

  /** Stops the skill's gate run (no verdict is written). */
  async stopVerify(name: string): Promise<void> {
    await this.#loop?.cancelVerify(name);
  }

  /** The user allowed automatic verification against this host. */
  async allowAutomatic(host: string): Promise<void> {
    await (await this.#ready()).allowAutomatic(host);
  }

  /** The user declined: nothing is asked again for that host in this tab. */
  declineAutomatic(): void {
    if (this.#loop) this.#loop.declineAutomatic();
    else this.permissionRequest = null;
  }

  /** Called when the user sends a message; never blocks the turn. */
  beforeUserTurn(sessionId: string): void {
    this.noteUserInput();
    this.#loop?.beforeUserTurn(sessionId);
  }

  /** Called after every turn; returns the counters to persist for the session. */
  afterTurn(report: TurnReport): LearningCounters | Promise<LearningCounters> {
    // Passed as it is: `messages` is built on first read, only when a review is scheduled, and
    // the loop then copies a bounded transcript into plain data (src/review/reviewTranscript.ts).
    return this.#loop ? this.#loop.afterTurn(report) : this.#ready().then((loop) => loop.afterTurn(report));
  }

  /** Whether a review is running for the session (the chat may show a quiet hint). */
  isReviewing(sessionId: string): boolean {
    return this.#loop?.isReviewing(sessionId) ?? false;
  }

  dismissNotice = (id: string): void => {
    if (this.#loop) this.#loop.dismissNotice(id);
    else this.notices = this.notices.filter((notice) => notice.id !== id);
  };

  /** Resolves when every activity record so far is stored (tests and the bench wait on it). */
  settled(): Promise<void> {
    return this.#loop?.settled() ?? Promise.resolve();
  }

  /** Any keypress, click or touch in the app counts as input for the curator's idle rule. */
  noteUserInput = (): void => {
    this.#idle.noteInput(Date.now());
  };

  /** Milliseconds since the last user input in the app (any tab), Infinity if there was none. */
  idleMs(now = Date.now()): number {
    return this.#idle.idleMs(now);
  }

  /**
   * Starts this tab's learning loop and its curator schedule: the input listeners, a check
   * shortly after start and every few minutes. Returns the function that stops it.
   */
  startCurator(): () => void {
    // The loop subscribes to skill changes when it is made: made now, a write in the first
    // seconds (an import, a chat's skill_manage) still queues its gate run (docs/gate.md, "Triggers").
    this.#ready().catch((error: unknown) => console.warn('[knack] the learning loop could not start', error));
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

  /** Whether an automatic gate run of the skill is queued in this tab (false before the loop exists). */
  isGatePending(skill: string): boolean {
    return this.#loop?.isGatePending(skill) ?? false;
  }

  /** One schedule check; returns the recorded run, or null (see LearningLoop.checkCurator). */
  async checkCurator(): Promise<CuratorActivity | null> {
    try {
      return await (await this.#ready()).checkCurator();
    } catch (error) {
      console.warn('[knack] the curator check failed', error);
      return null;
    }
  }

  /** The review model drafts a case's checks from the skill and the request (never throws). */
  async draftChecks(skill: string, prompt: string): Promise<CheckDraft> {
    try {
      return await (await this.#ready()).draftChecks(skill, prompt);
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** Two twin skills merged on evidence in the review worker (review/twinMerge.ts); writes nothing (never throws). */
  async mergeTwins(a: string, b: string): Promise<TwinMergeOutcome> {
    try {
      return await (await this.#ready()).mergeTwins(a, b);
    } catch (error) {
      return { kind: 'refused', reason: error instanceof Error ? error.message : String(error), requests: 0 };
    }
  }

  /** A curator run on request (a dry run reports without changing anything). */
  async runCurator(options: { dryRun: boolean; now?: Date }): Promise<CuratorActivity> {
    return (await this.#ready()).runCurator(options);
  }
}

export const learning = new LearningState();
