import * as Comlink from 'comlink';
import type { CheckDraftJob, CuratorRunOptions, GateJob, GateJobOutcome, ReviewWorkerApi } from './reviewWorkerApi';
import type { CheckDraft } from '../gate/checkDraft';
import type { SummaryJob, SummaryOutcome } from '../sessions/sessionSummary';
import type { ConsolidationJob, ConsolidationOutcome } from '../memory/memoryConsolidation';
import type { TwinMergeJob, TwinMergeOutcome } from './twinMerge';
import { workerName } from '../providers/requestCounter';
import type { GateProgress } from '../gate/types';
import type { ReviewOutcome } from './reviewRun';
import type { ReviewRequest } from './reviewScheduler';
import type { LearningBackend } from './learningLoop';
import type { CuratorRun } from '../curator/curator';

/**
 * The UI side of the review worker (its contract is ReviewWorkerApi): the learning loop's
 * backend. `reset` terminates the worker (the hard stop when a cancel is not acknowledged) and
 * rejects what was pending, since comlink never settles calls into a terminated worker.
 */
export class ReviewWorkerClient implements LearningBackend {
  private worker: Worker | null = null;
  private api: Comlink.Remote<ReviewWorkerApi> | null = null;
  private pending = new Set<(reason: Error) => void>();

  constructor(
    /** Whether reviews use the in-browser model, so the worker needs the tab's engine. */
    private readonly usesEngine: () => boolean,
    /**
     * A port to the tab's web-llm engine, when the in-browser provider is in use. Asked for with
     * background priority: reviews and gate replays wait while the chat generates.
     */
    private readonly enginePort?: (priority: 'background') => Promise<MessagePort | null>,
  ) {}

  private async remote(): Promise<Comlink.Remote<ReviewWorkerApi>> {
    if (!this.api) {
      this.worker = new Worker(new URL('../../workers/review.worker.ts', import.meta.url), { type: 'module', name: workerName('knack-review') });
      this.api = Comlink.wrap<ReviewWorkerApi>(this.worker);
      const port = this.usesEngine() ? await this.enginePort?.('background') : null;
      if (port) await this.api.connectEngine(Comlink.transfer(port, [port]));
    }
    return this.api;
  }

  /** Runs `call` and rejects it if the worker is reset before it settles. */
  private async guarded<T>(call: (api: Comlink.Remote<ReviewWorkerApi>) => Promise<T>): Promise<T> {
    const api = await this.remote();
    return new Promise<T>((resolve, reject) => {
      const abandon = (reason: Error) => reject(reason);
      this.pending.add(abandon);
      call(api).then(resolve, reject).finally(() => this.pending.delete(abandon));
    });
  }

  run(request: ReviewRequest): Promise<ReviewOutcome> {
    return this.guarded((api) => api.runReview(request));
  }

  async cancel(runId: string): Promise<void> {
    if (this.api) await this.api.cancel(runId);
  }

  runCurator(options: CuratorRunOptions): Promise<CuratorRun> {
    return this.guarded((api) => api.runCurator(options));
  }

  maybeRunCurator(idleMs: number): Promise<CuratorRun | null> {
    return this.guarded((api) => api.maybeRunCurator(idleMs));
  }

  /** One verification run in the worker; progress comes back through a comlink proxy. */
  runGate(job: GateJob, onProgress?: (progress: GateProgress) => void): Promise<GateJobOutcome> {
    // Comlink distributes its Remote type over the union; the value is the same outcome.
    return this.guarded((api) => api.runGate(job, onProgress ? Comlink.proxy(onProgress) : undefined) as Promise<GateJobOutcome>);
  }

  draftChecks(job: CheckDraftJob): Promise<CheckDraft> {
    // Comlink distributes its Remote type over the union; the value is the same draft.
    return this.guarded((api) => api.draftChecks(job) as Promise<CheckDraft>);
  }

  summariseSessions(job: SummaryJob): Promise<SummaryOutcome> {
    // Comlink distributes its Remote type over the union; the value is the same outcome.
    return this.guarded((api) => api.summariseSessions(job) as Promise<SummaryOutcome>);
  }

  consolidateMemory(job: ConsolidationJob): Promise<ConsolidationOutcome> {
    // Comlink distributes its Remote type over the union; the value is the same outcome.
    return this.guarded((api) => api.consolidateMemory(job) as Promise<ConsolidationOutcome>);
  }

  mergeTwins(job: TwinMergeJob): Promise<TwinMergeOutcome> {
    // Comlink distributes its Remote type over the union; the value is the same outcome.
    return this.guarded((api) => api.mergeTwins(job) as Promise<TwinMergeOutcome>);
  }

  ping(): Promise<number> {
    return this.guarded((api) => api.ping());
  }

  reset(): void {
    this.worker?.terminate();
    this.worker = null;
    this.api = null;
    for (const abandon of this.pending) abandon(new Error('The review was stopped because a new message arrived.'));
    this.pending.clear();
  }
}
