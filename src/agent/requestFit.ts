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
import { cutToolArguments, cutToolResult } from './jsonCut';
import { toModelHistory } from './modelHistory';
import { copiesMeantByLatestBlock, honestNotices } from './viewCopies';

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
  /** Tokens the request would count with nothing left out or cut for the window (old results cut as always): what compaction is decided on. */
  wholeTokens: number;
  systemTokens: number;
  toolTokens: number;
  summaryTokens: number;
  /** Messages left out (not summarised) to fit; 0 normally. */
  leftOut: number;
  /** Old tool results cut for this call. */
  cutResults: number;
  /** Views (tools/viewedFiles.ts keys) whose latest copy this request does not carry whole: sent again when asked for. */
  viewsNotWhole: string[];
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

/** Tool-call arguments and results longer than this are cut first when a request does not fit. */
const OVERSIZED_CHARS = 2_000;

/** A message cut to about `keep` characters a text: results and arguments inside their JSON, other texts at the end. */
function shrink(message: ChatMessage, keep: number, texts: boolean): ChatMessage {
  const calls = message.toolCalls?.some((call) => call.arguments.length > keep)
    ? message.toolCalls.map((call) => ({ ...call, arguments: cutToolArguments(call.arguments, keep) }))
    : message.toolCalls;
  let content = message.content;
  if (message.role === 'tool') content = cutToolResult(content, keep);
  else if (texts && content.length > keep) content = cutResult(content, keep);
  return content === message.content && calls === message.toolCalls ? message : { ...message, content, ...(calls ? { toolCalls: calls } : {}) };
}

/**
 * The last resort, when even the latest block does not fit (docs/context-window.md): for this
 * request only, first the tool calls' arguments and the tool results (a 1 MB `skill_manage` call,
 * a huge result), then every text, are cut shorter and shorter until the request fits. Results and
 * arguments are cut inside their JSON, never where the cut saves nothing; the stored messages keep
 * every character.
 */
function cutRemaining(input: Budgeted, parts: Parts, fixed: number): Parts {
  let next = parts;
  for (const [keep, texts] of [[2_000, true], [800, true], [300, true], [120, true]] as const) {
    if (measure(input, next, fixed) <= input.plan.promptLimit) return next;
    next = { head: next.head.map((message) => shrink(message, keep, texts)), summaryText: next.summaryText, rest: next.rest.map((message) => shrink(message, keep, texts)) };
  }
  return next;
}

export const leftOutCallsNote = (count: number, of: number) =>
  `[The last ${count} of the ${of} tool calls in this reply, and their results, are left out here to fit your context window.]`;

/**
 * Past every cut, a reply that asked for more tool calls than the window holds (a looping model's
 * 200 calls in one reply): for this request only, its last calls and their results are left out,
 * half of them at a time, with a note on the reply, until the request fits. The first calls stay:
 * they are the ones that ran (the loop runs at most 16 of a reply, in order, and answers the rest
 * with an error), and every call sent keeps its result (docs/context-window.md).
 */
function leaveOutLastCalls(input: Budgeted, parts: Parts, fixed: number): Parts {
  const at = parts.rest.findLastIndex((message) => message.role === 'assistant' && (message.toolCalls?.length ?? 0) > 1);
  if (at < 0) return parts;
  const reply = parts.rest[at]!;
  const calls = reply.toolCalls!;
  let next = parts;
  for (let keep = Math.floor(calls.length / 2); measure(input, next, fixed) > input.plan.promptLimit && keep >= 1; keep = keep === 1 ? 0 : Math.floor(keep / 2)) {
    const dropped = new Set(calls.slice(keep).map((call) => call.id));
    const note = leftOutCallsNote(dropped.size, calls.length);
    const kept = { ...reply, content: reply.content ? `${reply.content}\n${note}` : note, toolCalls: calls.slice(0, keep) };
    next = { ...parts, rest: parts.rest.flatMap((message, i) => (i === at ? [kept] : message.role === 'tool' && dropped.has(message.toolCallId ?? '') ? [] : [message])) };
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
  // A repeat notice of the latest block promises its copy: that copy stays as whole as the block (docs/skill-tools.md).
  const cut = cutOldResults(input.rest, counter, cutThreshold(plan.window), copiesMeantByLatestBlock(input.rest));
  let parts: Parts = { head: input.head, summaryText: input.summaryText, rest: cut.messages };
  let leftOut = 0;
  const wholeTokens = measure(input, parts, fixed);
  // Oversized tool-call arguments and results give way before whole turns do: the turn's own
  // request must not be left out for a 1 MB call (docs/context-window.md, "The last resort").
  if (measure(input, parts, fixed) > plan.promptLimit) parts = { ...parts, rest: parts.rest.map((message) => shrink(message, OVERSIZED_CHARS, false)) };
  if (measure(input, parts, fixed) > plan.promptLimit) ({ parts, leftOut } = leaveOutOldest(input, parts, fixed));
  if (measure(input, parts, fixed) > plan.promptLimit) parts = cutRemaining(input, parts, fixed);
  if (measure(input, parts, fixed) > plan.promptLimit) parts = leaveOutLastCalls(input, parts, fixed);
  // A notice whose copy was still cut or left out says so, and that view is sent again when asked for.
  const { messages, notWhole } = honestNotices([...input.head, ...input.rest], assembleHistory(parts.head, parts.summaryText, parts.rest));
  return {
    messages,
    tokens: fixed + countMessages(counter, messages),
    wholeTokens,
    systemTokens,
    toolTokens,
    summaryTokens: parts.summaryText ? counter.countText(parts.summaryText) : 0,
    leftOut,
    cutResults: cut.cut,
    viewsNotWhole: notWhole,
  };
}
