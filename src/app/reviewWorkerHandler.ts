/**
 * The review worker's implementation of ReviewWorkerApi, built from a context's app services.
 * `workers/review.worker.ts` exposes it over comlink; unit tests call it directly on in-memory
 * storage. The provider comes from the context's settings service, re-read at the start of
 * every review, so a change saved in the tab a moment ago applies.
 */
import type { ChatProvider } from '../providers/provider';
import type { ProviderSettings } from '../providers/createProvider';
import type { EngineAccess } from '../providers/webllm/engine';
import type { ReviewWorkerApi } from '../review/reviewWorkerApi';
import type { ReviewOutcome } from '../review/reviewRun';
import { reviewProviderSettings } from './appSettings';
import type { AppServices } from './appServices';

export interface ReviewWorkerHandlerOptions {
  /** Builds the provider for a review; the default is the app's provider factory. */
  createProvider?(settings: ProviderSettings, engineAccess: EngineAccess | null): Promise<ChatProvider>;
  /** Connects to the tab's web-llm engine through a port; the default is the remote engine. */
  connectEngine?(port: MessagePort): Promise<EngineAccess>;
}

async function defaultProvider(settings: ProviderSettings, engineAccess: EngineAccess | null): Promise<ChatProvider> {
  const { createProvider } = await import('../providers/createProvider');
  return createProvider(settings, { engineAccess: engineAccess ? () => engineAccess : undefined });
}

async function defaultConnectEngine(port: MessagePort): Promise<EngineAccess> {
  const { connectRemoteEngine } = await import('../providers/webllm/remoteEngine');
  return connectRemoteEngine(port);
}

export function createReviewWorkerHandler(app: () => Promise<AppServices>, options: ReviewWorkerHandlerOptions = {}): ReviewWorkerApi {
  let engineAccess: EngineAccess | null = null;
  const running = new Map<string, AbortController>();
  const stopped = (kind: ReviewOutcome['kind']): ReviewOutcome => ({ kind, end: 'stopped', finalText: null, toolCalls: [], notices: [], modelCalls: 0 });

  return {
    async connectEngine(port) {
      engineAccess = await (options.connectEngine ?? defaultConnectEngine)(port);
    },

    async runReview(job, onEvent) {
      const controller = new AbortController();
      running.set(job.runId, controller);
      try {
        const services = await app();
        const [registry, appSettings] = await Promise.all([services.tools(), services.settings.read('app')]);
        if (controller.signal.aborted) return stopped(job.kind);
        const provider = await (options.createProvider ?? defaultProvider)(reviewProviderSettings(appSettings), engineAccess);
        const { runReview } = await import('../review/reviewRun');
        return await runReview({
          provider,
          tools: registry,
          kind: job.kind,
          sessionMessages: job.sessionMessages,
          systemPrompt: job.systemPrompt,
          sessionId: job.sessionId,
          signal: controller.signal,
          onEvent: onEvent ? (event) => void onEvent(event) : undefined,
        });
      } finally {
        running.delete(job.runId);
      }
    },

    async cancel(runId) {
      running.get(runId)?.abort();
    },

    async runCurator(curatorOptions) {
      const [{ runCurator }, skills] = await Promise.all([import('../curator/curator'), (await app()).skills()]);
      return runCurator(skills.engine, { dryRun: curatorOptions.dryRun, ...(curatorOptions.now ? { now: new Date(curatorOptions.now) } : {}) });
    },

    async maybeRunCurator(idleMs) {
      const services = await app();
      const [{ maybeRunCurator }, skills] = await Promise.all([import('../curator/curator'), services.skills()]);
      const state = { get: () => services.curatorState.read(), put: (_key: string, value: Parameters<typeof services.curatorState.write>[0]) => services.curatorState.write(value) };
      return services.storage.locks.withLock('curator-schedule', () => maybeRunCurator(skills.engine, state, idleMs));
    },

    // Wired to runGateJob (src/gate/gateJob.ts) in the next step; until then every run fails clearly.
    async runGate() {
      return { kind: 'failed', error: 'Verification is not available in this build yet.' };
    },

    async ping() {
      const skills = await (await app()).skills();
      return skills.engine.catalog.size;
    },
  };
}
