import { ProviderError, type ChatMessage, type ChatProvider, type ToolCall, type ToolSpec } from '../providers/provider';
import { fail, toJson, type ToolOutcome } from '../tools/toolResult';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { WriteContext } from '../tools/writeContext';
import type { LearningCounters, LearningIntervals } from './learningCounters';
import { ToolCallIds } from './toolCallIds';

/**
 * One user turn: model call → tool calls → results → model call … until the model answers
 * without tools, the user stops it, or the iteration limit is reached. The loop knows nothing
 * about which provider it talks to, nor about the UI: it reports through `onEvent` and returns
 * the messages the turn added. The same loop runs the chat (UI thread) and the review (worker).
 */
export type AgentEvent =
  | { type: 'model-call'; iteration: number }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  /** `result` is the JSON text the model gets; `outcome` the same result as fields, for readers in code. */
  | { type: 'tool-result'; call: ToolCall; result: string; success: boolean; outcome: ToolOutcome }
  | { type: 'message'; message: ChatMessage }
  /** The server's count of a call's prompt, beside the count the request was fitted with. */
  | { type: 'usage'; promptTokens: number; estimated: number | null };

/** One model call's request, as `prepareCall` fitted it to the window (docs/context-window.md). */
export interface PreparedRequest {
  systemPrompt: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  maxTokens?: number;
  /** The request's tokens as counted when it was fitted. */
  tokens?: number;
  /** Tokens the window has left for the results of this call's tool calls, all of them together. */
  resultRoomTokens?: number;
  /** Views whose latest copy this request does not carry whole (agent/viewCopies.ts): the turn's record forgets them. */
  viewsNotWhole?: readonly string[];
}

/** Characters per token assumed for a result's room: JSON packs fewer characters a token than prose. */
const RESULT_CHARS_PER_TOKEN = 3;

export type TurnEnd = 'final' | 'stopped' | 'iteration-limit' | 'error';

export interface TurnResult {
  /** Messages this turn added after the user's message, in order. */
  messages: ChatMessage[];
  /** The final assistant text, or null when the turn ended without one. */
  finalReply: string | null;
  end: TurnEnd;
  counters: LearningCounters;
  error?: ProviderError | Error;
  modelCalls: number;
  /**
   * The last model call's stream ended without a finish reason or end marker (end 'error'):
   * its text is kept, its calls are not run, and the chat marks the reply cut off.
   */
  cutOff?: boolean;
}

export interface AgentTurnOptions {
  provider: ChatProvider;
  registry: ToolRegistry;
  context: WriteContext;
  systemPrompt: string;
  /** Earlier messages of the session, without the system prompt, ending with the user's message. */
  history: ChatMessage[];
  counters: LearningCounters;
  intervals: LearningIntervals;
  maxIterations: number;
  signal?: AbortSignal;
  temperature?: number;
  onEvent?: (event: AgentEvent) => void;
  /** Whether this turn counts as a user turn for `turnsSinceMemory` (the review's does not). */
  countsAsUserTurn?: boolean;
  /**
   * Builds each model call's request, fitted to the model's window (docs/context-window.md); it
   * runs before every call, so tool results piling up within a turn are fitted too. Without it:
   * the system prompt, the history and what the turn added, with all the registry's tools.
   */
  prepareCall?: (added: readonly ChatMessage[]) => Promise<PreparedRequest>;
  /**
   * A context-length refusal (the window was smaller than known): true when the request has been
   * made to fit and the call may be sent again. Asked once per turn.
   */
  recoverFromLength?: (error: ProviderError) => Promise<boolean>;
}

export const DEFAULT_MAX_ITERATIONS = 24;

/**
 * Tool calls run per model reply. A reply with hundreds of calls (a looping or hostile model)
 * would otherwise run them all before Stop or the next render gets a turn; the calls beyond
 * the cap get a failure result telling the model to send fewer (docs/chat.md).
 */
export const MAX_TOOL_CALLS_PER_REPLY = 16;

export function tooManyCallsMessage(cap: number): string {
  return `Too many tool calls in one reply: only the first ${cap} ran; send fewer per reply.`;
}

/** The failure of a reply cut off mid-stream (shown only where no chat marks the reply). */
export const CUT_OFF_MESSAGE = 'The reply was cut off: the stream ended before the model finished.';

export function toolSpecs(registry: ToolRegistry): ToolSpec[] {
  return registry.definitions().map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
}

function iterationLimitMessage(limit: number): string {
  return `I stopped after ${limit} steps without reaching an answer. Tell me how to continue, or narrow the request, and I will pick up from here.`;
}

/** What one model call produced: its text, the tool calls it asked for, and how it ended. */
interface ModelReply {
  text: string;
  calls: ToolCall[];
  /** The user stopped the call (an abort finish or an aborted signal). */
  stopped: boolean;
  /** The stream ended without a finish reason or end marker. */
  cutOff: boolean;
  /** The call failed for another reason; `text` holds what streamed before the failure. */
  error?: Error;
}

/** One model call, streamed: deltas and calls are reported as they arrive. */
async function callModel(options: AgentTurnOptions, request: PreparedRequest, ids: ToolCallIds): Promise<ModelReply> {
  const { provider, signal, onEvent } = options;
  const reply: ModelReply = { text: '', calls: [], stopped: false, cutOff: false };
  try {
    const tools = request.tools ?? [];
    const stream = provider.stream({
      messages: [{ role: 'system', content: request.systemPrompt }, ...request.messages],
      tools: tools.length ? tools : undefined,
      temperature: options.temperature,
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      signal,
    });
    for await (const part of stream) {
      if (part.type === 'usage' && part.usage.promptTokens !== undefined) {
        onEvent?.({ type: 'usage', promptTokens: part.usage.promptTokens, estimated: request.tokens ?? null });
      } else if (part.type === 'text-delta') {
        reply.text += part.text;
        onEvent?.({ type: 'text-delta', text: part.text });
      } else if (part.type === 'reasoning-delta') {
        onEvent?.({ type: 'reasoning-delta', text: part.text });
      } else if (part.type === 'tool-call') {
        const call = ids.claim(part.call);
        reply.calls.push(call);
        onEvent?.({ type: 'tool-call', call });
      } else if (part.type === 'finish' && part.reason === 'abort') {
        reply.stopped = true;
      } else if (part.type === 'finish' && part.reason === 'cut-off') {
        reply.cutOff = true;
      }
    }
  } catch (error) {
    if (signal?.aborted) reply.stopped = true;
    else reply.error = error instanceof Error ? error : new Error(String(error));
  }
  if (signal?.aborted) reply.stopped = true;
  return reply;
}

/**
 * Gives the event loop a turn: tools that answer from memory resolve in microtasks only, so
 * without this a reply's calls would run back to back with no render and no Stop click between.
 */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Undispatched results (over the cap, unreadable) added between two turns of the event loop. */
const RESULTS_PER_YIELD = 8;

/**
 * Runs the calls of one model reply in order, adding a tool message for each; calls beyond
 * the cap get a failure result instead, so every call id still has one result. Returns false
 * when the user stopped the turn between calls (the calls left are not run).
 */
async function runToolCalls(
  options: AgentTurnOptions,
  calls: ToolCall[],
  counters: LearningCounters,
  emitMessage: (message: ChatMessage) => void,
  roomTokens?: number,
): Promise<boolean> {
  const { registry, signal, onEvent } = options;
  // The window's room shared by the reply's calls: long texts come back in parts (docs/context-window.md).
  const dispatching = Math.max(1, Math.min(calls.length, MAX_TOOL_CALLS_PER_REPLY));
  const context = roomTokens === undefined ? options.context : { ...options.context, resultRoomChars: Math.floor((roomTokens * RESULT_CHARS_PER_TOKEN) / dispatching) };
  for (const [position, call] of calls.entries()) {
    if (signal?.aborted) return false;
    const overCap = position >= MAX_TOOL_CALLS_PER_REPLY;
    const dispatched = !overCap && !call.parseError;
    let outcome: ToolOutcome;
    // Every result is a message the chat shows and stores; undispatched ones cost no await, so
    // without a turn now and then a reply of hundreds would add them all in one long task.
    if (position > 0 && (dispatched || position % RESULTS_PER_YIELD === 0)) {
      await yieldToEventLoop();
      if (signal?.aborted) return false;
    }
    if (overCap) outcome = fail(tooManyCallsMessage(MAX_TOOL_CALLS_PER_REPLY));
    else if (call.parseError) outcome = fail(`Your tool call could not be read: ${call.parseError}. Send it again as valid JSON.`);
    else outcome = await registry.dispatchOutcome(call.name, call.arguments, context);
    const output = toJson(outcome);
    // Hermes resets on dispatch, even when the call then fails validation.
    if (dispatched && call.name === 'skill_manage') counters.itersSinceSkill = 0;
    if (dispatched && call.name === 'memory') counters.turnsSinceMemory = 0;
    onEvent?.({ type: 'tool-result', call, result: output, success: outcome.success === true, outcome });
    emitMessage({ role: 'tool', content: output, toolCallId: call.id, name: call.name });
  }
  return true;
}

export async function runAgentTurn(options: AgentTurnOptions): Promise<TurnResult> {
  const { registry, signal, onEvent } = options;
  const counters = { ...options.counters };
  const hasSkillManage = registry.get('skill_manage') !== undefined && options.intervals.creationNudgeInterval > 0;
  const hasMemory = registry.get('memory') !== undefined && options.intervals.memoryNudgeInterval > 0;
  if (hasMemory && options.countsAsUserTurn !== false) counters.turnsSinceMemory += 1;

  const added: ChatMessage[] = [];
  const emitMessage = (message: ChatMessage) => {
    added.push(message);
    onEvent?.({ type: 'message', message });
  };
  const tools = toolSpecs(registry);
  const prepare = options.prepareCall ?? (async (turn: readonly ChatMessage[]): Promise<PreparedRequest> => ({ systemPrompt: options.systemPrompt, messages: [...options.history, ...turn], tools }));
  // A file the request did not carry whole is sent again by the next view, not answered with a notice (docs/skill-tools.md).
  const prepareRequest = async (): Promise<PreparedRequest> => {
    const request = await prepare(added);
    if (request.viewsNotWhole?.length) options.context.viewedFiles?.forget(request.viewsNotWhole);
    return request;
  };
  const ids = new ToolCallIds(options.history);
  let lengthRetried = false;
  let modelCalls = 0;

  const result = (end: TurnEnd, finalReply: string | null, error?: Error): TurnResult => ({
    messages: added,
    finalReply,
    end,
    counters,
    modelCalls,
    ...(error ? { error } : {}),
  });

  for (let iteration = 1; iteration <= options.maxIterations; iteration++) {
    if (signal?.aborted) return result('stopped', null);
    if (hasSkillManage) counters.itersSinceSkill += 1;
    modelCalls += 1;
    onEvent?.({ type: 'model-call', iteration });

    let request = await prepareRequest();
    let reply = await callModel(options, request, ids);
    if (reply.error instanceof ProviderError && reply.error.contextTooLong && !reply.text && options.recoverFromLength && !lengthRetried && !signal?.aborted) {
      // The window was smaller than known: it is learned, the request made to fit, and sent once more.
      lengthRetried = true;
      if (await options.recoverFromLength(reply.error)) reply = await callModel(options, (request = await prepareRequest()), ids);
    }
    const { text, calls, stopped, cutOff, error } = reply;
    if (error) {
      if (text) emitMessage({ role: 'assistant', content: text });
      return result('error', null, error);
    }
    if (stopped) {
      // Keep what was said before Stop; the calls it had started are not run.
      if (text) emitMessage({ role: 'assistant', content: text });
      return result('stopped', null);
    }
    if (cutOff) {
      // What arrived stays (and the calls, to be seen), but nothing of a reply that may be
      // missing its end is run: the user can retry it.
      if (text || calls.length) emitMessage({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      return { ...result('error', null, new ProviderError('stream', CUT_OFF_MESSAGE, 'Try again; if it keeps happening, check the server or proxy log.')), cutOff: true };
    }

    if (calls.length === 0) {
      if (!text.trim()) return result('final', null);
      emitMessage({ role: 'assistant', content: text });
      return result('final', text);
    }

    emitMessage({ role: 'assistant', content: text, toolCalls: calls });
    if (!(await runToolCalls(options, calls, counters, emitMessage, request.resultRoomTokens))) return result('stopped', null);
  }
  const notice = iterationLimitMessage(options.maxIterations);
  emitMessage({ role: 'assistant', content: notice });
  return result('iteration-limit', null);
}
