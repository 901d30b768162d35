/**
 * How a request is fitted to a model's window (docs/context-window.md, "The budget"). Every model
 * call Knack makes, chat, review, gate or summary, is measured with the model's token counter
 * against a plan derived from its window: room for the reply (`max_tokens`), a safety margin for
 * the counter's error, a share for the fixed part (instructions, tools, memory, skill index),
 * and the point at which the conversation is compacted. Plain TypeScript, no DOM.
 */
import type { ChatMessage, ToolSpec } from '../providers/provider';
import type { ModelWindow, TokenCounter } from '../providers/modelWindow';

/**
 * How tool schemas are sent: whole, with short descriptions, trimmed to what a 2K window holds, or
 * not at all (a 1K window cannot hold even the trimmed schemas and a conversation).
 */
export type ToolForm = 'full' | 'compact' | 'minimal' | 'none';

export interface ContextPlan {
  window: number;
  /** The most `max_tokens` of a chat request asks for (a quarter of the window). */
  replyTokens: number;
  /**
   * The reply's room every prompt leaves free: `replyTokens`, or less once the model's measured
   * replies show it answers shorter (docs/context-window.md, "The budget"). A request's
   * `max_tokens` is what the window has left after its prompt, up to `replyTokens`.
   */
  reserveTokens: number;
  /** A window of at most SMALL_WINDOW_TOKENS: compacted only when the next request would not fit. */
  small: boolean;
  /** Kept free for the counter's error (an estimate may be a few percent low). */
  marginTokens: number;
  /** The most a prompt may count: window − reply reserve − margin. Never exceeded. */
  promptLimit: number;
  /** Past this many prompt tokens the middle of the conversation is summarised. */
  compactAt: number;
  /** The skill index's budget (SPEC §7: a share of the window, at most 2,500). */
  indexTokens: number;
  /** The memory snapshot's budget, in tokens. */
  memoryTokens: number;
  toolForm: ToolForm;
  /** At 2,048 and below the index lists names only. */
  indexNamesOnly: boolean;
  /** The latest turns kept whole by a compaction, in tokens. */
  tailTokens: number;
  /** `max_tokens` of a summary request. */
  summaryTokens: number;
}

/** SPEC §7's hard cap on the index, whatever the window. */
export const MAX_INDEX_TOKENS = 2_500;
/** The compaction threshold's default share of the window (Hermes compresses at 50 %). */
export const DEFAULT_COMPACT_SHARE = 0.5;
/**
 * Up to this window the share rule gives way to the fit rule (SPEC §7.1): at 4,096 the fixed part
 * and the reply leave room for two or three turns below 50 %, so a share would summarise every
 * second turn; above it the share is Hermes' rule and right.
 */
export const SMALL_WINDOW_TOKENS = 16_384;

const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, Math.floor(value)));

/**
 * The plan for a window. The shares are chosen so that at 4,096 the fixed part stays near a
 * third of the window (docs/context-window.md has the figures): a quarter for the reply, 4 % margin,
 * 9 % for the index and 5 % for memory.
 */
export function planFor(window: ModelWindow | number, compactShare = DEFAULT_COMPACT_SHARE, measuredReply?: number | null): ContextPlan {
  const tokens = typeof window === 'number' ? window : window.tokens;
  const replyTokens = clamp(tokens / 4, 128, 4_096);
  const marginTokens = clamp(tokens * 0.04, 32, 2_048);
  const reserveTokens = replyReserve(replyTokens, tokens, measuredReply);
  const promptLimit = Math.max(0, tokens - reserveTokens - marginTokens);
  const share = Math.min(0.9, Math.max(0.2, compactShare));
  const small = tokens <= SMALL_WINDOW_TOKENS;
  return {
    window: tokens,
    replyTokens,
    reserveTokens,
    small,
    marginTokens,
    promptLimit,
    compactAt: small ? promptLimit : Math.min(promptLimit, Math.floor(tokens * share)),
    indexTokens: clamp(tokens * 0.09, 0, MAX_INDEX_TOKENS),
    memoryTokens: clamp(tokens * 0.05, 0, 2_000),
    toolForm: tokens <= 1_536 ? 'none' : tokens <= 4_096 ? 'minimal' : tokens <= 16_384 ? 'compact' : 'full',
    indexNamesOnly: tokens <= 2_048,
    tailTokens: clamp(tokens * 0.15, 200, 16_000),
    summaryTokens: clamp(tokens * 0.08, 160, 2_000),
  };
}

/**
 * The reply's reserve: with no measured reply, the whole `replyTokens`; once the model's recent
 * replies are known, the longest of them with a quarter more and 32 tokens of slack, never less
 * than a sixteenth of the window (128 at least) nor more than `replyTokens`. A small model's
 * answers are ~250 tokens, so at 4,096 this frees ~700 tokens, three turns of conversation.
 */
export function replyReserve(replyTokens: number, window: number, measuredReply?: number | null): number {
  if (!measuredReply || measuredReply <= 0) return replyTokens;
  const floor = Math.min(replyTokens, Math.max(128, Math.floor(window / 16)));
  return Math.max(floor, Math.min(replyTokens, Math.ceil(measuredReply * 1.25) + 32));
}

/** `max_tokens` of a request counting `promptTokens`: what the window leaves, up to `replyTokens`. */
export function maxTokensFor(plan: ContextPlan, promptTokens: number): number {
  return Math.max(1, Math.min(plan.replyTokens, plan.window - plan.marginTokens - promptTokens));
}

/**
 * The threshold a conversation is compacted at, given what the fixed part (system prompt and
 * tools) takes. A small window: the prompt limit itself, so a summary is written only when the
 * request and its reply's reserve would not fit (SPEC §7.1). A large one: the plan's share of the
 * window, but never less than the fixed part plus a fifth of the window (docs/context-window.md).
 */
export function compactionThreshold(plan: ContextPlan, fixedTokens: number): number {
  if (plan.small) return plan.promptLimit;
  return Math.min(plan.promptLimit, Math.max(plan.compactAt, fixedTokens + Math.floor(plan.window * 0.2)));
}

/**
 * The tools a window of this plan is offered: all of them above 2,048; at 2,048 and below only
 * the ones that load and write skills (the index names skills, skill_view loads them, skill_manage
 * learns) and the proven forged tools (`<skill>__<tool>`: a small model gets arithmetic wrong, a
 * tool does not), since every schema is a turn less of conversation.
 */
export function offeredToolNames(plan: ContextPlan, names: readonly string[]): string[] {
  if (plan.window > 2_048) return [...names];
  return names.filter((name) => SMALL_WINDOW_TOOLS.includes(name) || name.includes('__'));
}

export const SMALL_WINDOW_TOOLS: readonly string[] = ['skill_view', 'skill_manage'];

/** What fills a request, by part, for the context meter (SPEC §7.1). */
export interface ContextParts {
  instructions: number;
  tools: number;
  skills: number;
  memory: number;
  conversation: number;
  summary: number;
}

export interface ContextUsage {
  used: number;
  window: ModelWindow;
  parts: ContextParts;
}

/** Tokens of a whole request: the system prompt, the messages and the tool schemas. */
export function countRequest(counter: TokenCounter, systemPrompt: string, messages: readonly ChatMessage[], tools?: readonly ToolSpec[]): number {
  let total = counter.countMessage({ role: 'system', content: systemPrompt }) + counter.countTools(tools);
  for (const message of messages) total += counter.countMessage(message);
  return total;
}

export function countMessages(counter: TokenCounter, messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += counter.countMessage(message);
  return total;
}
