import type { ReviewKind } from '../agent/learningCounters';
import type { ChatMessage } from '../providers/provider';
import type { ReviewOutcome } from './reviewRun';

/**
 * Schedules background reviews from the UI thread (docs/learning-loop.md): at most one in flight per
 * session; a new user message cancels the running review and never waits for it longer than
 * the 2-second grace; a failing review is recorded and never reaches the chat as an error.
 */
export interface ReviewRequest {
  runId: string;
  sessionId: string;
  kind: ReviewKind;
  /** A copy of the session's messages: the review never sees later changes. */
  sessionMessages: ChatMessage[];
  systemPrompt: string;
}

/** Where reviews run: the review worker in the app, an in-process stand-in in unit tests. */
export interface ReviewBackend {
  run(request: ReviewRequest): Promise<ReviewOutcome>;
  /** Asks the run to stop; resolves when the worker acknowledged. */
  cancel(runId: string): Promise<void>;
  /** Hard stop when a cancel is not acknowledged in time (terminate and restart the worker). */
  reset(): void;
}

export type ReviewStatus = 'running' | 'done' | 'cancelled' | 'failed';

export interface ReviewRecord {
  runId: string;
  sessionId: string;
  kind: ReviewKind;
  trigger: string;
  status: ReviewStatus;
  startedAt: number;
  endedAt?: number;
  outcome?: ReviewOutcome;
  error?: string;
}

export const CANCEL_GRACE_MS = 2000;

export class ReviewScheduler {
  private running = new Map<string, { record: ReviewRecord; done: Promise<void> }>();

  constructor(
    private readonly backend: ReviewBackend,
    private readonly onRecord: (record: ReviewRecord) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  isRunning(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  /** Starts a review unless one is already running for the session; returns its record or null. */
  schedule(request: Omit<ReviewRequest, 'runId'>, trigger: string): ReviewRecord | null {
    if (this.running.has(request.sessionId)) return null;
    const record: ReviewRecord = {
      runId: crypto.randomUUID(),
      sessionId: request.sessionId,
      kind: request.kind,
      trigger,
      status: 'running',
      startedAt: this.now(),
    };
    this.onRecord({ ...record });
    const done = this.backend
      .run({ ...request, runId: record.runId, sessionMessages: structuredClone(request.sessionMessages) })
      .then(
        (outcome) => {
          record.outcome = outcome;
          record.status = record.status === 'cancelled' || outcome.end === 'stopped' ? 'cancelled' : outcome.end === 'error' ? 'failed' : 'done';
          if (outcome.error) record.error = outcome.error;
        },
        (error: unknown) => {
          if (record.status !== 'cancelled') record.status = 'failed';
          record.error = error instanceof Error ? error.message : String(error);
        },
      )
      .finally(() => {
        record.endedAt = this.now();
        if (this.running.get(request.sessionId)?.record === record) this.running.delete(request.sessionId);
        this.onRecord({ ...record });
      });
    this.running.set(request.sessionId, { record, done });
    return record;
  }

  /**
   * Called when the user sends a message: the running review for the session is cancelled.
   * Resolves once it stopped or the grace period ran out (then the worker is reset). Callers
   * do not await this before starting the user's turn.
   */
  async cancelForLiveTurn(sessionId: string): Promise<void> {
    const entry = this.running.get(sessionId);
    if (!entry) return;
    entry.record.status = 'cancelled';
    this.running.delete(sessionId);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), CANCEL_GRACE_MS);
    });
    const acknowledged = Promise.all([this.backend.cancel(entry.record.runId), entry.done]).then(() => 'ok' as const);
    const result = await Promise.race([acknowledged, timedOut]).catch(() => 'ok' as const);
    clearTimeout(timer);
    if (result === 'timeout') this.backend.reset();
  }
}
