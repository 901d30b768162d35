import { describe, expect, it } from 'vitest';
import { ChatController, type ChatSessionDeps, type ChatSessionEvent } from '../../src/agent/chatSession';
import type { ChatContext } from '../../src/agent/chatContext';
import { SUMMARY_INSTRUCTIONS } from '../../src/agent/compaction';
import { countRequest } from '../../src/agent/contextBudget';
import { sessionPromptBuilder } from '../../src/agent/sessionPrompt';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import { SkillIndex } from '../../src/skills/skillIndex';
import { MemoryStore } from '../../src/memory/memoryStore';
import { memoryToolDefinition } from '../../src/memory/memoryTool';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { ProviderError, type ChatProvider, type ChatRequest, type StreamPart } from '../../src/providers/provider';
import type { ModelWindow } from '../../src/providers/modelWindow';
import { charCounter } from './helpers/charCounter';
import { WebLlmProvider } from '../../src/providers/webllm/webllmProvider';
import { withTextToolProtocol } from '../../src/providers/textToolProtocol';
import type { ChatCompletionRequestStreaming, CompletionEngine } from '../../src/providers/webllm/engine';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { chatTurnText, honestSummary } from '../fixtures/honestSummariser';

interface LoggedRequest {
  tokens: number;
  summary: boolean;
  refused: boolean;
  text: string;
  /** The user stopped it (a summary ahead cancelled by a send). */
  aborted?: boolean;
}

const ANSWER = `Here is a fairly long answer. ${'It goes on with details. '.repeat(38)}`;

/**
 * A model with a real window: it counts each request like the chat does and refuses one that does
 * not fit (prompt + max_tokens), as llama.cpp does, and stops a reply at max_tokens. Summary
 * requests are answered like an honest model (tests/fixtures/honestSummariser.ts: every user fact
 * kept, so the summary grows). `holdSummaries` keeps each summary request open until released.
 * `maxInFlight` is the most requests it ever had at once.
 */
function windowedModel(trueWindow: number, options: { failSummaries?: boolean; holdSummaries?: boolean } = {}) {
  const log: LoggedRequest[] = [];
  let inFlight = 0;
  const state = { maxInFlight: 0, held: [] as (() => void)[] };
  const provider: ChatProvider = {
    id: 'windowed',
    model: 'small-model',
    nativeTools: true,
    async *stream(request: ChatRequest): AsyncIterable<StreamPart> {
      const [system, ...messages] = request.messages;
      const tokens = countRequest(charCounter, system!.content, messages, request.tools);
      const summary = system!.content === SUMMARY_INSTRUCTIONS;
      const text = request.messages.map((m) => m.content).join('\n');
      const refused = tokens + (request.maxTokens ?? 0) > trueWindow;
      const entry: LoggedRequest = { tokens, summary, refused, text };
      log.push(entry);
      if (refused) {
        throw new ProviderError('bad-request', 'the request exceeds the available context size', '', 400, { contextTooLong: true });
      }
      inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, inFlight);
      try {
        if (summary && options.failSummaries) throw new ProviderError('server', 'model crashed', '', 500);
        if (summary && options.holdSummaries) {
          await new Promise<void>((resolve) => {
            state.held.push(resolve);
            request.signal?.addEventListener('abort', () => (state.held.splice(state.held.indexOf(resolve), 1), resolve()), { once: true });
          });
        }
        if (request.signal?.aborted) {
          entry.aborted = true;
          yield { type: 'finish', reason: 'abort' };
          return;
        }
        const whole = summary ? honestSummary(messages.at(-1)!.content) : ANSWER;
        const limit = (request.maxTokens ?? Infinity) * 4;
        yield { type: 'text-delta', text: whole.slice(0, limit) };
        yield { type: 'usage', usage: { promptTokens: tokens } };
        yield { type: 'finish', reason: whole.length > limit ? 'length' : 'stop' };
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { provider, log, state };
}

/**
 * A stand-in for web-llm's engine with a 2,048-token window: a prompt that does not fit throws
 * web-llm's own ContextWindowSizeExceededError text (as it crosses the worker boundary).
 */
function webllmEngine(window: number): CompletionEngine & { prompts: number[] } {
  const prompts: number[] = [];
  return {
    prompts,
    interruptGenerate: () => undefined,
    chat: {
      completions: {
        create: async (request: ChatCompletionRequestStreaming) => {
          const tokens = request.messages.reduce((sum, message) => sum + 4 + Math.ceil(String(message.content ?? '').length / 4), 0);
          prompts.push(tokens);
          if (tokens > window) {
            throw `ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: ${tokens}; context window size: ${window}`;
          }
          return (async function* () {
            yield { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: { content: 'A short answer about Heron.' }, finish_reason: null, logprobs: null }] };
            yield { id: 'c', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }] };
          })() as never;
        },
      },
    },
  } as CompletionEngine & { prompts: number[] };
}

async function setup(model: ReturnType<typeof windowedModel>, known: ModelWindow, skills = 40) {
  const t = createTestEngine();
  for (let n = 0; n < skills; n++) await t.registry.dispatchOutcome('skill_manage', { action: 'create', name: `skill-${n}`, content: skillContent(`skill-${n}`) }, { origin: 'foreground' } as never);
  const memory = new MemoryStore({ files: t.files, locks: new MemoryLockManager() });
  const registry = new ToolRegistry([memoryToolDefinition({ store: memory }), ...t.registry.definitions()]);
  const index = new SkillIndex(t.engine.catalog, async () => new Map());
  const store = new SessionStore(new MemorySessionBackend());
  const learned: (number | null)[] = [];
  const observed: [number, number][] = [];
  let window = known;
  const context: ChatContext = {
    get window() {
      return window;
    },
    counter: charCounter,
    learn: async (tokens) => {
      learned.push(tokens);
      window = { tokens: tokens ?? Math.floor(window.tokens * 0.75), source: 'learned' };
      return window;
    },
    observe: (estimated, reported) => void observed.push([estimated, reported]),
  };
  const deps: ChatSessionDeps = {
    store,
    registry,
    buildSystemPrompt: sessionPromptBuilder({ registry, index, skillSettings: () => t.settings, memorySnapshot: async (limit) => (await memory.memorySnapshot(limit ?? {})).text }),
    provider: async () => model.provider,
    context: async () => ({ ...context, window }),
    intervals: () => ({ creationNudgeInterval: 0, memoryNudgeInterval: 0 }),
    learning: { beforeUserTurn: () => undefined, afterTurn: (report) => report.counters },
  };
  const controller = new ChatController(deps);
  const events: ChatSessionEvent[] = [];
  controller.subscribe((event) => events.push(event));
  return { controller, store, events, learned, observed };
}

const problems = (events: ChatSessionEvent[]) => events.filter((e) => e.type === 'turn-end' && e.problem !== null);
const notes = (events: ChatSessionEvent[]) => events.flatMap((e) => (e.type === 'context' && e.note ? [e.note] : []));

describe('a chat on a 4,096-token model', () => {
  it('answers 40 turns with 40 skills, never sends a request over the window, and keeps a turn-1 fact', async () => {
    const model = windowedModel(4096);
    const s = await setup(model, { tokens: 4096, source: 'reported' });
    await s.controller.send('My project is called Heron. Help me plan it.');
    for (let turn = 2; turn <= 40; turn++) await s.controller.send(`Turn ${turn}: what should I do next for this?`);
    expect(problems(s.events)).toEqual([]);
    expect(model.log.filter((r) => r.refused)).toEqual([]);
    const chat = model.log.filter((r) => !r.summary);
    expect(chat).toHaveLength(40);
    expect(chat[0]!.tokens).toBeLessThanOrEqual(4096 * 0.35);
    expect(chat.at(-1)!.text).toMatch(/heron/i);
    const compactions = model.log.filter((r) => r.summary).length;
    expect(compactions).toBeGreaterThan(0);
    expect(s.controller.session!.summary!.count).toBeGreaterThan(0);
    expect(await s.store.messages(s.controller.sessionId!)).toHaveLength(80);
    expect(notes(s.events)).toContain('Earlier messages summarised to fit the model’s context window.');
    // Every chat request's server count calibrates the counter (summary requests are not chat requests).
    expect(s.observed.length).toBe(40);
  });

  it('recovers from a refusal when the window was thought larger: learns, compacts, sends again', async () => {
    const model = windowedModel(3000);
    const s = await setup(model, { tokens: 8192, source: 'default' });
    for (let turn = 1; turn <= 8; turn++) await s.controller.send(`Turn ${turn}: tell me more about Heron.`);
    expect(problems(s.events)).toEqual([]);
    expect(model.log.filter((r) => r.refused).length).toBe(1);
    // The refusal named no window: three quarters of the refused request is taken, below the true 3,000.
    expect(s.learned).toHaveLength(1);
    expect(s.learned[0]).toBeLessThan(3000);
    expect(notes(s.events).some((n) => n.startsWith(`The model’s context window is ${s.learned[0]!.toLocaleString('en-US')} tokens`))).toBe(true);
    expect(model.log.filter((r) => !r.summary && !r.refused)).toHaveLength(8);
  });

  it('goes on when the summary cannot be written: the oldest turns are left out, with a note, nothing deleted', async () => {
    const model = windowedModel(4096, { failSummaries: true });
    const s = await setup(model, { tokens: 4096, source: 'reported' });
    for (let turn = 1; turn <= 14; turn++) await s.controller.send(`Turn ${turn}: go on.`);
    expect(problems(s.events)).toEqual([]);
    expect(model.log.filter((r) => r.refused)).toEqual([]);
    expect(notes(s.events).some((n) => n.startsWith('The earlier messages could not be summarised'))).toBe(true);
    expect(notes(s.events).some((n) => /earlier messages are left out/.test(n))).toBe(true);
    expect(await s.store.messages(s.controller.sessionId!)).toHaveLength(28);
  });

  it('Compact now summarises on request, and an edit before the summary’s end drops it', async () => {
    const model = windowedModel(32_768);
    const s = await setup(model, { tokens: 32_768, source: 'reported' }, 2);
    for (let turn = 1; turn <= 6; turn++) await s.controller.send(`Turn ${turn}: Heron step ${turn}.`);
    expect(model.log.some((r) => r.summary)).toBe(false);
    expect(await s.controller.compactNow()).toBe('compacted');
    const summary = s.controller.session!.summary!;
    expect(summary.text).toMatch(/heron/i);
    const usage = s.events.filter((e) => e.type === 'context' && e.usage).at(-1);
    expect(usage).toMatchObject({ usage: { window: { tokens: 32_768 } } });
    const second = s.controller.lines.find((l) => l.role === 'user' && l.content.startsWith('Turn 2'))!;
    expect(second.seq).toBeLessThanOrEqual(summary.throughSeq);
    await s.controller.editAndResend(second.id, 'Turn 2, edited.');
    expect(s.controller.session!.summary).toBeUndefined();
  });
});

describe('rare summaries, written while the user reads (issue 21)', () => {
  /** `turns` turns; the user reads each reply (the summary ahead settles) before the next. Returns the log index where each turn began. */
  async function longChat(s: Awaited<ReturnType<typeof setup>>, turns: number, model: ReturnType<typeof windowedModel>): Promise<number[]> {
    const starts: number[] = [];
    for (let turn = 1; turn <= turns; turn++) {
      starts.push(model.log.length);
      await s.controller.send(chatTurnText(turn));
      await s.controller.aheadSettled();
    }
    return starts;
  }

  it('30 turns at 4,096 with an honest summariser: at most one summary request per 5 turns, none in front of a turn, the turn-2 fact in the last request', async () => {
    const model = windowedModel(4096);
    const s = await setup(model, { tokens: 4096, source: 'reported' });
    const starts = await longChat(s, 30, model);
    expect(problems(s.events)).toEqual([]);
    expect(model.log.filter((r) => r.refused)).toEqual([]);
    const summaries = model.log.filter((r) => r.summary);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.length).toBeLessThanOrEqual(6);
    // One request per compaction.
    expect(summaries.length).toBe(s.controller.session!.summary!.count);
    // Each turn's own requests are chat requests only: every summary was written after a reply.
    starts.forEach((start, turn) => {
      const end = starts[turn + 1] ?? model.log.length;
      const turnRequests = model.log.slice(start, end);
      const firstSummary = turnRequests.findIndex((r) => r.summary);
      expect(firstSummary === -1 || firstSummary > 0).toBe(true);
    });
    expect(model.log.filter((r) => !r.summary).at(-1)!.text).toContain('the project is called Heron');
    expect(notes(s.events).some((n) => /left out/.test(n))).toBe(false);
  });

  it('15 turns at 2,048: at most one summary request per 3 turns, the turn-2 fact still in the last request', async () => {
    const model = windowedModel(2048);
    const s = await setup(model, { tokens: 2048, source: 'reported' });
    await longChat(s, 15, model);
    expect(problems(s.events)).toEqual([]);
    expect(model.log.filter((r) => r.refused)).toEqual([]);
    const summaries = model.log.filter((r) => r.summary).length;
    expect(summaries).toBeGreaterThan(0);
    expect(summaries).toBeLessThanOrEqual(5);
    expect(model.log.filter((r) => !r.summary).at(-1)!.text).toContain('the project is called Heron');
  });

  /** After a reply, until the summary ahead is held open by the model or there is none. */
  async function untilHeldOrIdle(s: Awaited<ReturnType<typeof setup>>, model: ReturnType<typeof windowedModel>): Promise<void> {
    while (s.controller.summarisingAhead && model.state.held.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  it('a send during the summary waits for it when its request needs it: never two requests at once, one summary', async () => {
    const model = windowedModel(4096, { holdSummaries: true });
    const s = await setup(model, { tokens: 4096, source: 'reported' });
    let turn = 0;
    while (model.state.held.length === 0 && turn < 30) {
      await s.controller.send(chatTurnText(++turn));
      await untilHeldOrIdle(s, model);
    }
    expect(s.controller.summarisingAhead).toBe(true);
    const summariesBefore = model.log.filter((r) => r.summary).length;
    // A long message: the request does not fit without the summary.
    const sending = s.controller.send(`Turn ${turn + 1}: ${'a long paste of notes for the plan. '.repeat(60)}`);
    await new Promise((resolve) => setTimeout(resolve, 0));
    model.state.held.shift()!();
    await sending;
    expect(model.state.maxInFlight).toBe(1);
    expect(model.log.filter((r) => r.summary).length).toBe(summariesBefore);
    expect(model.log.filter((r) => r.summary && r.aborted)).toEqual([]);
    expect(s.controller.session!.summary!.count).toBe(1);
    expect(problems(s.events)).toEqual([]);
  });

  it('a send during the summary cancels it when its request fits without it; the summary is written after that reply', async () => {
    const model = windowedModel(4096, { holdSummaries: true });
    const s = await setup(model, { tokens: 4096, source: 'reported' });
    let turn = 0;
    // A long message now and then makes the expected next message long, so the summary starts while a short one still fits.
    while (model.state.held.length === 0 && turn < 30) {
      turn += 1;
      await s.controller.send(turn % 3 === 1 ? `Turn ${turn}: ${'notes for the plan, one more line of them. '.repeat(40)}` : `Turn ${turn}: go on.`);
      await untilHeldOrIdle(s, model);
    }
    expect(s.controller.summarisingAhead).toBe(true);
    await s.controller.send('ok');
    expect(model.log.filter((r) => r.summary && r.aborted)).toHaveLength(1);
    expect(model.state.maxInFlight).toBe(1);
    expect(problems(s.events)).toEqual([]);
    expect(notes(s.events).some((n) => n.startsWith('The earlier messages could not be summarised'))).toBe(false);
    // After the reply, the summary is asked for again.
    await expect.poll(() => model.state.held.length).toBe(1);
    model.state.held.shift()!();
    await s.controller.aheadSettled();
    expect(s.controller.session!.summary!.count).toBe(1);
  });
});

describe('web-llm', () => {
  it('its ContextWindowSizeExceededError teaches the window; the turn is compacted and sent again', async () => {
    const engine = webllmEngine(2048);
    // As createProvider builds it: web-llm without native tool calls, behind the text tool protocol.
    const provider = withTextToolProtocol(new WebLlmProvider({ model: 'Qwen3-1.7B-q4f32_1-MLC', access: { acquire: async () => engine }, nativeTools: false }));
    const model = windowedModel(1_000_000);
    const s = await setup({ ...model, provider }, { tokens: 8192, source: 'default' }, 2);
    for (let turn = 1; turn <= 12; turn++) await s.controller.send(`Turn ${turn}: ${'tell me more about Heron and its plan. '.repeat(12)}`);
    expect(problems(s.events)).toEqual([]);
    expect(s.learned).toContain(2048);
    expect(notes(s.events).some((n) => n.startsWith('The model’s context window is 2,048 tokens'))).toBe(true);
    expect(engine.prompts.filter((tokens) => tokens > 2048).length).toBe(1);
  });
});
