/**
 * The background review's cost to the page (SPEC §17: no main-thread long task > 50 ms during a
 * review run), and what a running review does to the time to first token of a user turn.
 *
 * The model is the scripted OpenAI-compatible server that bench/run.mjs starts
 * (bench/node/benchModelServer.ts; its URL arrives as `globalThis.knackBenchModelUrl`): real
 * HTTP from the page and from the review worker. The app is pointed at it through
 * `knackUi.settings`, reviews start through the learning seam `knackUi.learning.afterTurn`
 * exactly as the chat's finalizer starts them, and user turns go through `knackUi.chat.send`.
 *
 * - `reviewLongTasks`: a PerformanceObserver('longtask') over each whole review run (worker
 *   start-up in the first, cold run; warm runs after), counting tasks over 50 ms.
 * - `reviewFirstToken`: Send → first reply token rendered in the message list, p50/p95 over
 *   turns with no review running, with a review of another session running, and with a review
 *   of the same session running (which the send cancels).
 * Skills and sessions the bench creates are deleted afterwards.
 */
import { summarize, type Summary } from './stats';
import type { BrowserBench } from './types';

interface LearningHandle {
  afterTurn(report: {
    sessionId: string;
    messages: { role: string; content: string }[];
    systemPrompt: string;
    counters: { itersSinceSkill: number; turnsSinceMemory: number };
    end: 'final';
    finalReply: string;
  }): unknown;
  isReviewing(sessionId: string): boolean;
  settled(): Promise<void>;
}

interface UiHandle {
  chat: { send(text: string): Promise<boolean>; newChat(): void; isGenerating: boolean; sessionId: string | null };
  learning: LearningHandle;
  settings?: { save(changes: Record<string, unknown>): Promise<void> };
}

const FIRST_WORD = 'Bench';

function ui(): UiHandle {
  const handle = (globalThis as { knackUi?: UiHandle }).knackUi;
  if (!handle) throw new Error('knackUi handle missing');
  return handle;
}

async function useBenchModel(): Promise<void> {
  const url = (globalThis as { knackBenchModelUrl?: string }).knackBenchModelUrl;
  if (!url) throw new Error('no scripted model: bench/run.mjs sets knackBenchModelUrl');
  const settings = ui().settings;
  if (!settings) throw new Error('knackUi.settings missing');
  await settings.save({ provider: 'openai-compatible', baseUrl: url, apiKey: '', model: 'bench-model' });
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

let reviewSessions = 0;

/** `fn` returns its own measurement (the time around it includes waiting for the review). */
async function collect(runs: number, fn: () => Promise<number>, warmup = 1): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn();
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await fn());
  return summarize(values);
}

/** Starts a review the way the chat's finalizer does: ten model calls without skill_manage. */
function startReview(sessionId: string): void {
  ui().learning.afterTurn({
    sessionId,
    messages: [
      { role: 'user', content: 'Clean up this CSV export.' },
      { role: 'assistant', content: 'Done: the header row is fixed.' },
    ],
    systemPrompt: 'You are Knack.',
    counters: { itersSinceSkill: 10, turnsSinceMemory: 1 },
    end: 'final',
    finalReply: 'Done: the header row is fixed.',
  });
}

/** Send → the reply's first word in the message list, as the user sees it. */
async function firstTokenMs(text: string): Promise<number> {
  const { chat } = ui();
  const list = () => document.querySelector('ol[aria-label="Messages"]');
  const replies = () => list()?.querySelectorAll('li').length ?? 0;
  const before = replies();
  let seenAt = 0;
  const observer = new MutationObserver(() => {
    if (seenAt) return;
    const items = list()?.querySelectorAll('li');
    const last = items?.[items.length - 1];
    if (items && items.length > before && last?.textContent?.includes(FIRST_WORD)) seenAt = performance.now();
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  const sentAt = performance.now();
  try {
    await chat.send(text);
    await until(() => seenAt > 0 && !chat.isGenerating);
  } finally {
    observer.disconnect();
  }
  return seenAt - sentAt;
}

async function cleanUp(): Promise<void> {
  const knack = (globalThis as { knack?: Record<string, any> }).knack; // eslint-disable-line @typescript-eslint/no-explicit-any
  const skills = knack?.skills;
  if (skills) {
    for (const entry of skills.engine.catalog.entries() as { name: string }[]) {
      if (entry.name.startsWith('bench-review-')) {
        await skills.registry.dispatch('skill_manage', { action: 'delete', name: entry.name }, { origin: 'user', readPaths: new Set() });
      }
    }
  }
  const sessions = knack?.sessions;
  if (sessions) {
    for (const session of (await sessions.store.list()) as { id: string; title: string }[]) {
      if (session.title.startsWith('Bench turn')) await sessions.store.delete(session.id);
    }
  }
}

export const benches: BrowserBench[] = [
  {
    name: 'reviewLongTasks',
    async run(context) {
      await context.knack();
      await until(() => (globalThis as { knack?: { skills?: unknown } }).knack?.skills !== undefined);
      await useBenchModel();
      // Without long-task timing the figure would read as a false zero.
      if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) throw new Error('longtask entries not supported here');
      const { learning } = ui();
      const runs: { ms: number; longTasks: number; longestMs: number; totalLongMs: number }[] = [];
      try {
        for (let i = 0; i < 6; i++) {
          const tasks: number[] = [];
          const observer = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) tasks.push(entry.duration);
          });
          observer.observe({ type: 'longtask', buffered: false });
          const sessionId = `bench-review-session-${++reviewSessions}`;
          const started = performance.now();
          startReview(sessionId);
          await until(() => !learning.isReviewing(sessionId));
          await learning.settled();
          const ms = performance.now() - started;
          // Long-task entries are delivered after the task; give the observer a frame.
          await new Promise((resolve) => setTimeout(resolve, 50));
          observer.disconnect();
          runs.push({ ms: Math.round(ms), longTasks: tasks.filter((d) => d > 50).length, longestMs: Math.round(Math.max(0, ...tasks)), totalLongMs: Math.round(tasks.reduce((a, b) => a + b, 0)) });
        }
      } finally {
        await cleanUp();
      }
      const [cold, ...warm] = runs;
      return {
        longTasksOver50ms: runs.reduce((sum, run) => sum + run.longTasks, 0),
        cold,
        warm: { runs: warm.length, longTasks: warm.reduce((s, r) => s + r.longTasks, 0), longestMs: Math.max(...warm.map((r) => r.longestMs)), reviewMs: warm.map((r) => r.ms) },
        model: 'scripted server (bench/node/benchModelServer.ts), 3 model calls per review, 400 ms before each step',
      };
    },
  },
  {
    name: 'reviewFirstToken',
    async run(context) {
      await context.knack();
      await until(() => (globalThis as { knack?: { sessions?: unknown } }).knack?.sessions !== undefined);
      await useBenchModel();
      const { chat, learning } = ui();
      const RUNS = 8;
      let turn = 0;
      try {
        chat.newChat();
        const idle = await collect(RUNS, () => firstTokenMs(`Bench turn ${++turn}`));
        const otherSession = await collect(RUNS, async () => {
          const sessionId = `bench-review-session-${++reviewSessions}`;
          startReview(sessionId);
          const ms = await firstTokenMs(`Bench turn ${++turn}`);
          await until(() => !learning.isReviewing(sessionId));
          return ms;
        });
        const sameSession = await collect(RUNS, async () => {
          const sessionId = chat.sessionId!;
          startReview(sessionId);
          await new Promise((resolve) => setTimeout(resolve, 100)); // the review's first request is out
          const ms = await firstTokenMs(`Bench turn ${++turn}`);
          await until(() => !learning.isReviewing(sessionId));
          return ms;
        });
        await learning.settled();
        return {
          noReview: idle,
          reviewOfAnotherSessionRunning: otherSession,
          reviewOfThisSessionCancelled: sameSession,
          model: 'scripted server (bench/node/benchModelServer.ts), reply streamed word by word',
        };
      } finally {
        chat.newChat();
        await cleanUp();
      }
    },
  },
];
