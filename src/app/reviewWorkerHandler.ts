/**
 * The review worker's implementation of ReviewWorkerApi, built from a context's app services.
 * `workers/review.worker.ts` exposes it over comlink; unit tests call it directly on in-memory
 * storage. The provider comes from the context's settings service, re-read at the start of
 * every review, so a change saved in the tab a moment ago applies.
 */
import type { ChatProvider } from '../providers/provider';
import type { ProviderSettings } from '../providers/createProvider';
import type { EngineAccess } from '../providers/webllm/engine';
import type { CheckDraftJob, GateJob, GateJobOutcome, ReviewWorkerApi } from '../review/reviewWorkerApi';
import type { CheckDraft } from '../gate/checkDraft';
import type { SummaryJob, SummaryOutcome } from '../sessions/sessionSummary';
import type { ConsolidationJob, ConsolidationOutcome } from '../memory/memoryConsolidation';
import type { TwinMergeJob, TwinMergeOutcome } from '../review/twinMerge';
import type { ReviewOutcome } from '../review/reviewRun';
import type { RegexRunner } from '../gate/checks';
import type { GateProgress } from '../gate/types';
import type { ParamMemory } from '../gate/replayArm';
import type { GateJobServices } from '../gate/gateJob';
import type { PreviousVersion } from '../gate/vsPrevious';
import type { SkillServices } from './skillServices';
import { reviewProviderSettings, type KnackSettings } from './appSettings';
import { modelKeyFor, requestFitsFor } from './chatContexts';
import type { ModelWindow, TokenCounter } from '../providers/modelWindow';
import { resolveChatModel } from './chatModels';
import { reachServicesFor } from './reachServices';
import type { GateSettings } from '../gate/gateSettings';
import type { AppServices } from './appServices';
import { gateNoiseKey, gateProviderSettings, recordGateRun } from './settings';

export interface ReviewWorkerHandlerOptions {
  /** Builds the provider for a review; the default is the app's provider factory. */
  createProvider?(settings: ProviderSettings, engineAccess: EngineAccess | null): Promise<ChatProvider>;
  /** Connects to the tab's web-llm engine through a port; the default is the remote engine. */
  connectEngine?(port: MessagePort): Promise<EngineAccess>;
  /** Runs the gate's regex checks; the default is a nested worker under a watchdog (gate/workerRegexRunner.ts). */
  regexRunner?: RegexRunner;
  /** The gate's clock, random source and sleep, for tests (real ones by default). */
  gateTiming?: Pick<GateJobServices, 'clock' | 'random' | 'sleep'>;
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
  let gate: GateWorkerState | null = null;
  const providerFor = (settings: ProviderSettings) => (options.createProvider ?? defaultProvider)(settings, engineAccess);
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
        const reviewSettings = reviewProviderSettings(appSettings);
        const provider = await (options.createProvider ?? defaultProvider)(reviewSettings, engineAccess);
        const [{ runReview }, window] = await Promise.all([import('../review/reviewRun'), windowOf(services, appSettings, reviewSettings)]);
        return await runReview({
          window,
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

    async runGate(job, onProgress) {
      const controller = new AbortController();
      running.set(job.runId, controller);
      try {
        gate ??= await gateWorkerState(options);
        return await runGateInWorker(await app(), job, { ...gate, engineAccess, signal: controller.signal, onProgress, options });
      } catch (error) {
        return { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
      } finally {
        running.delete(job.runId);
      }
    },

    draftChecks: runningJob(running, async (job, signal) => draftChecksInWorker(await app(), job, providerFor, signal), (_job, error) => ({ success: false, error })),

    summariseSessions: runningJob(running, (job, signal) => app().then((services) => summariseInWorker(services, job, providerFor, signal)), (_job, reason) => ({ kind: 'unavailable', reason })),

    consolidateMemory: runningJob(
      running,
      (job, signal) => app().then((services) => consolidateInWorker(services, job, providerFor, signal)),
      (job, reason) => ({ kind: 'refused', target: job.target, reason, requests: 0 }),
    ),

    mergeTwins: runningJob(
      running,
      async (job, signal) => mergeTwinsInWorker(await app(), job, { ...(gate ??= await gateWorkerState(options)), engineAccess, signal, options }),
      (_job, reason) => ({ kind: 'refused', reason, requests: 0 }),
    ),

    async ping() {
      const skills = await (await app()).skills();
      return skills.engine.catalog.size;
    },
  };
}

/**
 * A job that can be cancelled by its run id and never throws: a failure comes back as the job's
 * own answer (`failed`), so the tab's tool or view shows it instead of an exception.
 */
function runningJob<J extends { runId: string }, R>(
  running: Map<string, AbortController>,
  run: (job: J, signal: AbortSignal) => Promise<R>,
  failed: (job: J, reason: string) => R,
): (job: J) => Promise<R> {
  return async (job) => {
    const controller = new AbortController();
    running.set(job.runId, controller);
    try {
      return await run(job, controller.signal);
    } catch (error) {
      return failed(job, error instanceof Error ? error.message : String(error));
    } finally {
      running.delete(job.runId);
    }
  };
}

/** A background model's window and counter from the window book (docs/context-window.md). */
/** The review model drafts a case's checks from SKILL.md and the request, fitted to its window. */
async function draftChecksInWorker(
  services: AppServices,
  job: CheckDraftJob,
  createProvider: (settings: ProviderSettings) => Promise<ChatProvider>,
  signal: AbortSignal,
): Promise<CheckDraft> {
  const [skills, appSettings] = await Promise.all([services.skills(), services.settings.read('app')]);
  const data = await skills.readSkillFile(job.skill, 'SKILL.md');
  if (data === null) return { success: false, error: `the skill "${job.skill}" has no SKILL.md` };
  const reviewSettings = reviewProviderSettings(appSettings);
  const [provider, window, { draftChecks }] = await Promise.all([createProvider(reviewSettings), windowOf(services, appSettings, reviewSettings), import('../gate/checkDraft')]);
  const fits = requestFitsFor(window, reviewSettings.model || 'the review model');
  return draftChecks({ provider, fits, signal }, { name: job.skill, markdown: new TextDecoder().decode(data) }, job.prompt);
}

/**
 * Session summaries for `session_search` (sessions/sessionSummary.ts) on the review model: the
 * model the user chose for background work, so a local model stays local. It runs here, not in
 * the tab, because this is where the review model's provider, window and engine port already
 * live, and a web-llm request queues behind the chat's on the one engine with background priority.
 */
async function summariseInWorker(
  services: AppServices,
  job: SummaryJob,
  createProvider: (settings: ProviderSettings) => Promise<ChatProvider>,
  signal: AbortSignal,
): Promise<SummaryOutcome> {
  const appSettings = await services.settings.read('app');
  const reviewSettings = reviewProviderSettings(appSettings);
  const [provider, window, { summariseSessions }] = await Promise.all([createProvider(reviewSettings), windowOf(services, appSettings, reviewSettings), import('../sessions/sessionSummary')]);
  const fits = requestFitsFor(window, reviewSettings.model || 'the review model');
  const done = await summariseSessions({ provider, fits: (messages, maxTokens) => fits(messages, maxTokens), signal }, job);
  return { kind: 'done', ...done };
}

/**
 * Memory consolidation on the review model (memory/memoryConsolidation.ts): pinned entries are
 * never offered, the answer is checked (no fact lost, shorter), and the file is written only if it
 * still holds what was read, scanned as a review's memory write. One tab at a time (a lock).
 */
async function consolidateInWorker(
  services: AppServices,
  job: ConsolidationJob,
  createProvider: (settings: ProviderSettings) => Promise<ChatProvider>,
  signal: AbortSignal,
): Promise<ConsolidationOutcome> {
  const consolidation = await import('../memory/memoryConsolidation');
  return services.storage.locks.withLock('memory-consolidation', async (): Promise<ConsolidationOutcome> => {
    const [memory, appSettings, memorySettings] = await Promise.all([services.memory(), services.settings.read('app'), services.settings.read('memory')]);
    const state = await memory.store.read(job.target);
    const skipped = (reason: string): ConsolidationOutcome => ({ kind: 'skipped', target: job.target, reason, requests: 0 });
    if (!consolidation.pastConsolidationMark(state.used, state.limit)) return skipped(`the file is at ${state.percent} %, not past ${consolidation.CONSOLIDATE_AT_PERCENT} %`);
    if (state.drift) return skipped(`the file was changed by hand (${state.drift})`);
    const pinned = new Set(memorySettings.pinned?.[job.target] ?? []);
    const offered = state.entries.filter((entry) => !pinned.has(entry));
    if (offered.length < 2) return skipped('fewer than two entries are not pinned');
    const reviewSettings = reviewProviderSettings(appSettings);
    const [provider, window] = await Promise.all([createProvider(reviewSettings), windowOf(services, appSettings, reviewSettings)]);
    const fits = requestFitsFor(window, reviewSettings.model || 'the review model');
    const asked = await consolidation.askForMerges({ provider, fits: (messages, maxTokens) => fits(messages, maxTokens), signal }, job.target, offered);
    const refused = (reason: string, missing?: string[]): ConsolidationOutcome => ({ kind: 'refused', target: job.target, reason, requests: 1, ...(missing ? { missing } : {}) });
    if ('error' in asked) return refused(asked.error);
    const merges = consolidation.parseMerges(asked.answer, offered.length);
    if (!merges) return refused('the background model’s answer was not the JSON asked for');
    const plan = consolidation.planConsolidation(state.entries, pinned, merges);
    if (!plan.ok) return merges.length === 0 ? { ...skipped(plan.reason), requests: 1 } : refused(plan.reason, plan.missing);
    const written = await memory.store.replaceEntries(job.target, state.entries, plan.after, { origin: 'review' });
    if (!written.success) return refused(written.error);
    return { kind: 'done', target: job.target, before: state.entries, after: plan.after, requests: 1 };
  });
}

/**
 * A twin merge (review/twinMerge.ts): the review model writes the merged skill; the gate provider
 * from the gate settings measures the merged skill (its files in memory) and both originals,
 * through the replay cache, without storing or applying any verdict.
 */
async function mergeTwinsInWorker(services: AppServices, job: TwinMergeJob, context: GateRunContext): Promise<TwinMergeOutcome> {
  const [skills, appSettings, gateSettings, gateJob, { RecordStoreReplayCache }, { replayProviderId }, { poolSizeFor }, { mergeTwins }] = await Promise.all([
    services.skills(),
    services.settings.read('app'),
    services.settings.read('gate'),
    import('../gate/gateJob'),
    import('../gate/replayCache'),
    import('../gate/cacheKey'),
    import('../gate/replayPool'),
    import('../review/twinMerge'),
  ]);
  const reviewSettings = reviewProviderSettings(appSettings);
  const gateSettingsNow = gateProviderSettings(appSettings, gateSettings);
  const createProvider = (settings: ProviderSettings) => (context.options.createProvider ?? defaultProvider)(settings, context.engineAccess);
  const [reviewModel, reviewWindow, gateProvider, gateWindow] = await Promise.all([
    createProvider(reviewSettings),
    windowOf(services, appSettings, reviewSettings),
    createProvider(gateSettingsNow),
    windowOf(services, appSettings, gateSettingsNow),
  ]);
  const reviewFits = requestFitsFor(reviewWindow, reviewSettings.model || 'the review model');
  const decoder = new TextDecoder();
  const readText = async (skill: string, path: string) => {
    const data = await skills.readSkillFile(skill, path);
    return data === null ? null : decoder.decode(data);
  };
  return mergeTwins(
    {
      read: async (name) => {
        const markdown = await readText(name, 'SKILL.md');
        return markdown === null ? null : { name, markdown, evals: await readText(name, gateJob.EVALS_FILE) };
      },
      names: () => skills.engine.catalog.entries().map((entry) => entry.name),
      provider: reviewModel,
      fits: (messages, maxTokens) => reviewFits(messages, maxTokens),
      signal: context.signal,
      verify: async (skill, files) => {
        const result = await gateJob.runGateJob(
          { runId: `${job.runId}:${skill}`, skill, policy: gateSettings.policy },
          {
            readSkillFile: files ? (_skill, path) => files(path) : (name, path) => skills.readSkillFile(name, path),
            provider: gateProvider,
            providerId: replayProviderId(gateSettingsNow),
            memory: context.memory,
            poolSize: poolSizeFor(gateSettingsNow),
            maxTokens: gateSettings.maxTokens,
            fits: requestFitsFor(gateWindow, gateSettingsNow.model || 'the gate model'),
            cache: new RecordStoreReplayCache(services.storage.stores.replays),
            regexRunner: context.regexRunner,
            ...context.options.gateTiming,
          },
          { signal: context.signal },
        );
        if (result.kind !== 'done') return { error: result.kind === 'cancelled' ? 'cancelled' : 'the run did not finish' };
        return { record: result.record, requests: result.record.cost.requests };
      },
    },
    job,
  );
}

async function windowOf(services: AppServices, appSettings: KnackSettings, provider: ProviderSettings): Promise<{ window: ModelWindow; counter: TokenCounter }> {
  return (await services.modelWindows()).lookup(modelKeyFor(appSettings, provider));
}

/** What the gate keeps for the worker's life: refused parameters per model, the regex runner. */
interface GateWorkerState {
  memory: ParamMemory;
  regexRunner: RegexRunner;
}

async function gateWorkerState(options: ReviewWorkerHandlerOptions): Promise<GateWorkerState> {
  const [{ ParamMemory }, { createWorkerRegexRunner }] = await Promise.all([import('../gate/replayArm'), import('../gate/workerRegexRunner')]);
  return { memory: new ParamMemory(), regexRunner: options.regexRunner ?? createWorkerRegexRunner() };
}

interface GateRunContext extends GateWorkerState {
  engineAccess: EngineAccess | null;
  signal: AbortSignal;
  onProgress?: (progress: GateProgress) => void;
  options: ReviewWorkerHandlerOptions;
}

/**
 * The version the skill's latest verdict measured, when SKILL.md has changed since: its bytes are
 * in the ledger's blobs under the same hash, and its with-skill answers in the replay cache, so
 * the run compares new against previous without a request (docs/gate.md, "Caching").
 */
async function previousVersion(skills: SkillServices, skill: string): Promise<PreviousVersion | null> {
  const latest = await skills.verdicts.latest(skill);
  if (!latest) return null;
  const [current, { skillHashOf }] = await Promise.all([skills.readSkillFile(skill, 'SKILL.md'), import('../gate/verdictRecord')]);
  if (current === null || (await skillHashOf(current)) === latest.skillHash) return null;
  const bytes = await skills.engine.ledger.blob(latest.skillHash);
  return bytes ? { version: latest.skillVersion, markdown: new TextDecoder().decode(bytes) } : null;
}

/**
 * The provider a job runs on: the saved provider and model it names ("Verify on …", docs/gate.md
 * "Per-model verdicts") while that model is still offered, else the gate settings' model.
 */
function gateJobProvider(app: KnackSettings, gate: GateSettings, job: GateJob): ProviderSettings {
  if (job.model) {
    const resolved = resolveChatModel(app, job.model);
    if (resolved.ok) return resolved.provider;
  }
  return gateProviderSettings(app, gate);
}

/**
 * One gate job (docs/gate.md): the gate provider from this context's settings, the skill's
 * files as stored, the replay cache over the `replays` store; then the record's effects
 * (gate/gateEffects.ts `applyVerdict`) and the per-model noise and automatic-run counters.
 */
async function runGateInWorker(services: AppServices, job: GateJob, context: GateRunContext): Promise<GateJobOutcome> {
  const [skills, appSettings, gateSettings, gateJob, { RecordStoreReplayCache }, { replayProviderId }, { poolSizeFor }, { applyVerdict }] = await Promise.all([
    services.skills(),
    services.settings.read('app'),
    services.settings.read('gate'),
    import('../gate/gateJob'),
    import('../gate/replayCache'),
    import('../gate/cacheKey'),
    import('../gate/replayPool'),
    import('../gate/gateEffects'),
  ]);
  if (context.signal.aborted) return { kind: 'cancelled', pairsDone: 0, pairsTotal: 0 };
  const providerSettings = gateJobProvider(appSettings, gateSettings, job);
  const providerId = replayProviderId(providerSettings);
  const provider = await (context.options.createProvider ?? defaultProvider)(providerSettings, context.engineAccess);
  const previous = job.previous ?? (await previousVersion(skills, job.skill));
  const gateWindow = await windowOf(services, appSettings, providerSettings);
  let result;
  try {
    result = await gateJob.runGateJob(
      { ...job, policy: job.policy ?? gateSettings.policy, ...(previous ? { previous } : {}) },
      {
        readSkillFile: (skill, path) => skills.readSkillFile(skill, path),
        provider,
        providerId,
        providerLabel: providerSettings.kind === 'webgpu' ? 'the in-browser model' : providerId,
        memory: context.memory,
        poolSize: poolSizeFor(providerSettings),
        maxTokens: gateSettings.maxTokens,
        fits: requestFitsFor(gateWindow, providerSettings.model || 'the gate model'),
        cache: new RecordStoreReplayCache(services.storage.stores.replays),
        regexRunner: context.regexRunner,
        reach: await reachServicesFor(services, providerSettings, gateWindow.window),
        ...context.options.gateTiming,
      },
      { signal: context.signal, onProgress: context.onProgress },
    );
  } catch (error) {
    if (error instanceof gateJob.SkillMissingError) return { kind: 'failed', error: error.message };
    throw error;
  }
  if (result.kind === 'cancelled') return result;
  const applied = await applyVerdict(result.record, skills.gate);
  // An applied verdict already announced itself (skill-changed, through the commit helper); a
  // superseded one is stored too, and the open skill views list it in the history.
  services.changes.publish({ type: 'verdict-changed', name: job.skill });
  const { cost } = applied.record;
  // Reach requests (docs/gate.md, "Reach") count against the daily cap like replays.
  const requests = cost.requests + (applied.record.reach?.cost.requests ?? 0);
  const cacheHits = cost.cacheHits + (applied.record.reach?.cost.cacheHits ?? 0);
  await recordGateRun(services.settings, {
    noiseKey: gateNoiseKey(providerSettings, providerId),
    probed: result.notes.noiseProbe.probed,
    flipped: result.notes.noiseProbe.flipped,
    automatic: job.automatic === true,
    requests,
    now: new Date(context.options.gateTiming?.clock?.() ?? Date.now()),
  });
  return {
    kind: 'done',
    record: applied.record,
    applied: applied.status === 'applied',
    superseded: applied.status === 'superseded',
    verdictChanged: applied.status === 'applied' && applied.changed,
    requests,
    cacheHits,
  };
}
