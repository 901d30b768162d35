import * as Comlink from 'comlink';
import type { ReviewJob, ReviewWorkerApi } from '../../workers/review.worker';
import type { ProviderSettings } from '../providers/createProvider';
import type { ReviewOutcome } from './reviewRun';
import type { ReviewBackend, ReviewRequest } from './reviewScheduler';
import type { CuratorRun } from '../curator/curator';

/**
 * The UI side of the review worker: a ReviewBackend for the scheduler. `reset` terminates the
 * worker (the hard stop when a cancel is not acknowledged) and rejects what was pending, since
 * comlink never settles calls into a terminated worker.
 */
export class ReviewWorkerClient implements ReviewBackend {
  private worker: Worker | null = null;
  private api: Comlink.Remote<ReviewWorkerApi> | null = null;
  private pending = new Set<(reason: Error) => void>();

  constructor(
    /** The provider settings for reviews (the review model, or the chat's). */
    private readonly providerSettings: () => ProviderSettings,
    /** A port to the tab's web-llm engine, when the in-browser provider is in use. */
    private readonly enginePort?: () => Promise<MessagePort | null>,
  ) {}

  private async remote(): Promise<Comlink.Remote<ReviewWorkerApi>> {
    if (!this.api) {
      this.worker = new Worker(new URL('../../workers/review.worker.ts', import.meta.url), { type: 'module', name: 'knack-review' });
      this.api = Comlink.wrap<ReviewWorkerApi>(this.worker);
      const port = this.providerSettings().kind === 'webgpu' ? await this.enginePort?.() : null;
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
    const job: ReviewJob = { ...request, provider: this.providerSettings() };
    return this.guarded((api) => api.runReview(job));
  }

  async cancel(runId: string): Promise<void> {
    if (this.api) await this.api.cancel(runId);
  }

  runCurator(options: { dryRun: boolean; now?: string }): Promise<CuratorRun> {
    return this.guarded((api) => api.runCurator(options));
  }

  maybeRunCurator(idleMs: number): Promise<CuratorRun | null> {
    return this.guarded((api) => api.maybeRunCurator(idleMs));
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
