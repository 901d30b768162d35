import { runAgentTurn, toolSpecs, type AgentEvent, type PreparedRequest } from '../agent/agentLoop';
import { toolsInForm } from '../agent/compactTools';
import { planFor } from '../agent/contextBudget';
import { fitMessages } from '../agent/requestFit';
import type { ModelWindow, TokenCounter } from '../providers/modelWindow';
import { zeroCounters, type ReviewKind } from '../agent/learningCounters';
import type { ChatMessage, ChatProvider } from '../providers/provider';
import { fail, type ToolOutcome } from '../tools/toolResult';
import { ToolRegistry, type ToolDefinition } from '../tools/toolRegistry';
import { createWriteContext } from '../tools/writeContext';
import { REVIEW_MAX_MODEL_CALLS, REVIEW_TOOLS, reviewPrompt } from './reviewPrompts';

/**
 * One background review (docs/learning-loop.md): the session's messages as history, the review prompt as
 * the last user message, only the memory and skill tools, at most 16 model calls, writes under
 * the `review` origin. It returns a transcript for the Activity view and never touches the
 * user's session; its counters are off, so it cannot schedule another review.
 */
export interface ReviewToolCall {
  name: string;
  arguments: string;
  /** The JSON text the model got (shown in the Activity view). */
  result: string;
  success: boolean;
  /** From the tool's outcome fields, not its text: the write waits in Pending for approval. */
  staged?: boolean;
  /** The outcome's one-line description of a staged write. */
  gist?: string;
}

/** A review tool call from the agent loop's structured result. */
export function reviewToolCall(call: { name: string; arguments: string }, result: string, outcome: ToolOutcome): ReviewToolCall {
  const staged = outcome.success && outcome.staged === true;
  return {
    name: call.name,
    arguments: call.arguments,
    result,
    success: outcome.success,
    ...(staged ? { staged: true } : {}),
    ...(staged && typeof outcome.gist === 'string' ? { gist: outcome.gist } : {}),
  };
}

/** Whether any of the calls staged a write for approval (the Pending view must refresh). */
export function stagedAny(calls: readonly ReviewToolCall[]): boolean {
  return calls.some((call) => call.success && call.staged === true);
}

export interface ReviewOutcome {
  kind: ReviewKind;
  end: 'final' | 'stopped' | 'iteration-limit' | 'error';
  finalText: string | null;
  toolCalls: ReviewToolCall[];
  /** Short notices for the chat, e.g. "Learned: skill `x` created — unverified". */
  notices: string[];
  modelCalls: number;
  error?: string;
}

/** The review's registry: the four allowed tools; anything else gets a refusal result. */
export function reviewRegistry(full: ToolRegistry): ToolRegistry {
  const allowed = full.subset([...REVIEW_TOOLS]);
  const refusal = (name: string): ToolDefinition => ({
    name,
    description: 'not available in review',
    parameters: { type: 'object', properties: {}, required: [] },
    run: async () => fail(`The review agent may not call '${name}'. Only memory, skills_list, skill_view and skill_manage are allowed here.`),
  });
  // Tools the chat has but the review must not use answer with a refusal rather than "unknown".
  for (const name of full.names()) if (!allowed.get(name)) allowed.register(refusal(name));
  return allowed;
}

function noticeFor(call: ReviewToolCall): string | null {
  if (!call.success) return null;
  if (call.staged) return `Staged for your approval: ${call.gist ?? call.name}`;
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(call.arguments || '{}');
  } catch {
    return null;
  }
  if (call.name === 'skill_manage') {
    const name = String(args.name ?? '');
    const verbs: Record<string, string> = { create: 'created', edit: 'rewritten', patch: 'patched', write_file: 'extended', remove_file: 'trimmed', delete: 'archived' };
    const verb = verbs[String(args.action)] ?? 'updated';
    return `Learned: skill \`${name}\` ${verb} — unverified`;
  }
  if (call.name === 'memory') return `Learned: memory updated`;
  return null;
}

/**
 * Each review call fitted to the review model's window: the oldest turns give way first, so the
 * latest turn, with the user's correction and the turn's tool calls, and the review's own
 * instruction stay (docs/context-window.md, "Background work").
 */
function reviewCallFitter(
  budget: { window: ModelWindow; counter: TokenCounter },
  systemPrompt: string,
  history: ChatMessage[],
  registry: ToolRegistry,
): (added: readonly ChatMessage[]) => Promise<PreparedRequest> {
  const plan = planFor(budget.window);
  const tools = toolsInForm(toolSpecs(registry), plan.toolForm);
  return async (added) => {
    const fit = fitMessages({ head: [], summaryText: null, rest: [...history, ...added], systemPrompt, tools, counter: budget.counter, plan });
    return { systemPrompt, messages: fit.messages, tools, maxTokens: plan.replyTokens, tokens: fit.tokens, resultRoomTokens: Math.max(0, plan.promptLimit - fit.tokens - 100), viewsNotWhole: fit.viewsNotWhole };
  };
}

export async function runReview(options: {
  provider: ChatProvider;
  tools: ToolRegistry;
  kind: ReviewKind;
  sessionMessages: ChatMessage[];
  systemPrompt: string;
  sessionId?: string;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent) => void;
  /** The review model's window and counter: every call of the review is fitted to it (docs/context-window.md). */
  window?: { window: ModelWindow; counter: TokenCounter };
}): Promise<ReviewOutcome> {
  const context = createWriteContext('review', options.sessionId);
  const registry = reviewRegistry(options.tools);
  const history: ChatMessage[] = [...options.sessionMessages, { role: 'user', content: reviewPrompt(options.kind) }];
  const toolCalls: ReviewToolCall[] = [];
  const pendingArgs = new Map<string, string>();
  const turn = await runAgentTurn({
    provider: options.provider,
    registry,
    context,
    systemPrompt: options.systemPrompt,
    history,
    ...(options.window ? { prepareCall: reviewCallFitter(options.window, options.systemPrompt, history, registry) } : {}),
    counters: zeroCounters(),
    intervals: { creationNudgeInterval: 0, memoryNudgeInterval: 0 },
    maxIterations: REVIEW_MAX_MODEL_CALLS,
    countsAsUserTurn: false,
    signal: options.signal,
    temperature: 0,
    onEvent: (event) => {
      if (event.type === 'tool-call') pendingArgs.set(event.call.id, event.call.arguments);
      if (event.type === 'tool-result') {
        const args = pendingArgs.get(event.call.id) ?? event.call.arguments;
        toolCalls.push(reviewToolCall({ name: event.call.name, arguments: args }, event.result, event.outcome));
      }
      options.onEvent?.(event);
    },
  });
  const notices = [...new Set(toolCalls.map(noticeFor).filter((n): n is string => n !== null))];
  return {
    kind: options.kind,
    end: turn.end,
    finalText: turn.finalReply,
    toolCalls,
    notices,
    modelCalls: turn.modelCalls,
    ...(turn.error ? { error: turn.error.message } : {}),
  };
}
