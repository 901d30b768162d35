/**
 * Forged tools measured like Jermes (docs/forged-tools.md, "Measured"): a scripted weak model
 * answers 20 discount + VAT + rounding questions three ways — on its own, with the procedure
 * loaded as a skill, and with the forged tool offered — through the app's real agent loop, tool
 * registry and sandbox. Reported per way: correct answers, model requests and tokens; then the
 * cost of forging (the real review loop writing the tool, and the proof in the sandbox), the
 * break-even number of uses, and the sandbox's own per-call overhead (cold and warm).
 *
 * The weak model (`WeakModel` below) is scripted: it reads the numbers right but gets the
 * multi-step arithmetic wrong a known share of the time (right on 5 of 20 questions alone and
 * on 6 of 20 with the procedure written out, Jermes' measurement). When it is offered the tool,
 * it calls it with the numbers it read and answers with the tool's output. So the first two
 * ways' correctness is the script's by construction; what the bench measures is that the tool
 * path is right on every question through the real pipeline, and what each way costs.
 * Tokens are estimated as characters / 4 of what each request carries (messages and tools).
 */
import { runAgentTurn } from '../../src/agent/agentLoop';
import { zeroCounters } from '../../src/agent/learningCounters';
import type { ChatMessage, ChatProvider, ChatRequest, StreamPart } from '../../src/providers/provider';
import { runReview } from '../../src/review/reviewRun';
import { REVIEW_MAX_MODEL_CALLS } from '../../src/review/reviewPrompts';
import type { ToolRegistry } from '../../src/tools/toolRegistry';
import { createWriteContext } from '../../src/tools/writeContext';
import type { KnackUiHandle } from '../../src/ui/state/consoleHandle';
import type { AppServices } from '../../src/app/appServices';
import { summarize } from './stats';
import type { BrowserBench } from './types';

const SKILL = 'bench-pricing';
const TOOL = 'price-total';
const OFFERED = `${SKILL}__${TOOL}`;
const SYSTEM = 'You are Knack, a helpful assistant. Answer briefly.';
const REVIEW_MARK = 'You are running in the background after the conversation';

interface Question {
  net: number;
  discount: number;
  vat: number;
  text: string;
  answer: number;
}

const total = (net: number, discount: number, vat: number) => Math.round((net * (100 - discount) * (100 + vat)) / 100) / 100;

function questions(): Question[] {
  const nets = [1037.5, 250, 19.99, 1000, 42, 80, 12.5, 999.99, 3.33, 148.75, 7200, 64.9, 0.99, 305.05, 88.8, 1234.56, 49.5, 15, 620.2, 2.5];
  const discounts = [10, 15, 3, 5, 25, 50, 1, 12, 33, 7.5, 20, 0, 10, 2, 17, 8, 40, 5, 13, 0];
  const vats = [19, 7, 20, 21, 19, 10, 7, 19, 21, 20, 19, 7, 20, 10, 19, 21, 7, 19, 20, 10];
  return nets.map((net, i) => {
    const [discount, vat] = [discounts[i]!, vats[i]!];
    return { net, discount, vat, text: `What do I charge for ${net} net with a ${discount}% discount and ${vat}% VAT, rounded to the cent?`, answer: total(net, discount, vat) };
  });
}

/** Question indexes the weak model gets right on its own (5 of 20), and with the skill (those and one more). */
const RIGHT_ALONE = new Set([1, 6, 11, 16, 19]);
const RIGHT_WITH_SKILL = new Set([...RIGHT_ALONE, 3]);

/** The weak model's usual slip: VAT added to the discount rate, rounded along the way. */
const slip = (q: Question) => Math.round(q.net * (1 - q.discount / 100 + q.vat / 100) * 100) / 100 + (q.discount === 0 ? 0.01 : 0);

const TOOL_CODE = `function run(input) {\n  const cents = Math.round((input.net * (100 - input.discount_pct) * (100 + input.vat_pct)) / 100);\n  return cents / 100;\n}\n`;
const MANIFEST = {
  name: TOOL,
  description: 'Price after a percent discount and percent VAT, rounded to the cent.',
  input_schema: {
    type: 'object',
    properties: { net: { type: 'number' }, discount_pct: { type: 'number' }, vat_pct: { type: 'number' } },
    required: ['net', 'discount_pct', 'vat_pct'],
  },
  output_schema: { type: 'number' },
};

/** The scripted weak model, counting what it is sent. */
class WeakModel implements ChatProvider {
  readonly id = 'bench-weak';
  readonly model = 'weak-scripted';
  readonly nativeTools = true;
  requests = 0;
  promptTokens = 0;
  completionTokens = 0;
  constructor(private readonly list: Question[]) {}

  reset(): void {
    this.requests = 0;
    this.promptTokens = 0;
    this.completionTokens = 0;
  }

  async *stream(request: ChatRequest): AsyncIterable<StreamPart> {
    this.requests++;
    this.promptTokens += Math.ceil(JSON.stringify([request.messages, request.tools ?? []]).length / 4);
    const reply = this.#reply(request);
    const text = 'text' in reply ? reply.text : '';
    this.completionTokens += Math.ceil((text.length + ('call' in reply ? reply.call.arguments.length + reply.call.name.length : 0)) / 4);
    if ('call' in reply) {
      yield { type: 'tool-call', call: reply.call };
      yield { type: 'finish', reason: 'tool-calls' };
      return;
    }
    yield { type: 'text-delta', text };
    yield { type: 'finish', reason: 'stop' };
  }

  #reply(request: ChatRequest): { text: string } | { call: { id: string; name: string; arguments: string } } {
    const messages = request.messages;
    const last = messages.at(-1)!;
    if (messages.some((m) => m.role === 'user' && m.content.includes(REVIEW_MARK))) return this.#forge(messages);
    if (last.role === 'tool') return { text: `The total is ${(JSON.parse(last.content) as { output: number }).output}.` };
    const index = this.list.findIndex((q) => last.content.includes(q.text));
    const q = this.list[index]!;
    if (request.tools?.some((tool) => tool.name === OFFERED)) {
      return { call: { id: `call_${index}`, name: OFFERED, arguments: JSON.stringify({ net: q.net, discount_pct: q.discount, vat_pct: q.vat }) } };
    }
    const withSkill = last.content.includes(`<skill name="${SKILL}"`);
    const right = (withSkill ? RIGHT_WITH_SKILL : RIGHT_ALONE).has(index);
    const value = right ? q.answer : slip(q);
    const working = `Discounted: ${q.net} less ${q.discount}%. VAT ${q.vat}% on top. Rounded to the cent.`;
    return { text: `${working} The total is ${value}.` };
  }

  /** The review's forging: create the skill, write the tool's three files, then say so. */
  #forge(messages: ChatMessage[]): { text: string } | { call: { id: string; name: string; arguments: string } } {
    const step = messages.filter((m) => m.role === 'assistant' && m.toolCalls?.length).length;
    const cases = { tool: TOOL, cases: this.list.slice(0, 8).map((q, i) => ({ id: i + 1, input: { net: q.net, discount_pct: q.discount, vat_pct: q.vat }, expect: q.answer })) };
    const body = '1. Take the discount off the net price.\n2. Add VAT to the discounted price.\n3. Round to the cent once.\n\nUse the tool bench-pricing__price-total.';
    const writes = [
      { action: 'create', name: SKILL, content: `---\nname: ${SKILL}\ndescription: Use for prices with discount and VAT.\n---\n\n${body}\n` },
      { action: 'write_file', name: SKILL, file_path: `tools/${TOOL}.json`, file_content: JSON.stringify(MANIFEST) },
      { action: 'write_file', name: SKILL, file_path: `tools/${TOOL}.js`, file_content: TOOL_CODE },
      { action: 'write_file', name: SKILL, file_path: 'evals/tool-cases.json', file_content: JSON.stringify(cases) },
    ];
    const write = writes[step];
    if (!write) return { text: `Created ${SKILL} with the ${TOOL} tool.` };
    return { call: { id: `forge_${step}`, name: 'skill_manage', arguments: JSON.stringify(write) } };
  }
}

interface WayResult {
  correct: number;
  questions: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  tokensPerQuestion: number;
  ms: number;
}

async function answerAll(model: WeakModel, list: Question[], registry: ToolRegistry, prompt: (q: Question) => string): Promise<WayResult> {
  model.reset();
  const started = performance.now();
  let correct = 0;
  for (const q of list) {
    const turn = await runAgentTurn({
      provider: model,
      registry,
      context: createWriteContext('foreground'),
      systemPrompt: SYSTEM,
      history: [{ role: 'user', content: prompt(q) }],
      counters: zeroCounters(),
      intervals: { creationNudgeInterval: 0, memoryNudgeInterval: 0 },
      maxIterations: 4,
    });
    const said = /The total is (-?[\d.]+)\./.exec(turn.finalReply ?? '')?.[1];
    if (said !== undefined && Number(said) === q.answer) correct++;
  }
  const tokens = model.promptTokens + model.completionTokens;
  return {
    correct,
    questions: list.length,
    requests: model.requests,
    promptTokens: model.promptTokens,
    completionTokens: model.completionTokens,
    tokensPerQuestion: Math.round(tokens / list.length),
    ms: Math.round(performance.now() - started),
  };
}

/**
 * The sandbox alone, through the app's own sandbox (`knackUi.sandbox`, the build's code: this
 * bench bundle's copy of the app would load the engine from a data: URL the page's policy
 * refuses). The first call in the page is cold: the .wasm fetched and compiled, the worker
 * started, the engine instantiated; then warm round trips from the page, and the time inside
 * the worker alone.
 */
async function sandboxOverhead(): Promise<Record<string, unknown>> {
  const sandbox = (globalThis as { knackUi?: KnackUiHandle }).knackUi?.sandbox;
  if (!sandbox) throw new Error('knackUi.sandbox missing');
  const input = { net: 1037.5, discount_pct: 10, vat_pct: 19 };
  const call = async (net: number) => {
    const started = performance.now();
    const result = await sandbox.run(TOOL_CODE, { ...input, net });
    if (!result.ok) throw new Error(`sandbox call failed: ${result.error}`);
    return { roundTrip: performance.now() - started, inWorker: result.ms };
  };
  const cold = await call(input.net);
  const warm: number[] = [];
  const inWorker: number[] = [];
  for (let i = 0; i < 100; i++) {
    const { roundTrip, inWorker: inside } = await call(input.net + i);
    warm.push(roundTrip);
    inWorker.push(inside);
  }
  return { coldFirstInPageMs: Math.round(cold.roundTrip), warm: summarize(warm), warmInWorker: summarize(inWorker), goals: { coldMs: 100, warmMs: 5 } };
}

export const benches: BrowserBench[] = [
  {
    name: 'forgedTools',
    async run(context) {
      const knack = (await context.knack()) as { app?: AppServices };
      const app = knack.app;
      if (!app) throw new Error('knack.app missing');
      const overhead = await sandboxOverhead();
      const [registry, forged] = await Promise.all([app.tools(), app.forgedTools()]);
      const list = questions();
      const model = new WeakModel(list);
      const withoutForged = registry.subset(registry.names().filter((name) => !name.includes('__')));
      const raw = await answerAll(model, list, withoutForged, (q) => q.text);

      // Forging: the real review loop on the first question's conversation, then the proof in the sandbox.
      model.reset();
      let started = performance.now();
      const review = await runReview({
        provider: model,
        tools: registry,
        kind: 'skills',
        sessionMessages: [
          { role: 'user', content: list[0]!.text },
          { role: 'assistant', content: `The total is ${list[0]!.answer}.` },
        ],
        systemPrompt: SYSTEM,
      });
      const reviewMs = performance.now() - started;
      const forging = { requests: model.requests, tokens: model.promptTokens + model.completionTokens, reviewEnd: review.end, maxModelCalls: REVIEW_MAX_MODEL_CALLS };
      try {
        started = performance.now();
        const proof = await forged.check(SKILL, TOOL);
        const proofMs = performance.now() - started;
        if ('error' in proof) throw new Error(proof.error);
        const skillText = (await app.skills().then((s) => s.readSkillFile(SKILL, 'SKILL.md'))) ?? new Uint8Array();
        const skillBody = new TextDecoder().decode(skillText);
        const withSkill = await answerAll(model, list, withoutForged, (q) => `<skill name="${SKILL}">\n${skillBody}\n</skill>\n\n${q.text}`);
        const withTool = await answerAll(model, list, registry, (q) => q.text);
        const perCorrect = (way: WayResult) => (way.correct === 0 ? null : Math.round((way.promptTokens + way.completionTokens) / way.correct));
        const rawPerCorrect = perCorrect(raw);
        const toolPerCorrect = perCorrect(withTool);
        const saved = rawPerCorrect !== null && toolPerCorrect !== null ? rawPerCorrect - toolPerCorrect : null;
        return {
          questions: list.length,
          model: 'scripted weak model: right alone on 5 of 20, with the written procedure on 6 of 20; offered the tool, it calls it',
          raw,
          withSkill,
          withTool,
          withToolWrong: withTool.questions - withTool.correct,
          forging: { ...forging, reviewMs: Math.round(reviewMs), proofMs: Math.round(proofMs), proofVerdict: proof.verdict.verdict, proofModelRequests: 0, casesPassed: proof.passed },
          tokensPerCorrectAnswer: { raw: rawPerCorrect, withSkill: perCorrect(withSkill), withTool: toolPerCorrect },
          // Uses after which forging has paid for itself, counted in tokens per correct answer.
          breakEvenUses: saved !== null && saved > 0 ? Math.ceil(forging.tokens / saved) : null,
          sandbox: overhead,
        };
      } finally {
        await registry.dispatch('skill_manage', { action: 'delete', name: SKILL }, createWriteContext('user')).catch(() => undefined);
      }
    },
  },
];
