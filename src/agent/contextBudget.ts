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
  /** `max_tokens` of each chat request: the reply's room, reserved before anything else. */
  replyTokens: number;
  /** Kept free for the counter's error (an estimate may be a few percent low). */
  marginTokens: number;
  /** The most a prompt may count: window − reply − margin. Never exceeded. */
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

const clamp = (value: number, low: number, high: number) => Math.max(low, Math.min(high, Math.floor(value)));

/**
 * The plan for a window. The shares are chosen so that at 4,096 the fixed part stays near a
 * third of the window (docs/context-window.md has the figures): a quarter for the reply, 4 % margin,
 * 9 % for the index and 5 % for memory.
 */
export function planFor(window: ModelWindow | number, compactShare = DEFAULT_COMPACT_SHARE): ContextPlan {
  const tokens = typeof window === 'number' ? window : window.tokens;
  const replyTokens = clamp(tokens / 4, 128, 4_096);
  const marginTokens = clamp(tokens * 0.04, 32, 2_048);
  const promptLimit = Math.max(0, tokens - replyTokens - marginTokens);
  const share = Math.min(0.9, Math.max(0.2, compactShare));
  return {
    window: tokens,
    replyTokens,
    marginTokens,
    promptLimit,
    compactAt: Math.min(promptLimit, Math.floor(tokens * share)),
    indexTokens: clamp(tokens * 0.09, 0, MAX_INDEX_TOKENS),
    memoryTokens: clamp(tokens * 0.05, 0, 2_000),
    toolForm: tokens <= 1_536 ? 'none' : tokens <= 4_096 ? 'minimal' : tokens <= 16_384 ? 'compact' : 'full',
    indexNamesOnly: tokens <= 2_048,
    tailTokens: clamp(tokens * 0.15, 200, 16_000),
    summaryTokens: clamp(tokens * 0.08, 160, 2_000),
  };
}

/**
 * The threshold a conversation is compacted at, given what the fixed part (system prompt and
 * tools) takes: the plan's share of the window, but never less than the fixed part plus a fifth
 * of the window. At 2,048 the fixed part alone is near half the window, and a 50 % threshold
 * would summarise before every turn (docs/context-window.md, "The budget").
 */
export function compactionThreshold(plan: ContextPlan, fixedTokens: number): number {
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
