/**
 * Compaction (docs/context-window.md, "Compaction"): Hermes' context compression, fitted to
 * small windows. The middle of the conversation, between the first user message and the latest
 * turns, becomes one structured summary written by the model itself; a previous summary is folded
 * into the new one. Every summary request fits the window too: a middle too big for one request
 * is summarised in pieces, and a summary that comes back too long is cut, never asked for again. The caller
 * stores the result with the session; the transcript itself is never changed. No DOM.
 */
import type { TokenCounter } from '../providers/modelWindow';
import type { ChatLine } from './chatLines';
import { compactionThreshold, type ContextPlan } from './contextBudget';
import { cutResult, suffixSums, type SessionSummary } from './historyView';
import { toModelHistory } from './modelHistory';

/**
 * One plain model call without tools: the summary's text (with `cut` when the reply stopped at
 * `max_tokens`), or a throw when the call failed.
 */
export type Summariser = (request: { system: string; prompt: string; maxTokens: number }) => Promise<string | SummaryReply>;

export interface SummaryReply {
  text: string;
  /** The reply stopped at its `max_tokens`: its last line may be half a line. */
  cut: boolean;
}

export const SUMMARY_INSTRUCTIONS = `You keep the memory of a long conversation between a user and an assistant (you). Write a summary that lets the conversation go on as if nothing had been left out. Use these headings, each with short bullet points, and leave a heading out when it has nothing:
Goal: what the user wants overall.
Facts from the user: names, numbers, dates, preferences and settings the user gave, word for word.
Decisions: what was agreed or chosen, and why.
Skills and files: skills loaded, created or changed, files written, tools used and what they returned.
Open: questions not yet answered, steps not yet done.
Never drop a fact the user gave. Write only the summary.`;

export interface CompactionInput {
  lines: readonly ChatLine[];
  summary: SessionSummary | null;
  counter: TokenCounter;
  plan: ContextPlan;
  /** Tokens of the request besides the conversation (system prompt, tools): the tail is sized from what is left. */
  fixedTokens: number;
  summarise: Summariser;
  now: number;
}

/** A line as a transcript entry for the summariser; long tool results and arguments cut. */
function transcriptEntry(line: ChatLine): string {
  if (line.role === 'tool') return `Result of ${line.name ?? 'a tool'}: ${cutResult(line.content, 600)}`;
  const who = line.role === 'user' ? 'User' : line.role === 'assistant' ? 'Assistant' : 'System';
  const parts = line.content.trim() ? [`${who}: ${line.content.trim()}`] : [];
  for (const call of line.toolCalls ?? []) parts.push(`Assistant called ${call.name}(${cutResult(call.arguments, 300)})`);
  return parts.join('\n');
}

/**
 * Where the kept tail begins among `rest`: the earliest block start whose tail fits `tailBudget`;
 * when none does, the latest user message (its turn kept whole) if that tail fits twice the
 * budget, else the latest block start. null when there is nothing to summarise.
 */
export function tailStart(rest: readonly ChatLine[], counter: TokenCounter, tailBudget: number): number | null {
  const starts: number[] = [];
  rest.forEach((line, at) => {
    if (at > 0 && (line.role === 'user' || line.role === 'assistant')) starts.push(at);
  });
  if (starts.length === 0) return null;
  const suffix = suffixSums(rest.map((line) => toModelHistory([line]).reduce((sum, message) => sum + counter.countMessage(message), 0)));
  const fitting = starts.find((at) => suffix[at]! <= tailBudget);
  if (fitting !== undefined) return fitting;
  const lastUser = starts.findLast((at) => rest[at]!.role === 'user');
  return lastUser !== undefined && suffix[lastUser]! <= 2 * tailBudget ? lastUser : starts.at(-1)!;
}

/**
 * The tail of a compaction that was asked for (Compact now, a refusal): the latest two turns, or
 * less when they do not fit the tail budget, whatever the threshold would have left.
 */
function forcedTailStart(rest: readonly ChatLine[], counter: TokenCounter, tailBudget: number): number | null {
  const users = rest.flatMap((line, at) => (at > 0 && line.role === 'user' ? [at] : []));
  const normal = tailStart(rest, counter, tailBudget);
  const latestTwo = users.at(-2) ?? users.at(-1);
  return latestTwo !== undefined && normal !== null ? Math.max(latestTwo, normal) : normal;
}

/**
 * The tokens the kept tail may take, of what the threshold leaves after the fixed part and a
 * summary: half on a large window (Hermes); a quarter on a small one, where the threshold is the
 * prompt limit itself, so a compaction leaves room for several turns before the next one
 * (docs/context-window.md, "Compaction"). A tail over budget still keeps the latest turn.
 */
export function tailBudgetOf(plan: ContextPlan, fixedTokens: number): number {
  const share = plan.small ? 0.25 : 0.5;
  return Math.max(0, Math.floor((compactionThreshold(plan, fixedTokens) - fixedTokens - plan.summaryTokens) * share));
}

/** Splits transcript entries into pieces of at most `limit` tokens (an entry too big alone is cut). */
function pieces(entries: string[], counter: TokenCounter, limit: number): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (let entry of entries) {
    let tokens = counter.countText(entry) + 2;
    if (tokens > limit) {
      entry = cutResult(entry, Math.max(200, Math.floor((entry.length * limit) / tokens) - 200));
      tokens = counter.countText(entry) + 2;
    }
    if (used + tokens > limit && current.length) {
      out.push(current.join('\n\n'));
      current = [];
      used = 0;
    }
    current.push(entry);
    used += tokens;
  }
  if (current.length) out.push(current.join('\n\n'));
  return out;
}

function promptFor(previous: string | null, piece: string, targetTokens: number): string {
  const words = Math.max(60, Math.floor(targetTokens * 0.6));
  const earlier = previous ? `The summary so far:\n${previous.trim()}\n\n` : '';
  return `${earlier}The conversation to add to it:\n${piece}\n\nWrite the updated summary in at most ${words} words.`;
}

/** Cuts a text to about `tokens` tokens, at a line end where one is near. */
function cutToTokens(text: string, counter: TokenCounter, tokens: number): string {
  const total = counter.countText(text);
  if (total <= tokens) return text;
  const chars = Math.floor((text.length * tokens) / total) - 20;
  const cut = text.slice(0, Math.max(0, chars));
  const line = cut.lastIndexOf('\n');
  return `${line > chars * 0.7 ? cut.slice(0, line) : cut}\n…`;
}

/**
 * The summary as stored: one request per summary, never a second one to shrink it (SPEC §7.1).
 * The request's `max_tokens` is the summary's room, so the server stops a long one there; a reply
 * stopped that way loses its half line, and one still over its room by the counter (which may
 * count a few percent over the server) is cut at a line end. The facts come first under the
 * summary's headings, so a cut takes the least needed part.
 */
export function boundedSummary(reply: string | SummaryReply, counter: TokenCounter, summaryTokens: number): string {
  let text = typeof reply === 'string' ? reply.trim() : reply.text.trim();
  if (typeof reply !== 'string' && reply.cut) {
    const end = text.lastIndexOf('\n');
    if (end > 0) text = text.slice(0, end).trimEnd();
  }
  if (counter.countText(text) <= Math.floor(summaryTokens * 1.1)) return text;
  return cutToTokens(text, counter, summaryTokens).trim();
}

/**
 * Summarises the middle of the conversation; returns the session's new summary, or null when
 * nothing can be summarised (the conversation is only its latest block). Throws when a summary
 * call fails: the caller then leaves the oldest turns out with a note instead.
 */
export async function compactConversation(input: CompactionInput, rest: readonly ChatLine[], options: { forced?: boolean } = {}): Promise<SessionSummary | null> {
  const { counter, plan, summarise } = input;
  const start = options.forced ? forcedTailStart(rest, counter, tailBudgetOf(plan, input.fixedTokens)) : tailStart(rest, counter, tailBudgetOf(plan, input.fixedTokens));
  if (start === null) return null;
  const middle = rest.slice(0, start);
  const systemTokens = counter.countText(SUMMARY_INSTRUCTIONS) + 16;
  let text = input.summary?.text ?? null;
  const entries = middle.map(transcriptEntry).filter((entry) => entry.length > 0);
  // Room for one piece: the window less the reply, the margin, the instructions and a previous summary at its largest.
  const room = plan.window - 2 * plan.summaryTokens - plan.marginTokens - systemTokens - 80;
  for (const piece of pieces(entries, counter, Math.max(200, room))) {
    const reply = await summarise({ system: SUMMARY_INSTRUCTIONS, prompt: promptFor(text, piece, plan.summaryTokens), maxTokens: plan.summaryTokens });
    const bounded = boundedSummary(reply, counter, plan.summaryTokens);
    if (!bounded) throw new Error('The model wrote an empty summary.');
    text = bounded;
  }
  return { text: text ?? '', throughSeq: middle.at(-1)!.seq, at: input.now, count: (input.summary?.count ?? 0) + 1 };
}
