/**
 * One streaming interface for every model source (docs/providers.md). The agent loops (chat on the UI
 * thread, review in a worker) only ever see a `ChatProvider`; whether tokens come from
 * web-llm on the GPU or an OpenAI-compatible server is the provider's business.
 */
export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ToolCall {
  /** Provider id, or one we made up when the provider sent none. */
  id: string;
  name: string;
  /** The arguments exactly as the model produced them (JSON text, maybe broken). */
  arguments: string;
  /** Set when the call could not be read (text protocol): the loop answers with a failure. */
  parseError?: string;
}

export interface ChatMessage {
  role: Role;
  content: string;
  /** Assistant messages: the tool calls it made. */
  toolCalls?: ToolCall[];
  /** Tool messages: which call this result answers, and the tool's name. */
  toolCallId?: string;
  name?: string;
}

/** A tool as offered to the model: JSON schema parameters (OpenAI function shape). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: unknown;
}

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  /** A fixed sampling seed, sent where the provider accepts one (the gate's replays: docs/gate.md). */
  seed?: number;
  maxTokens?: number;
  signal?: AbortSignal;
}

export interface Usage {
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * How a model call ended. 'cut-off': the stream ended with neither a finish reason nor the
 * end-of-stream marker, so the reply may be incomplete (the server or a proxy dropped it).
 */
export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'abort' | 'error' | 'cut-off' | 'other';

export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: FinishReason };

export type ProviderErrorKind =
  | 'cors'
  | 'network'
  | 'auth'
  | 'rate-limit'
  | 'bad-request'
  | 'server'
  | 'stream'
  | 'aborted'
  | 'webgpu'
  | 'model';

/** A sampling parameter some providers refuse (reasoning models reject `temperature`, some servers `seed`). */
export type SamplingParam = 'temperature' | 'seed';

/**
 * What a caller that retries on its own (the verification gate) needs to know about a
 * failure beyond its words: they decide whether to retry, wait, or drop a parameter.
 */
export interface ProviderErrorDetails {
  /** A 400 that names this parameter as unsupported: the same request without it may work. */
  rejectedParam?: SamplingParam;
  /** The request does not fit the model's context window. */
  contextTooLong?: boolean;
  /** The window the refusal named, in tokens (llama.cpp's `n_ctx`, "maximum context length is N tokens"…). */
  contextWindow?: number;
  /** How long the server asked us to wait (Retry-After of a 429 or 503), in milliseconds. */
  retryAfterMs?: number;
}

/** A failure with a message the user can act on (what to set, where). */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly rejectedParam?: SamplingParam;
  readonly contextTooLong?: boolean;
  readonly contextWindow?: number;
  readonly retryAfterMs?: number;
  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    /** What to do about it, shown under the message. */
    readonly hint = '',
    readonly status?: number,
    details: ProviderErrorDetails = {},
  ) {
    super(message);
    if (details.rejectedParam !== undefined) this.rejectedParam = details.rejectedParam;
    if (details.contextTooLong) this.contextTooLong = true;
    if (details.contextWindow !== undefined) this.contextWindow = details.contextWindow;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }

  /** The machine-readable details, e.g. to send the error across a MessagePort. */
  get details(): ProviderErrorDetails {
    const details: ProviderErrorDetails = {};
    if (this.rejectedParam !== undefined) details.rejectedParam = this.rejectedParam;
    if (this.contextTooLong) details.contextTooLong = true;
    if (this.contextWindow !== undefined) details.contextWindow = this.contextWindow;
    if (this.retryAfterMs !== undefined) details.retryAfterMs = this.retryAfterMs;
    return details;
  }
}

export interface ModelInfo {
  id: string;
  label?: string;
  /** Download size and VRAM needs, for in-browser models. */
  sizeMB?: number;
  vramMB?: number;
}

export interface ChatProvider {
  /** e.g. "openai-compatible", "webllm". */
  readonly id: string;
  readonly model: string;
  /** Whether `tools` can be sent natively; otherwise the text protocol wraps this provider. */
  readonly nativeTools: boolean;
  /**
   * Streams one model call. Ends with a `finish` part; throws ProviderError for failures
   * (an aborted signal ends with `finish: abort` instead of throwing).
   */
  stream(request: ChatRequest): AsyncIterable<StreamPart>;
  listModels?(signal?: AbortSignal): Promise<ModelInfo[]>;
}
