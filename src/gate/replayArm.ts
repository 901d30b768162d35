/**
 * One arm of one case, replayed against a provider (docs/gate.md, "Replay"): the request is
 * sent, the stream collected, and the result classified so the caller can tell a measured
 * answer from one that measures nothing (an error, an empty or cut-off answer, a request the
 * model cannot read at all).
 *
 * What happens here and nowhere else:
 * - transport failures, 5xx and 429 are retried twice, with backoff (1 s, 2 s, ±20 %) or the
 *   server's Retry-After (at most 30 s);
 * - a provider that rejects `temperature` or `seed` gets the request once more without it, and
 *   the (provider, model) pair is remembered in a `ParamMemory` so later requests skip it;
 * - a tool call is answered once with a refusal, and the next answer is taken (no tool runs);
 * - an empty answer is asked for once more.
 * Waiting goes through an injected `sleep` and jitter through an injected `random`, so tests
 * never wait; cancelling rejects with `ReplayAbortedError` at once.
 */
import { ProviderError, type ChatMessage, type ChatProvider, type FinishReason, type SamplingParam, type ToolCall, type Usage } from '../providers/provider';
import type { ArmStatus } from './types';
import type { ReplayParams, ReplayRequest } from './replayRequest';

export const TOOL_REFUSAL = JSON.stringify({ success: false, error: 'Tools are unavailable during verification; answer directly.' });
export const DEFAULT_RETRIES = 2;
export const BACKOFF_BASE_MS = 1000;
export const MAX_RETRY_AFTER_MS = 30_000;
const JITTER = 0.2;

/** The cancellation of a replay, told apart from every failure of the provider. */
export class ReplayAbortedError extends Error {
  override readonly name = 'ReplayAbortedError';
  constructor() {
    super('The verification run was cancelled.');
  }
}

export function isReplayAborted(error: unknown): error is ReplayAbortedError {
  return error instanceof ReplayAbortedError;
}

/** Sampling parameters a (provider, model) pair refused, remembered for the rest of the session. */
export class ParamMemory {
  readonly #rejected = new Map<string, Set<SamplingParam>>();

  static #key(providerId: string, model: string): string {
    return `${providerId}\n${model}`;
  }

  remember(providerId: string, model: string, param: SamplingParam): void {
    const key = ParamMemory.#key(providerId, model);
    const set = this.#rejected.get(key) ?? new Set<SamplingParam>();
    set.add(param);
    this.#rejected.set(key, set);
  }

  rejected(providerId: string, model: string): SamplingParam[] {
    return [...(this.#rejected.get(ParamMemory.#key(providerId, model)) ?? [])].sort();
  }

  /** `params` without what this pair refused before: what will actually be sent (and keyed). */
  apply(providerId: string, model: string, params: ReplayParams): ReplayParams {
    let result = { ...params };
    for (const param of this.rejected(providerId, model)) result = withoutParam(result, param);
    return result;
  }
}

function withoutParam(params: ReplayParams, param: SamplingParam): ReplayParams {
  const { [param]: _dropped, ...rest } = params;
  return rest;
}

/** The parameters as the evidence records them. */
export interface RecordedParams {
  temperature: number | 'provider-default';
  seed: number | null;
  maxTokens: number;
}

export function recordedParams(params: ReplayParams): RecordedParams {
  return { temperature: params.temperature ?? 'provider-default', seed: params.seed ?? null, maxTokens: params.maxTokens };
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** setTimeout as a promise; rejects with ReplayAbortedError when `signal` aborts first. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new ReplayAbortedError());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ReplayAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export interface ReplayArmOptions {
  /** `replayProviderId(...)` of this provider: the key of `memory`. */
  providerId: string;
  memory: ParamMemory;
  signal?: AbortSignal;
  /** Turns the raw text into the scored answer (removes reasoning and tool blocks); identity by default. */
  answerText?: (raw: string) => string;
  sleep?: Sleep;
  /** In [0, 1): jitter of the backoff. */
  random?: () => number;
  /** Retries per request after transport failures (default 2). */
  retries?: number;
  /** Gives up on one request after this long (then retried like a transport failure); none by default. */
  timeoutMs?: number;
}

/** What one arm produced. Only `ok` is an answer; everything else measures nothing by itself. */
export interface ArmReplay {
  status: ArmStatus;
  /** The answer after `answerText`: what checks score. */
  answerText: string;
  /** The model's final text as streamed (reasoning deltas never included). */
  rawText: string;
  finishReason?: FinishReason;
  /** Summed over every request this arm made. */
  usage: Usage;
  /** The parameters of the last request sent, as the evidence records them. */
  params: RecordedParams;
  /** The same parameters as sent: key a cache `put` with these (a refused one may have been dropped). */
  sentParams: ReplayParams;
  /** Requests sent, retries included. */
  requests: number;
  /** The model called a tool and was told once that there are none. */
  toolCallRefused: boolean;
  /** For error and too-long: the provider's words. */
  error?: string;
}

interface Collected {
  rawText: string;
  calls: ToolCall[];
  finish: FinishReason;
  usage?: Usage;
}

type CallResult = { kind: 'answer'; collected: Collected } | { kind: 'error' | 'too-long'; message: string };

interface ArmState {
  provider: ChatProvider;
  options: ReplayArmOptions;
  params: ReplayParams;
  requests: number;
  usage: Usage;
}

const RETRYABLE = new Set(['network', 'server', 'rate-limit', 'stream']);

function addUsage(total: Usage, more: Usage | undefined): void {
  if (!more) return;
  if (more.promptTokens !== undefined) total.promptTokens = (total.promptTokens ?? 0) + more.promptTokens;
  if (more.completionTokens !== undefined) total.completionTokens = (total.completionTokens ?? 0) + more.completionTokens;
}

/** Reads the whole stream; reasoning deltas are dropped on purpose (they are not the answer). */
async function collect(provider: ChatProvider, messages: ChatMessage[], params: ReplayParams, signal: AbortSignal): Promise<Collected> {
  const collected: Collected = { rawText: '', calls: [], finish: 'other' };
  const stream = provider.stream({
    messages,
    ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
    ...(params.seed !== undefined ? { seed: params.seed } : {}),
    maxTokens: params.maxTokens,
    signal,
  });
  for await (const part of stream) {
    if (part.type === 'text-delta') collected.rawText += part.text;
    else if (part.type === 'tool-call') collected.calls.push(part.call);
    else if (part.type === 'usage') collected.usage = part.usage;
    else if (part.type === 'finish') collected.finish = part.reason;
  }
  return collected;
}

/** The wait before retry number `attempt` (0-based): the server's Retry-After, else backoff with jitter. */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random: () => number): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER_MS);
  const base = BACKOFF_BASE_MS * 2 ** attempt;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

function timeoutError(timeoutMs: number): ProviderError {
  return new ProviderError('network', `The model gave no answer within ${Math.round(timeoutMs / 1000)} s.`);
}

/**
 * One stream, raced against cancellation (so Stop returns even from a provider that ignores
 * its signal) and against the timeout, which is reported as a retryable ProviderError.
 */
async function collectOnce(state: ArmState, messages: ChatMessage[]): Promise<Collected> {
  const { options } = state;
  const outer = options.signal;
  const controller = new AbortController();
  let timedOut = false;
  let stopWaiting!: (error: Error) => void;
  const interrupted = new Promise<never>((_resolve, reject) => (stopWaiting = reject));
  interrupted.catch(() => undefined);
  const onAbort = () => {
    controller.abort();
    stopWaiting(new ReplayAbortedError());
  };
  outer?.addEventListener('abort', onAbort, { once: true });
  const timerStop = new AbortController();
  if (options.timeoutMs !== undefined) {
    const timeoutMs = options.timeoutMs;
    (options.sleep ?? realSleep)(timeoutMs, timerStop.signal).then(
      () => {
        if (timerStop.signal.aborted) return;
        timedOut = true;
        controller.abort();
        stopWaiting(timeoutError(timeoutMs));
      },
      () => undefined,
    );
  }
  try {
    state.requests++;
    const collected = await Promise.race([collect(state.provider, messages, state.params, controller.signal), interrupted]);
    if (outer?.aborted) throw new ReplayAbortedError();
    if (timedOut) throw timeoutError(options.timeoutMs ?? 0);
    // An abort nobody here asked for (e.g. the engine was shut down) is a failed request.
    if (collected.finish === 'abort') throw new ProviderError('stream', 'The model stopped before it finished.');
    if (collected.finish === 'error') throw new ProviderError('stream', 'The model stopped with an error.');
    // A stream that ended without a finish reason or [DONE] carries part of an answer: scoring
    // it would measure the connection, not the skill, so it is a failed request (retried).
    if (collected.finish === 'cut-off') throw new ProviderError('stream', 'The reply was cut off before the model finished.');
    addUsage(state.usage, collected.usage);
    return collected;
  } catch (error) {
    if (outer?.aborted) throw new ReplayAbortedError();
    if (timedOut) throw timeoutError(options.timeoutMs ?? 0);
    throw error;
  } finally {
    timerStop.abort();
    outer?.removeEventListener('abort', onAbort);
  }
}

/** One request, retried after transport failures and resent without a refused parameter. */
async function callWithRetries(state: ArmState, messages: ChatMessage[]): Promise<CallResult> {
  const { options } = state;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const sleep = options.sleep ?? realSleep;
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; ) {
    if (options.signal?.aborted) throw new ReplayAbortedError();
    try {
      return { kind: 'answer', collected: await collectOnce(state, messages) };
    } catch (error) {
      if (isReplayAborted(error)) throw error;
      if (!(error instanceof ProviderError)) return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
      const param = error.rejectedParam;
      if (param !== undefined && state.params[param] !== undefined) {
        // Not a failure of the transport: the same request without the parameter is a new one.
        options.memory.remember(options.providerId, state.provider.model, param);
        state.params = withoutParam(state.params, param);
        continue;
      }
      if (error.contextTooLong) return { kind: 'too-long', message: error.message };
      if (!RETRYABLE.has(error.kind) || attempt >= retries) return { kind: 'error', message: error.message };
      await sleep(retryDelayMs(attempt, error.retryAfterMs, random), options.signal).catch((reason: unknown) => {
        throw options.signal?.aborted ? new ReplayAbortedError() : reason;
      });
      attempt++;
    }
  }
}

const TEXT_TOOL_BLOCK = /<tool_call>/i;

/** The turn that answers the model's tool calls (native or text-protocol) with the refusal. */
function refusalTurn(collected: Collected): ChatMessage[] {
  if (collected.calls.length > 0) {
    return [
      { role: 'assistant', content: collected.rawText, toolCalls: collected.calls },
      ...collected.calls.map((call): ChatMessage => ({ role: 'tool', content: TOOL_REFUSAL, toolCallId: call.id, name: call.name })),
    ];
  }
  const name = /"name"\s*:\s*"([^"]*)"/.exec(collected.rawText)?.[1] ?? '';
  return [
    { role: 'assistant', content: collected.rawText },
    { role: 'user', content: `<tool_result name="${name.replace(/"/g, '&quot;')}">${TOOL_REFUSAL}</tool_result>` },
  ];
}

/** Replays one arm: see the module comment for what is retried and how it is classified. */
export async function replayArm(provider: ChatProvider, request: ReplayRequest, options: ReplayArmOptions): Promise<ArmReplay> {
  const clean = options.answerText ?? ((raw: string) => raw);
  const state: ArmState = { provider, options, params: options.memory.apply(options.providerId, provider.model, request.params), requests: 0, usage: {} };
  let messages = request.messages;
  let toolCallRefused = false;
  let emptyRetried = false;
  const finish = (status: ArmStatus, fields: Partial<ArmReplay> = {}): ArmReplay => ({
    status,
    answerText: '',
    rawText: '',
    usage: state.usage,
    params: recordedParams(state.params),
    sentParams: { ...state.params },
    requests: state.requests,
    toolCallRefused,
    ...fields,
  });
  for (;;) {
    const result = await callWithRetries(state, messages);
    if (result.kind !== 'answer') return finish(result.kind, { error: result.message });
    const { collected } = result;
    const calledTool = collected.calls.length > 0 || TEXT_TOOL_BLOCK.test(collected.rawText);
    if (calledTool && !toolCallRefused) {
      toolCallRefused = true;
      messages = [...messages, ...refusalTurn(collected)];
      continue;
    }
    const answerText = clean(collected.rawText);
    const seen = { rawText: collected.rawText, answerText, finishReason: collected.finish };
    if (answerText.trim() !== '') return finish('ok', seen);
    if (collected.finish === 'length') return finish('truncated', seen);
    if (!emptyRetried) {
      emptyRetried = true;
      continue;
    }
    return finish('empty', seen);
  }
}
