/**
 * One chat request fitted to the window (docs/context-window.md, "The budget"): the lines with
 * the stored summary in place of what it covers, large old tool results cut, and, when even that
 * is over the prompt limit, whole blocks left out from the oldest with a note. The result never
 * counts more than the plan's prompt limit unless the latest block alone does, in which case its
 * own texts are cut for this call. Nothing stored changes. Plain TypeScript, no DOM.
 */
import type { ChatMessage, ToolSpec } from '../providers/provider';
import type { TokenCounter } from '../providers/modelWindow';
import type { ChatLine } from './chatLines';
import { countMessages, type ContextPlan } from './contextBudget';
import { assembleHistory, blockStarts, cutOldResults, cutResult, cutThreshold, splitLines, suffixSums, type SessionSummary } from './historyView';
import { toModelHistory } from './modelHistory';

export interface FitInput {
  lines: readonly ChatLine[];
  summary: SessionSummary | null;
  systemPrompt: string;
  tools: readonly ToolSpec[];
  counter: TokenCounter;
  plan: ContextPlan;
}

export interface FittedRequest {
  messages: ChatMessage[];
  /** Tokens of the whole request (system prompt, tools, messages). */
  tokens: number;
  systemTokens: number;
  toolTokens: number;
  summaryTokens: number;
  /** Messages left out (not summarised) to fit; 0 normally. */
  leftOut: number;
  /** Old tool results cut for this call. */
  cutResults: number;
}

export const leftOutNote = (count: number) =>
  `[${count} earlier message${count === 1 ? '' : 's'} of this conversation ${count === 1 ? 'was' : 'were'} left out here to fit your context window; the user can still see ${count === 1 ? 'it' : 'them'}.]`;

export interface Parts {
  head: ChatMessage[];
  summaryText: string | null;
  rest: ChatMessage[];
}

type Budgeted = Pick<FitInput, 'counter' | 'plan'>;

function measure(input: Budgeted, parts: Parts, fixed: number): number {
  return fixed + countMessages(input.counter, assembleHistory(parts.head, parts.summaryText, parts.rest));
}

/** Leaves out whole blocks from the oldest of `rest` until the request fits (the last block stays). */
function leaveOutOldest(input: Budgeted, parts: Parts, fixed: number): { parts: Parts; leftOut: number } {
  const starts = blockStarts(parts.rest);
  const suffix = suffixSums(parts.rest.map((message) => input.counter.countMessage(message)));
  const headTokens = countMessages(input.counter, parts.head) + (parts.summaryText ? input.counter.countText(parts.summaryText) + 40 : 0) + 60;
  const fits = (at: number) => fixed + headTokens + suffix[at]! <= input.plan.promptLimit;
  // A cut before a user message keeps each kept answer with its request; inside a turn only when it must.
  const from = starts.find((at) => parts.rest[at]!.role === 'user' && fits(at)) ?? starts.find(fits) ?? starts.at(-1) ?? 0;
  if (from === 0) return { parts, leftOut: 0 };
  const note = leftOutNote(from);
  return { parts: { ...parts, summaryText: parts.summaryText ? `${parts.summaryText}\n${note}` : note, rest: parts.rest.slice(from) }, leftOut: from };
}

/** The last resort: the remaining texts are cut, tool results first, until the request fits. */
function cutRemaining(input: Budgeted, parts: Parts, fixed: number): Parts {
  const shrink = (message: ChatMessage, keep: number): ChatMessage => ({ ...message, content: cutResult(message.content, keep) });
  let next: Parts = { ...parts, rest: parts.rest.map((message) => (message.role === 'tool' ? shrink(message, 200) : message)) };
  for (const keep of [2_000, 800, 300]) {
    if (measure(input, next, fixed) <= input.plan.promptLimit) return next;
    next = { head: next.head.map((message) => shrink(message, keep)), summaryText: next.summaryText, rest: next.rest.map((message) => shrink(message, keep)) };
  }
  return next;
}

export function fitRequest(input: FitInput): FittedRequest {
  const split = splitLines(input.lines, input.summary);
  return fitMessages({ ...input, head: toModelHistory(split.head), summaryText: input.summary?.text ?? null, rest: toModelHistory(split.rest) });
}

/**
 * The same fitting for messages that are not chat lines (the review's transcript): `head` is kept
 * whole, `summaryText` goes between it and `rest`, and `rest` gives way from its oldest block.
 */
export function fitMessages(input: Omit<FitInput, 'lines' | 'summary'> & Parts): FittedRequest {
  const { counter, plan } = input;
  const systemTokens = counter.countMessage({ role: 'system', content: input.systemPrompt });
  const toolTokens = counter.countTools(input.tools);
  const fixed = systemTokens + toolTokens;
  const cut = cutOldResults(input.rest, counter, cutThreshold(plan.window));
  let parts: Parts = { head: input.head, summaryText: input.summaryText, rest: cut.messages };
  let leftOut = 0;
  if (measure(input, parts, fixed) > plan.promptLimit) ({ parts, leftOut } = leaveOutOldest(input, parts, fixed));
  if (measure(input, parts, fixed) > plan.promptLimit) parts = cutRemaining(input, parts, fixed);
  const messages = assembleHistory(parts.head, parts.summaryText, parts.rest);
  return {
    messages,
    tokens: fixed + countMessages(counter, messages),
    systemTokens,
    toolTokens,
    summaryTokens: parts.summaryText ? counter.countText(parts.summaryText) : 0,
    leftOut,
    cutResults: cut.cut,
  };
}
