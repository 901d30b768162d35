/**
 * A ChatProvider for any OpenAI-compatible server (docs/providers.md): Ollama, LM Studio,
 * llama.cpp, OpenAI, OpenRouter or a custom one.
 *
 * One POST to `{base}/chat/completions` with `stream: true`; the body goes through the SSE
 * pipeline (sse.ts), and each chunk is mapped to stream parts here, with tool-call fragments
 * handed to the one accumulator. Stop is the request's AbortSignal: it aborts the fetch, and
 * the stream ends with `finish: abort` rather than an error.
 */
import {
  ProviderError,
  type ChatProvider,
  type ChatRequest,
  type FinishReason,
  type ModelInfo,
  type StreamPart,
  type ToolCall,
  type Usage,
} from './provider';
import { presetForBaseUrl, type PresetId } from './presets';
import { fetchFailure, httpError, probeReachability, type ErrorContext } from './providerErrors';
import { toOpenAIMessages, toOpenAITools } from './openaiMessages';
import { parseJsonEventStream, type JsonEvent } from './sse';
import { ToolCallAccumulator } from './toolCallAccumulator';

export interface OpenAICompatibleOptions {
  /** e.g. `http://localhost:11434/v1`; a trailing slash is ignored. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`, and only to `baseUrl`. */
  apiKey?: string;
  /** Offer tools natively (`tools` in the request). Default true; false drops them (see textToolProtocol.ts). */
  nativeTools?: boolean;
  /** Whose CORS and start-up advice errors give; derived from the base URL when absent. */
  presetId?: PresetId;
  /** The page's origin for CORS advice; defaults to `location.origin`. */
  origin?: string;
  /** Injected fetch (tests, or a counting wrapper for the network-request counter). */
  fetch?: typeof fetch;
  /** Extra headers for this server only (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
}

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

function mapFinishReason(raw: string | undefined): FinishReason | undefined {
  switch (raw) {
    case undefined:
      return undefined;
    case 'stop':
    case 'eos':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'error':
      return 'error';
    default:
      return 'other';
  }
}

function readUsage(value: unknown): Usage | undefined {
  const usage = asObject(value);
  if (!usage) return undefined;
  const result: Usage = {};
  if (typeof usage.prompt_tokens === 'number') result.promptTokens = usage.prompt_tokens;
  if (typeof usage.completion_tokens === 'number') result.completionTokens = usage.completion_tokens;
  return result.promptTokens === undefined && result.completionTokens === undefined ? undefined : result;
}

/** The text of a reasoning delta, under whichever name the server uses. */
function reasoningText(delta: JsonObject): string {
  for (const key of ['reasoning', 'reasoning_content', 'thinking']) {
    if (typeof delta[key] === 'string') return delta[key] as string;
  }
  return '';
}

function firstChoice(chunk: JsonObject): JsonObject | undefined {
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length === 0) return undefined;
  return asObject(choices.find((choice) => asObject(choice)?.index === 0) ?? choices[0]);
}

export class OpenAICompatibleProvider implements ChatProvider {
  readonly id = 'openai-compatible';
  readonly model: string;
  readonly nativeTools: boolean;
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly extraHeaders: Record<string, string>;
  private readonly errorContext: ErrorContext;
  private readonly fetchImpl: typeof fetch;

  constructor(options: OpenAICompatibleOptions) {
    this.baseUrl = options.baseUrl.trim().replace(/\/+$/, '');
    this.model = options.model;
    this.apiKey = options.apiKey?.trim() ?? '';
    this.nativeTools = options.nativeTools ?? true;
    this.extraHeaders = options.headers ?? {};
    // Looked up at call time so a test or the request counter can replace global fetch,
    // and called unbound-safe (browsers throw "Illegal invocation" for a detached fetch).
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.errorContext = {
      baseUrl: this.baseUrl,
      model: options.model,
      presetId: options.presetId ?? presetForBaseUrl(this.baseUrl).id,
      origin: options.origin,
    };
  }

  async *stream(request: ChatRequest): AsyncGenerator<StreamPart> {
    const signal = request.signal;
    if (signal?.aborted) {
      yield { type: 'finish', reason: 'abort' };
      return;
    }
    const body: JsonObject = {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (this.nativeTools && request.tools && request.tools.length > 0) body.tools = toOpenAITools(request.tools);
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.seed !== undefined) body.seed = request.seed;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;

    let response: Response;
    try {
      response = await this.send('/chat/completions', { method: 'POST', body: JSON.stringify(body), signal }, 'text/event-stream');
    } catch (error) {
      if (signal?.aborted) {
        yield { type: 'finish', reason: 'abort' };
        return;
      }
      throw error;
    }

    const contentType = response.headers.get('content-type') ?? '';
    if (/json/i.test(contentType)) {
      // Some servers ignore `stream: true` and answer with one whole completion.
      yield* this.partsFromWholeCompletion(await this.readText(response, signal));
      return;
    }
    if (/text\/html/i.test(contentType)) {
      await response.body?.cancel().catch(() => undefined);
      throw this.notAnApi();
    }
    if (!response.body) throw this.notAnApi();
    yield* this.partsFromStream(response.body, signal);
  }

  async listModels(signal?: AbortSignal): Promise<ModelInfo[]> {
    const response = await this.send('/models', { method: 'GET', signal }, 'application/json');
    const text = await this.readText(response, signal);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw this.notAnApi();
    }
    // OpenAI: `{data: [{id}]}`; a few servers answer a bare list or Ollama's `{models: [{name}]}`.
    const object = asObject(parsed);
    const list = Array.isArray(parsed) ? parsed : Array.isArray(object?.data) ? object.data : Array.isArray(object?.models) ? object.models : undefined;
    if (!list) throw this.notAnApi();
    const models: ModelInfo[] = [];
    for (const entry of list as unknown[]) {
      const item = asObject(entry);
      const id = typeof entry === 'string' ? entry : typeof item?.id === 'string' ? item.id : typeof item?.name === 'string' ? item.name : '';
      if (id) models.push({ id });
    }
    return models;
  }

  /** The headers for `url`: the API key goes only to this provider's own base URL. */
  private headersFor(url: string, accept: string, hasBody: boolean): Record<string, string> {
    const headers: Record<string, string> = { Accept: accept };
    if (hasBody) headers['Content-Type'] = 'application/json';
    if (url.startsWith(`${this.baseUrl}/`)) {
      Object.assign(headers, this.extraHeaders);
      if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    }
    return headers;
  }

  /**
   * Fetches `{base}{path}` and returns a 2xx response, or throws a ProviderError saying what
   * to fix. With an API key, redirects are not followed: a redirect could carry the key's
   * request to another address, so the user is asked to enter the final address instead.
   */
  private async send(path: string, init: RequestInit, accept: string): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        ...init,
        headers: this.headersFor(url, accept, init.body !== undefined),
        redirect: this.apiKey ? 'manual' : 'follow',
        credentials: 'omit',
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      if (!(error instanceof TypeError)) throw error;
      if (!/^https?:\/\//i.test(this.baseUrl)) {
        throw new ProviderError('bad-request', `"${this.baseUrl}" is not a web address.`, 'Enter a Base URL starting with http:// or https://.');
      }
      throw fetchFailure(this.errorContext, await probeReachability(this.baseUrl, this.fetchImpl, init.signal ?? undefined));
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => undefined);
      const location = response.headers.get('location');
      throw new ProviderError(
        'bad-request',
        `The server at ${this.baseUrl} redirected the request${location ? ` to ${location}` : ''}.`,
        'Set the Base URL to the address it redirects to. Knack does not follow redirects with an API key, so the key never reaches another address.',
        response.status || undefined,
      );
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw httpError(response.status, text, this.errorContext, response.headers.get('retry-after'));
    }
    return response;
  }

  private async readText(response: Response, signal: AbortSignal | undefined): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw this.droppedConnection();
    }
  }

  private notAnApi(): ProviderError {
    return new ProviderError(
      'stream',
      `The server at ${this.baseUrl} did not answer like an OpenAI-compatible API (no event stream or JSON).`,
      'Check the Base URL: it should be the API address, which usually ends in /v1 (for example http://localhost:11434/v1).',
    );
  }

  private droppedConnection(): ProviderError {
    return new ProviderError(
      'network',
      'The connection to the server dropped in the middle of the reply.',
      'Try again. If it keeps happening, check that the server is still running and its log for a crash.',
    );
  }

  private *partsFromWholeCompletion(text: string): Generator<StreamPart> {
    let parsed: JsonObject | undefined;
    try {
      parsed = asObject(JSON.parse(text));
    } catch {
      parsed = undefined;
    }
    const choice = parsed && firstChoice(parsed);
    const message = choice && asObject(choice.message);
    if (!parsed || !message) {
      if (parsed?.error) throw new ProviderError('stream', `The model stopped with an error: ${JSON.stringify(parsed.error)}`, 'Try again, or pick another model.');
      throw this.notAnApi();
    }
    if (typeof message.content === 'string' && message.content !== '') yield { type: 'text-delta', text: message.content };
    const reasoning = reasoningText(message);
    if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
    const tracker = new ToolCallAccumulator();
    tracker.addAll(message.tool_calls);
    const rawFinish = typeof choice.finish_reason === 'string' ? choice.finish_reason : undefined;
    yield* this.ending(tracker, rawFinish, true, readUsage(parsed.usage));
  }

  private async *partsFromStream(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined): AsyncGenerator<StreamPart> {
    const reader = parseJsonEventStream(body).getReader();
    const tracker = new ToolCallAccumulator();
    let rawFinish: string | undefined;
    let usage: Usage | undefined;
    let sawDone = false;
    let sawChunk = false;
    try {
      for (;;) {
        let result: ReadableStreamReadResult<JsonEvent>;
        try {
          result = await reader.read();
        } catch (error) {
          if (signal?.aborted) {
            yield { type: 'finish', reason: 'abort' };
            return;
          }
          if (error instanceof ProviderError) throw error;
          throw this.droppedConnection();
        }
        if (result.done) break;
        if (result.value.type === 'done') {
          sawDone = true;
          break;
        }
        const chunk = asObject(result.value.value);
        if (!chunk) continue;
        sawChunk = true;
        usage = readUsage(chunk.usage) ?? usage;
        const choice = firstChoice(chunk);
        if (!choice) continue;
        const delta = asObject(choice.delta) ?? {};
        const reasoning = reasoningText(delta);
        if (reasoning) yield { type: 'reasoning-delta', text: reasoning };
        if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text-delta', text: delta.content };
        tracker.addAll(delta.tool_calls);
        if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') rawFinish = choice.finish_reason;
        // The consumer may have pressed Stop while we were suspended at a yield.
        if (signal?.aborted) {
          yield { type: 'finish', reason: 'abort' };
          return;
        }
      }
      if (!sawChunk && !sawDone) throw this.notAnApi();
      yield* this.ending(tracker, rawFinish, sawDone, usage);
    } finally {
      // Also runs when the consumer stops iterating early: cancelling closes the connection.
      reader.cancel().catch(() => undefined);
    }
  }

  /** Tool calls, usage and the finish part, once the reply is complete. */
  private *ending(tracker: ToolCallAccumulator, rawFinish: string | undefined, sawDone: boolean, usage: Usage | undefined): Generator<StreamPart> {
    const isToolCallsFinish = rawFinish === 'tool_calls' || rawFinish === 'function_call';
    const calls: ToolCall[] = tracker.finish(isToolCallsFinish);
    for (const call of calls) yield { type: 'tool-call', call };
    if (usage) yield { type: 'usage', usage };
    let reason: FinishReason;
    // Neither a finish_reason nor `[DONE]`: the body just ended, so the reply may be missing
    // its end (a dropped proxy connection, a crashed server). The chat marks it cut off.
    if (rawFinish === undefined && !sawDone) reason = 'cut-off';
    // Some servers say "stop" after tool calls; the calls decide.
    else if (calls.length > 0) reason = 'tool-calls';
    else if (isToolCallsFinish) reason = 'other';
    // No finish_reason: a `[DONE]` still marks a complete reply.
    else reason = mapFinishReason(rawFinish) ?? 'stop';
    yield { type: 'finish', reason };
  }
}
