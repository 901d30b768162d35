/**
 * The review worker (SPEC §2, §8.2): background reviews and curator runs, off the UI thread.
 * Exposed with comlink. It opens the same OPFS/IndexedDB storage as the tab (the tab already
 * ran recovery), builds its own skill catalogue and memory store, and reaches the model
 * through the same provider layer: direct HTTP, or the tab's one web-llm engine over a
 * MessagePort (`connectEngine`), so a model is never loaded twice.
 */
import * as Comlink from 'comlink';
import { openStorage } from '../src/app/openStorage';
import { createSkillServices, type SkillServices } from '../src/app/skillServices';
import { createMemoryServices } from '../src/app/memoryServices';
import { createProvider, type ProviderSettings } from '../src/providers/createProvider';
import type { EngineAccess } from '../src/providers/webllm/engine';
import { ToolRegistry } from '../src/tools/toolRegistry';
import { runReview, type ReviewOutcome } from '../src/review/reviewRun';
import type { ReviewRequest } from '../src/review/reviewScheduler';
import { maybeRunCurator, runCurator, type CuratorRun } from '../src/curator/curator';
import { curatorStateStore } from '../src/curator/curatorStateStore';
import type { KnackServices } from '../src/app/services';
import type { AgentEvent } from '../src/agent/agentLoop';

interface WorkerContext {
  services: KnackServices;
  skills: SkillServices;
  registry: ToolRegistry;
}

let context: Promise<WorkerContext> | null = null;
let engineAccess: EngineAccess | null = null;
const running = new Map<string, AbortController>();

function ready(): Promise<WorkerContext> {
  context ??= (async () => {
    const services = await openStorage({ recover: false });
    const [skills, memory] = await Promise.all([createSkillServices(services), createMemoryServices(services)]);
    const registry = new ToolRegistry([memory.tool, ...skills.registry.definitions()]);
    return { services, skills, registry };
  })();
  return context;
}

export interface ReviewJob extends ReviewRequest {
  provider: ProviderSettings;
}

const api = {
  /** Hands the worker a port to the tab's web-llm engine (see providers/webllm/engineHost.ts). */
  async connectEngine(port: MessagePort): Promise<void> {
    const { connectRemoteEngine } = await import('../src/providers/webllm/remoteEngine');
    engineAccess = connectRemoteEngine(port);
  },

  async runReview(job: ReviewJob, onEvent?: (event: AgentEvent) => void): Promise<ReviewOutcome> {
    const controller = new AbortController();
    running.set(job.runId, controller);
    try {
      const { registry } = await ready();
      if (controller.signal.aborted) {
        return { kind: job.kind, end: 'stopped', finalText: null, toolCalls: [], notices: [], modelCalls: 0 };
      }
      const provider = await createProvider(job.provider, {
        engineAccess: engineAccess ? () => engineAccess! : undefined,
      });
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

  /** Stops a run at its next await; resolves at once (the run itself resolves as 'stopped'). */
  async cancel(runId: string): Promise<void> {
    running.get(runId)?.abort();
  },

  async runCurator(options: { dryRun: boolean; now?: string }): Promise<CuratorRun> {
    const { skills } = await ready();
    return runCurator(skills.engine, { dryRun: options.dryRun, ...(options.now ? { now: new Date(options.now) } : {}) });
  },

  /**
   * The scheduled curator (every 7 days, after `idleMs` without user input, never in the first
   * interval). One context at a time: the lock makes a second tab find the run already done.
   */
  async maybeRunCurator(idleMs: number): Promise<CuratorRun | null> {
    const { services, skills } = await ready();
    return services.locks.withLock('curator-schedule', () => maybeRunCurator(skills.engine, curatorStateStore(services.records('settings')), idleMs));
  },

  /** Resolves once storage and the catalogue are open (tests wait on it). */
  async ping(): Promise<number> {
    const { skills } = await ready();
    return skills.engine.catalog.size;
  },
};

export type ReviewWorkerApi = typeof api;

Comlink.expose(api);
