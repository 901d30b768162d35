/**
 * Reach (docs/gate.md, "Reach"): does the model *choose* the skill? In a real chat the model
 * sees one index line and must decide to call `skill_view`; a skill that helps when loaded can
 * still sit unused. Per case, one request shaped like the first request of a new chat
 * (reachRequest.ts) is sent, read only until the first tool call or the end of the text, and the
 * case is *reached* when that first action loads this skill (`skill_view` of it, or a reply that
 * starts with its slash form). Near misses (`should_trigger: false`) count false triggers.
 *
 * First actions are cached like replays, by the exact request (tools included), so re-measuring
 * an unchanged skill and index sends nothing. Errors are never cached and never counted.
 */
import type { ChatProvider, ToolCall, Usage } from '../providers/provider';
import { sha256Hex } from '../skills/ledger';
import { canonicalJson } from './canonicalJson';
import type { ReplayParams } from './replayRequest';
import type { ReplayCache } from './replayCache';
import type { FirstChatRequest, FirstChatRequestBuilder } from './reachRequest';
import type { EvalsFile, FirstAction, ReachCaseResult, ReachRecord } from './types';

/** Bump when a reach request or what is read from it changes: every old entry then misses. */
export const REACH_KEY_VERSION = 'reach.v1';
/** At most this many cases are measured per run (the replay cap, split.ts). */
export const MAX_REACH_CASES = 24;
/** Below this share of trigger cases reached, the verdict's reason says the skill is not reached. */
export const LOW_REACH = 0.5;

export interface ReachCase {
  id: string | number;
  prompt: string;
  shouldTrigger: boolean;
}

/** Every case with a prompt, in file order (near misses too), at most MAX_REACH_CASES. */
export function reachCasesOf(file: EvalsFile): ReachCase[] {
  const cases: ReachCase[] = [];
  for (const item of file.evals) {
    if (typeof item?.prompt !== 'string' || item.prompt.trim() === '') continue;
    if (typeof item.id !== 'string' && typeof item.id !== 'number') continue;
    cases.push({ id: item.id, prompt: item.prompt, shouldTrigger: item.should_trigger !== false });
    if (cases.length === MAX_REACH_CASES) break;
  }
  return cases;
}

export interface ReachInput {
  /** The skill's catalogue name first, then the name its index line shows (the frontmatter name); both count as loading it. */
  names: string[];
  cases: ReachCase[];
  provider: ChatProvider;
  providerId: string;
  /** The gate model's key (modelKey.ts): the index in the request is labelled for it. */
  modelKey: string;
  params: ReplayParams;
  buildRequest: FirstChatRequestBuilder;
  cache: ReplayCache;
  useCache?: boolean;
  /** The router's pick for a prompt (null: none), when the router's reach is measured too. */
  route?: (prompt: string) => string | null;
  signal?: AbortSignal;
}

/** The cache key of a reach request: the exact request, tools included. */
export async function reachKey(providerId: string, model: string, params: ReplayParams, request: FirstChatRequest): Promise<string> {
  const text = canonicalJson({
    v: REACH_KEY_VERSION,
    provider: providerId,
    model,
    params: { temperature: params.temperature ?? null, seed: params.seed ?? null, max_tokens: params.maxTokens },
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters ?? null })),
  });
  return sha256Hex(new TextEncoder().encode(text));
}

function skillArgument(call: ToolCall): string | undefined {
  try {
    const args = JSON.parse(call.arguments) as { name?: unknown };
    return typeof args.name === 'string' ? args.name : undefined;
  } catch {
    return undefined;
  }
}

const SLASH = /^\s*\/([a-z0-9][a-z0-9._-]*)/i;

/** The first action of one request: its first tool call, else its whole text. */
async function firstAction(provider: ChatProvider, request: FirstChatRequest, params: ReplayParams, signal?: AbortSignal): Promise<{ action: FirstAction; usage: Usage }> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let text = '';
  let usage: Usage = {};
  try {
    const stream = provider.stream({
      messages: request.messages,
      tools: request.tools.length ? request.tools : undefined,
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.seed !== undefined ? { seed: params.seed } : {}),
      maxTokens: params.maxTokens,
      signal: controller.signal,
    });
    for await (const part of stream) {
      if (part.type === 'tool-call') {
        // Stop here: the first action is known, the rest of the reply is not read.
        controller.abort();
        const skill = part.call.name === 'skill_view' ? skillArgument(part.call) : undefined;
        return { action: { kind: 'tool', name: part.call.name, ...(skill !== undefined ? { skill } : {}) }, usage };
      }
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'usage') usage = part.usage;
      else if (part.type === 'finish' && (part.reason === 'error' || part.reason === 'abort' || part.reason === 'cut-off')) {
        return { action: { kind: 'error', error: `the reply ended with '${part.reason}'` }, usage };
      }
    }
    const slash = SLASH.exec(text)?.[1];
    return { action: { kind: 'text', ...(slash ? { slash } : {}) }, usage };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { action: { kind: 'error', error: error instanceof Error ? error.message : String(error) }, usage };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Whether a first action loads the skill named `names` (either name, any letter case). */
export function loadsSkill(action: FirstAction, names: string[]): boolean {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  if (action.kind === 'tool') return action.name === 'skill_view' && action.skill !== undefined && wanted.has(action.skill.toLowerCase());
  return action.kind === 'text' && action.slash !== undefined && wanted.has(action.slash.toLowerCase());
}

async function measureCase(input: ReachInput, testCase: ReachCase, cost: ReachRecord['cost']): Promise<ReachCaseResult> {
  // The first name is the catalogue's: the skill is labelled as if promoted (docs/gate.md, "Reach").
  const request = await input.buildRequest(testCase.prompt, input.modelKey, input.names[0]);
  const key = await reachKey(input.providerId, input.provider.model, input.params, request);
  const routed = input.route ? { routed: input.names.includes(input.route(testCase.prompt) ?? '') } : {};
  const cached = input.useCache === false ? undefined : await input.cache.get(key);
  if (cached) {
    cost.cacheHits++;
    await input.cache.touch(key);
    const action = JSON.parse(cached.answerText) as FirstAction;
    return { id: testCase.id, shouldTrigger: testCase.shouldTrigger, action, loaded: loadsSkill(action, input.names), fromCache: true, ...routed };
  }
  cost.requests++;
  const { action, usage } = await firstAction(input.provider, request, input.params, input.signal);
  cost.promptTokens += usage.promptTokens ?? 0;
  cost.completionTokens += usage.completionTokens ?? 0;
  if (action.kind !== 'error') {
    const answer = JSON.stringify(action);
    await input.cache.put(key, input.providerId, { status: 'ok', answerText: answer, rawText: answer, finishReason: 'stop', usage });
  }
  return { id: testCase.id, shouldTrigger: testCase.shouldTrigger, action, loaded: loadsSkill(action, input.names), ...routed };
}

/** Measures reach on every case, one at a time (a first request is short: no pool needed). */
export async function measureReach(input: ReachInput): Promise<ReachRecord> {
  const cost = { requests: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0 };
  const cases: ReachCaseResult[] = [];
  for (const testCase of input.cases) {
    if (input.signal?.aborted) break;
    cases.push(await measureCase(input, testCase, cost));
  }
  return summarizeReach(cases, cost, input.route !== undefined);
}

export function summarizeReach(cases: ReachCaseResult[], cost: ReachRecord['cost'], withRouter = false): ReachRecord {
  const measured = cases.filter((result) => result.action.kind !== 'error');
  const triggers = measured.filter((result) => result.shouldTrigger);
  const misses = measured.filter((result) => !result.shouldTrigger);
  const record: ReachRecord = {
    reached: triggers.filter((result) => result.loaded).length,
    triggerCases: triggers.length,
    falseTriggers: misses.filter((result) => result.loaded).length,
    nearMisses: misses.length,
    unmeasured: cases.length - measured.length,
    cases,
    cost,
  };
  if (withRouter) {
    record.router = {
      reached: cases.filter((result) => result.shouldTrigger && result.routed).length,
      falseTriggers: cases.filter((result) => !result.shouldTrigger && result.routed).length,
    };
  }
  return record;
}

/** "Reached in 7 of 8 cases; loaded by mistake in 0 of 3" (the Verification region's words). */
export function reachWords(reach: Pick<ReachRecord, 'reached' | 'triggerCases' | 'falseTriggers' | 'nearMisses'>): string {
  const reached = `Reached in ${reach.reached} of ${reach.triggerCases} ${reach.triggerCases === 1 ? 'case' : 'cases'}`;
  return reach.nearMisses > 0 ? `${reached}; loaded by mistake in ${reach.falseTriggers} of ${reach.nearMisses}` : reached;
}

/** Whether few enough trigger cases were reached to say so in the verdict's reason. */
export function reachIsLow(reach: ReachRecord): boolean {
  return reach.triggerCases > 0 && reach.reached / reach.triggerCases < LOW_REACH;
}

/**
 * The sentence the verdict's reason gains when the skill helps (promoted, or staged with a dev
 * gain) but the model rarely loads it; null otherwise. Wording only: the verdict word is decide()'s.
 */
export function reachNote(verdict: { verdict: string; numbers: { dev: { gainSign: number } } }, reach: ReachRecord): string | null {
  const helps = verdict.verdict === 'promoted' || (verdict.verdict === 'staged' && verdict.numbers.dev.gainSign > 0);
  if (!helps || !reachIsLow(reach)) return null;
  return `It helps when loaded, but the model chose it from the index in only ${reach.reached} of ${reach.triggerCases} cases: a clearer description, or the skill router, would let it reach the chats that need it.`;
}
