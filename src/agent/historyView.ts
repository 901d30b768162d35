/**
 * The conversation as one model call sees it once a window applies (docs/context-window.md,
 * "Compaction"): the first user message, the stored summary of what followed it (if any), then the
 * messages after the summary. Large old tool results are cut for the call only; when even that
 * does not fit, whole reply blocks are left out from the oldest, with a note, so a tool call never
 * loses its result. Nothing here changes what is stored. Plain TypeScript, no DOM.
 */
import type { ChatMessage } from '../providers/provider';
import type { TokenCounter } from '../providers/modelWindow';
import type { ChatLine } from './chatLines';
import type { SessionSummary } from '../sessions/sessionStore';
import { cutToolResult } from './jsonCut';

export type { SessionSummary };

export const SUMMARY_HEADING = '[Summary of the earlier conversation, written by you when it grew too long for your context window]';

/** The lines split around the summary: the first user line, the covered lines, and the rest. */
export interface SplitLines {
  head: ChatLine[];
  covered: ChatLine[];
  rest: ChatLine[];
}

export function splitLines(lines: readonly ChatLine[], summary: SessionSummary | null): SplitLines {
  const visible = lines.filter((line) => !line.transient);
  const first = visible.findIndex((line) => line.role === 'user');
  if (first < 0) return { head: [], covered: [], rest: visible };
  const head = visible.slice(0, first + 1);
  const after = visible.slice(first + 1);
  if (!summary) return { head, covered: [], rest: after };
  return { head, covered: after.filter((line) => line.seq <= summary.throughSeq), rest: after.filter((line) => line.seq > summary.throughSeq) };
}

/**
 * Head, summary and the rest as messages. The summary is the assistant's when the rest starts
 * with a user message; when the rest starts inside a turn (an assistant line), the summary joins
 * the first user message instead, so no two messages of one role follow each other.
 */
export function assembleHistory(head: ChatMessage[], summaryText: string | null, rest: ChatMessage[]): ChatMessage[] {
  if (summaryText === null) return [...head, ...rest];
  const block = `${SUMMARY_HEADING}\n${summaryText.trim()}`;
  const last = head.at(-1);
  if (rest[0]?.role === 'assistant' && last?.role === 'user') {
    return [...head.slice(0, -1), { ...last, content: `${last.content}\n\n${block}` }, ...rest];
  }
  return [...head, { role: 'assistant', content: block }, ...rest];
}

/** A tool result longer than this many tokens is cut when it is not in the latest reply block. */
export function cutThreshold(window: number): number {
  return Math.max(120, Math.floor(window * 0.04));
}

const CUT_KEEP_CHARS = 400;

export function cutResult(content: string, keepChars = CUT_KEEP_CHARS): string {
  if (content.length <= keepChars) return content;
  return `${content.slice(0, keepChars)}… [cut to save room in the context window: ${content.length - keepChars} more characters; call the tool again if you need them]`;
}

/** The index of the latest assistant message with tool calls, or -1. */
function latestCallBlock(messages: readonly ChatMessage[]): number {
  for (let at = messages.length - 1; at >= 0; at--) if (messages[at]!.role === 'assistant' && messages[at]!.toolCalls?.length) return at;
  return -1;
}

/**
 * Cuts tool results before the latest reply block that count more than `threshold` tokens, except
 * the results named in `keep` (by call id): the copies that the latest block's repeat notices mean
 * (agent/viewCopies.ts).
 */
export function cutOldResults(messages: ChatMessage[], counter: TokenCounter, threshold: number, keep: ReadonlySet<string> = new Set()): { messages: ChatMessage[]; cut: number } {
  const keepFrom = latestCallBlock(messages);
  let cut = 0;
  const out = messages.map((message, at) => {
    if (message.role !== 'tool' || at > keepFrom || counter.countText(message.content) <= threshold) return message;
    if (message.toolCallId !== undefined && keep.has(message.toolCallId)) return message;
    // Cut inside the JSON, so the model still reads a valid result (docs/context-window.md).
    const content = cutToolResult(message.content, CUT_KEEP_CHARS + 200);
    if (content === message.content) return message;
    cut += 1;
    return { ...message, content };
  });
  return { messages: out, cut };
}

/**
 * Where the messages may be split without separating a call from its result: before each user
 * message and each assistant message (a reply block starts there). Index 0 is excluded.
 */
export function blockStarts(messages: readonly ChatMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((message, at) => {
    if (at > 0 && (message.role === 'user' || message.role === 'assistant')) starts.push(at);
  });
  return starts;
}

/** Suffix sums: for each index, the total of the values from it to the end (one more entry, 0). */
export function suffixSums(values: readonly number[]): number[] {
  const sums = new Array<number>(values.length + 1).fill(0);
  for (let at = values.length - 1; at >= 0; at--) sums[at] = sums[at + 1]! + values[at]!;
  return sums;
}
