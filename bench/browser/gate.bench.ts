/**
 * The verification gate's cost (docs/gate.md): one run of a skill with 24 cases against the
 * bench's scripted model, started the way the Verify button starts it.
 *
 * The model is the scripted OpenAI-compatible server of bench/run.mjs
 * (bench/node/benchModelServer.ts): it recognises a gate replay by the gate's isolated system
 * prompt, waits a fixed delay (`globalThis.knackBenchGateDelayMs`) and answers with the bench
 * mark only when the skill's body is in the request, so the skill helps on every case and the
 * run goes through the development and the held-out side.
 *
 * The skill and its `evals/evals.json` are written through the tab's tool registry
 * (`knack.skills.registry`, as the user), the run through `knackUi.learning.verify(name)`,
 * which sends the job to the review worker and resolves with the run's Activity record, and
 * `learning.settled()` waits for the activity writes. Reported:
 * - `longTasksOver50ms`: main-thread long tasks during the three runs (PerformanceObserver
 *   'longtask'); budget 0.
 * - `requestsPerCase`: replay requests the first run sent per case (≤ 2: one per arm; the noise
 *   probe is one more per run at most), from the run's verdict record (`cost.requests`).
 * - `reachRequestsPerCase`: the reach measurement's requests per case (docs/gate.md, "Reach": one
 *   first-chat request per case, from `reach.cost.requests`); `totalRequestsPerCase` both together.
 * - `reverifyRequests`: requests, replays and reach together, when the unchanged skill is
 *   verified again (0: all cached).
 * - `overheadPerRequestMs`: the run's wall time minus the model's own latency (fixed delay ×
 *   requests / pool size), per request: what the gate itself adds. The first run includes
 *   starting the review worker; `withoutCache` repeats the run with every arm sent again
 *   ("Verify again without cache") once everything is loaded.
 * The bench skill is deleted afterwards.
 */
import { createWriteContext } from '../../src/tools/writeContext';
import type { BrowserBench } from './types';

const CASES = 24;
/** The pool runs this many cases at once for a loopback provider (docs/gate.md, replayPool.ts). */
const LOCAL_POOL_SIZE = 2;
/** Must match bench/node/benchModelServer.ts. */
const GATE_SKILL_MARK = 'BENCH-GATE-SKILL';
const GATE_MARK = 'GATE-OK';

/** The part of a gate run's Activity record (GateActivity, src/review/activity.ts) the bench reads. */
interface VerifyOutcome {
  kind: 'gate';
  status: 'running' | 'done' | 'cancelled' | 'failed';
  verdict?: { verdict: string; code: string; reason: string };
  requests: number;
  cacheHits: number;
  error?: string;
}

interface LearningHandle {
  verify?(skill: string, options?: { useCache?: boolean }): Promise<VerifyOutcome | undefined>;
  settled(): Promise<void>;
}

/** The part of the run's verdict record the bench reads: what replays and reach each sent. */
interface RecordCost {
  cost: { requests: number };
  reach?: { cost: { requests: number } };
}

interface ConsoleHandles {
  knack?: {
    skills?: {
      registry: { dispatch(name: string, args: unknown, context: unknown): Promise<string> };
      verdicts: { latest(skill: string): Promise<RecordCost | null> };
    };
    settings?: { keys(): string[]; update(key: string, change: Record<string, unknown>): Promise<unknown> };
  };
  knackUi?: { learning: LearningHandle; settings?: { save(changes: Record<string, unknown>): Promise<void> } };
  knackBenchModelUrl?: string;
  knackBenchGateDelayMs?: number;
}

const handles = () => globalThis as ConsoleHandles;

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function skillMarkdown(name: string): string {
  return [
    '---',
    `name: ${name}`,
    'description: Use when benchmarking the verification gate.',
    '---',
    '',
    `# ${name}`,
    '',
    `1. End every answer with the words ${GATE_MARK}.`,
    `2. (${GATE_SKILL_MARK})`,
    '',
  ].join('\n');
}

/** 24 distinct requests, each checked for the mark only the skill's answers carry. */
function evalsJson(name: string): string {
  const evals = Array.from({ length: CASES }, (_, i) => ({
    id: i + 1,
    prompt: `Bench request number ${i + 1}: tidy the report for region ${String.fromCharCode(65 + i)}.`,
    checks: [{ type: 'contains', value: GATE_MARK }],
  }));
  return JSON.stringify({ skill_name: name, evals }, null, 2);
}

async function writeAsUser(args: Record<string, unknown>): Promise<void> {
  const registry = handles().knack?.skills?.registry;
  if (!registry) throw new Error('knack.skills.registry missing');
  const result = JSON.parse(await registry.dispatch('skill_manage', args, createWriteContext('user'))) as { success: boolean; error?: string };
  if (!result.success) throw new Error(`skill_manage ${String(args.action)} failed: ${result.error ?? 'no reason'}`);
}

async function prepare(): Promise<{ verify: NonNullable<LearningHandle['verify']>; learning: LearningHandle; delayMs: number }> {
  const { knackUi, knackBenchModelUrl, knackBenchGateDelayMs, knack } = handles();
  if (!knackUi) throw new Error('knackUi handle missing');
  if (!knackBenchModelUrl || knackBenchGateDelayMs === undefined) throw new Error('no scripted model: bench/run.mjs sets knackBenchModelUrl and knackBenchGateDelayMs');
  const { learning, settings } = knackUi;
  if (typeof learning.verify !== 'function') throw new Error('knackUi.learning.verify(name) missing: the gate is not wired into the learning loop yet');
  if (!settings) throw new Error('knackUi.settings missing');
  if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) throw new Error('longtask entries not supported here');
  await settings.save({ provider: 'openai-compatible', baseUrl: knackBenchModelUrl, apiKey: '', model: 'bench-model' });
  // Only the bench's own runs: no automatic run after the writes below.
  if (knack?.settings?.keys().includes('gate')) await knack.settings.update('gate', { automatic: false });
  return { verify: learning.verify.bind(learning), learning, delayMs: knackBenchGateDelayMs };
}

/** One run with long tasks observed around it, until its activity entry is written. */
async function observedRun(run: () => Promise<VerifyOutcome | undefined>, learning: LearningHandle) {
  const tasks: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) tasks.push(entry.duration);
  });
  observer.observe({ type: 'longtask', buffered: false });
  const started = performance.now();
  let outcome: VerifyOutcome | undefined;
  let ms: number;
  try {
    outcome = await run();
    await learning.settled();
  } finally {
    ms = performance.now() - started;
    // Long-task entries arrive after their task ends; give the observer a frame.
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
  }
  if (outcome?.status !== 'done' || !outcome.verdict) {
    throw new Error(`gate run did not finish: ${outcome === undefined ? 'verify resolved without an outcome' : JSON.stringify(outcome)}`);
  }
  return { outcome: { ...outcome, verdict: outcome.verdict }, ms, longTasks: tasks.filter((d) => d > 50).length, longestMs: Math.max(0, ...tasks) };
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

export const benches: BrowserBench[] = [
  {
    name: 'gate',
    async run(context) {
      await context.knack();
      await until(() => handles().knack?.skills !== undefined);
      const { verify, learning, delayMs } = await prepare();
      const name = `bench-gate-${Date.now().toString(36)}`;
      await writeAsUser({ action: 'create', name, content: skillMarkdown(name) });
      try {
        await writeAsUser({ action: 'write_file', name, file_path: 'evals/evals.json', file_content: evalsJson(name) });
        const first = await observedRun(() => verify(name), learning);
        const record = await handles().knack!.skills!.verdicts.latest(name);
        if (!record) throw new Error('the first run left no verdict record');
        const reachRequests = record.reach?.cost.requests ?? 0;
        const again = await observedRun(() => verify(name), learning);
        // "Verify again without cache": every arm sent again, with the worker and the gate's code already loaded.
        const warm = await observedRun(() => verify(name, { useCache: false }), learning);
        const { requests } = first.outcome;
        const modelMs = (delayMs * requests) / LOCAL_POOL_SIZE;
        const warmModelMs = (delayMs * warm.outcome.requests) / LOCAL_POOL_SIZE;
        return {
          cases: CASES,
          verdict: first.outcome.verdict.verdict,
          code: first.outcome.verdict.code,
          longTasksOver50ms: first.longTasks + again.longTasks + warm.longTasks,
          longestTaskMs: Math.round(Math.max(first.longestMs, again.longestMs, warm.longestMs)),
          requests,
          cacheHits: first.outcome.cacheHits,
          requestsPerCase: round(record.cost.requests / CASES, 2),
          reachRequestsPerCase: round(reachRequests / CASES, 2),
          totalRequestsPerCase: round(requests / CASES, 2),
          runMs: Math.round(first.ms),
          modelMs: Math.round(modelMs),
          overheadPerRequestMs: requests > 0 ? round((first.ms - modelMs) / requests) : null,
          reverifyRequests: again.outcome.requests,
          reverifyCacheHits: again.outcome.cacheHits,
          reverifyMs: Math.round(again.ms),
          withoutCache: {
            requests: warm.outcome.requests,
            runMs: Math.round(warm.ms),
            overheadPerRequestMs: warm.outcome.requests > 0 ? round((warm.ms - warmModelMs) / warm.outcome.requests) : null,
          },
          model: `scripted server (bench/node/benchModelServer.ts), ${delayMs} ms before each replay answer, pool of ${LOCAL_POOL_SIZE}`,
        };
      } finally {
        await writeAsUser({ action: 'delete', name }).catch(() => undefined);
      }
    },
  },
];
