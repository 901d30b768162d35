/**
 * The review worker's contract: what the tab may ask of it. `workers/review.worker.ts` exposes
 * an implementation over comlink (`satisfies ReviewWorkerApi`); `createReviewWorkerHandler`
 * (src/app/reviewWorkerHandler.ts) builds the same implementation in any thread, so unit tests
 * drive it without a worker, and `ReviewWorkerClient` wraps this interface on the tab's side.
 *
 * Every job carries only what is particular to it (the session's messages, a run id). Provider
 * and settings come from the worker's own settings service, which reads the same records.
 */
import type { AgentEvent } from '../agent/agentLoop';
import type { CuratorRun } from '../curator/curator';
import type { ReviewOutcome } from './reviewRun';
import type { ReviewRequest } from './reviewScheduler';
import type { GateJob } from '../gate/gateJob';
import type { GateProgress, VerdictRecord } from '../gate/types';
import type { CheckDraft } from '../gate/checkDraft';
import type { SummaryJob, SummaryOutcome } from '../sessions/sessionSummary';
import type { ConsolidationJob, ConsolidationOutcome } from '../memory/memoryConsolidation';
import type { TwinMergeJob, TwinMergeOutcome } from './twinMerge';

export type { GateJob } from '../gate/gateJob';

/**
 * How a gate job ended. `done`: the record is stored in `verdicts`; `applied` when its hashes
 * still match the skill's files (then the usage record, the ledger (actor gate) and the index
 * follow it), `superseded` when the skill or its cases changed during the run.
 */
export type GateJobOutcome =
  | { kind: 'done'; record: VerdictRecord; applied: boolean; superseded: boolean; verdictChanged: boolean; requests: number; cacheHits: number }
  | { kind: 'cancelled'; pairsDone: number; pairsTotal: number }
  | { kind: 'failed'; error: string };

/** One background review (docs/learning-loop.md). */
export type ReviewJob = ReviewRequest;

/** Checks for a case added from a chat (docs/gate.md, "Independent cases"). */
export interface CheckDraftJob {
  runId: string;
  skill: string;
  /** The user's request the case replays. */
  prompt: string;
}

export interface CuratorRunOptions {
  dryRun: boolean;
  /** Run as if at this time (an ISO string): a preview of a later run, and tests. */
  now?: string;
}

export interface ReviewWorkerApi {
  /** Hands the worker a port to the tab's web-llm engine (see providers/webllm/engineHost.ts). */
  connectEngine(port: MessagePort): Promise<void>;

  /** Runs one review with the review provider from the settings; resolves 'stopped' when cancelled. */
  runReview(job: ReviewJob, onEvent?: (event: AgentEvent) => void): Promise<ReviewOutcome>;

  /**
   * Stops the run with this id at its next await; resolves at once (the run itself resolves as
   * stopped). Shared by every job kind that carries a run id.
   */
  cancel(runId: string): Promise<void>;

  /** A curator run on request (manual or dry run). */
  runCurator(options: CuratorRunOptions): Promise<CuratorRun>;

  /**
   * The scheduled curator: every 7 days, after `idleMs` without user input, never in the first
   * interval. One context at a time: a lock makes a second tab find the run already done.
   */
  maybeRunCurator(idleMs: number): Promise<CuratorRun | null>;

  /** Resolves once storage and the catalogue are open, with the catalogue's size (tests wait on it). */
  ping(): Promise<number>;

  /**
   * One verification run of a skill with the gate provider from the settings (docs/gate.md).
   * `cancel(job.runId)` stops it within the pool's abort; a cancelled run writes no verdict.
   */
  runGate(job: GateJob, onProgress?: (progress: GateProgress) => void): Promise<GateJobOutcome>;

  /**
   * The review model drafts the checks of a case from the skill and the request: one request
   * fitted to its window; a failure comes back as `success: false`, never as a throw.
   */
  draftChecks(job: CheckDraftJob): Promise<CheckDraft>;

  /**
   * The background model summarises past sessions for a `session_search` query (docs/chat.md,
   * "Session search that answers"): one request per session, each fitted to its window. Never throws: a
   * session that fails comes back with its error, and the tool shows its snippets.
   */
  summariseSessions(job: SummaryJob): Promise<SummaryOutcome>;

  /**
   * The review's extra task when a memory file passed 80 % of its limit (docs/learning-loop.md,
   * "Memory consolidation"): one request to the review model, checked mechanically, written only
   * if no fact is lost. Never throws.
   */
  consolidateMemory(job: ConsolidationJob): Promise<ConsolidationOutcome>;

  /**
   * Two twin skills merged on evidence (docs/learning-loop.md, "Possible duplicates"): the review model
   * writes one skill, the gate measures it on both skills' cases and each original on its own.
   * Writes nothing; an offered merge is applied by the tab. Never throws.
   */
  mergeTwins(job: TwinMergeJob): Promise<TwinMergeOutcome>;
}
