/**
 * `ChatProvider` over the shared in-browser engine (docs/providers.md).
 *
 * web-llm's OpenAI-style stream is mapped to StreamParts; Stop interrupts the engine and the
 * stream ends with `finish: abort`; failures become ProviderErrors that say what to do.
 *
 * Native tools: web-llm accepts `tools` only for its function-calling models, and then forbids
 * a system message (it writes its own) and forces a JSON tool-call answer. So `nativeTools`
 * is true only for those ids, and with tools the system text is folded into the first user
 * message. Every other model gets the text tool protocol (`withTextToolProtocol`).
 */
import type { ChatCompletionMessageParam } from '@mlc-ai/web-llm';
import {
  ProviderError,
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type FinishReason,
  type ModelInfo,
  type StreamPart,
} from '../provider';
import type { ChatCompletionChunk, EngineAccess, LoadProgress } from './engine';
import { toProviderError } from './errors';
import { ThinkSplitter } from './thinkSplitter';

export interface WebLlmProviderOptions {
  model: string;
  access: EngineAccess;
  /** Whether web-llm accepts `tools` for this model (its functionCallingModelIds). */
  nativeTools: boolean;
  /** Load progress, when this call is the one that loads the model. */
  onLoadProgress?: (progress: LoadProgress) => void;
  /** Lists the picker's models for `listModels()`. */
  listModels?: () => Promise<ModelInfo[]>;
}

export function mapFinishReason(reason: string | null | undefined): FinishReason | undefined {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
      return 'tool-calls';
    case 'abort':
      return 'abort';
    case null:
    case undefined:
      return undefined;
    default:
      return 'other';
  }
}

/** Our messages in web-llm's (OpenAI) shape. */
export function toWebLlmMessages(messages: readonly ChatMessage[], nativeToolsInUse: boolean): ChatCompletionMessageParam[] {
  const systemText = messages.filter((message) => message.role === 'system').map((message) => message.content);
  const foldSystem = nativeToolsInUse && systemText.length > 0;
  const out: ChatCompletionMessageParam[] = [];
  let systemFolded = false;
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        if (!foldSystem) out.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const prefix = foldSystem && !systemFolded ? `${systemText.join('\n\n')}\n\n` : '';
        systemFolded = true;
        out.push({ role: 'user', content: prefix + message.content });
        break;
      }
      case 'assistant':
        out.push(
          nativeToolsInUse && message.toolCalls?.length
            ? {
                role: 'assistant',
                content: message.content,
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function' as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : { role: 'assistant', content: message.content },
        );
        break;
      case 'tool':
        out.push(
          nativeToolsInUse
            ? { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' }
            : // Without native tools the chat templates know no "tool" role.
              { role: 'user', content: `Result of ${message.name ?? 'the tool'}:\n${message.content}` },
        );
        break;
    }
  }
  return out;
}

/** Maps web-llm chunks to StreamParts (no finish part: the caller decides how it ended). */
export class ChunkMapper {
  readonly #think = new ThinkSplitter();
  #answerStarted = false;
  #toolCallCount = 0;
  finishReason: FinishReason | undefined;

  map(chunk: ChatCompletionChunk): StreamPart[] {
    const parts: StreamPart[] = [];
    const choice = chunk.choices[0];
    if (choice) {
      const content = choice.delta.content;
      if (content) parts.push(...this.#textParts(this.#think.push(content)));
      for (const call of choice.delta.tool_calls ?? []) {
        const index = this.#toolCallCount++;
        parts.push({
          type: 'tool-call',
          call: {
            id: call.id || `call_${index}`,
            name: call.function?.name ?? '',
            arguments: call.function?.arguments ?? '',
          },
        });
      }
      this.finishReason = mapFinishReason(choice.finish_reason) ?? this.finishReason;
    }
    if (chunk.usage) {
      parts.push({
        type: 'usage',
        usage: { promptTokens: chunk.usage.prompt_tokens, completionTokens: chunk.usage.completion_tokens },
      });
    }
    return parts;
  }

  flush(): StreamPart[] {
    return this.#textParts(this.#think.flush());
  }

  #textParts(split: { reasoning: string; text: string }): StreamPart[] {
    const parts: StreamPart[] = [];
    if (split.reasoning) parts.push({ type: 'reasoning-delta', text: split.reasoning });
    let text = split.text;
    // Qwen3 puts blank lines between its reasoning and the answer.
    if (!this.#answerStarted) text = text.replace(/^\s+/, '');
    if (text) {
      this.#answerStarted = true;
      parts.push({ type: 'text-delta', text });
    }
    return parts;
  }
}

export class WebLlmProvider implements ChatProvider {
  readonly id = 'webllm';
  readonly model: string;
  readonly nativeTools: boolean;
  readonly #access: EngineAccess;
  readonly #onLoadProgress?: (progress: LoadProgress) => void;
  readonly #listModels?: () => Promise<ModelInfo[]>;

  constructor(options: WebLlmProviderOptions) {
    this.model = options.model;
    this.nativeTools = options.nativeTools;
    this.#access = options.access;
    this.#onLoadProgress = options.onLoadProgress;
    this.#listModels = options.listModels;
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.#listModels ? this.#listModels() : [{ id: this.model }];
  }

  async *stream(request: ChatRequest): AsyncIterable<StreamPart> {
    const { signal } = request;
    if (signal?.aborted) {
      yield { type: 'finish', reason: 'abort' };
      return;
    }
    const useTools = this.nativeTools && (request.tools?.length ?? 0) > 0;
    if (!this.nativeTools && request.tools?.length) {
      throw new ProviderError(
        'bad-request',
        `${this.model} has no native tool calling in web-llm.`,
        'Wrap this provider with the text tool protocol.',
      );
    }

    let engine;
    try {
      engine = await this.#access.acquire(this.model, { signal, onProgress: this.#onLoadProgress });
    } catch (error) {
      if (signal?.aborted) {
        yield { type: 'finish', reason: 'abort' };
        return;
      }
      throw toProviderError(error, { stage: 'load', modelId: this.model, online: globalThis.navigator?.onLine });
    }

    const interrupt = () => engine.interruptGenerate();
    signal?.addEventListener('abort', interrupt, { once: true });
    const mapper = new ChunkMapper();
    try {
      const chunks = await engine.chat.completions.create({
        messages: toWebLlmMessages(request.messages, useTools),
        stream: true,
        stream_options: { include_usage: true },
        temperature: request.temperature,
        // web-llm takes an integer seed only (a SeedTypeError otherwise).
        ...(request.seed !== undefined ? { seed: Math.trunc(request.seed) } : {}),
        max_tokens: request.maxTokens,
        ...(useTools
          ? {
              tools: request.tools!.map((tool) => ({
                type: 'function' as const,
                function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> },
              })),
            }
          : {}),
      });
      // Stop may have come while the request was being set up.
      if (signal?.aborted) interrupt();
      for await (const chunk of chunks) {
        for (const part of mapper.map(chunk)) yield part;
      }
      for (const part of mapper.flush()) yield part;
    } catch (error) {
      if (signal?.aborted) {
        yield { type: 'finish', reason: 'abort' };
        return;
      }
      throw toProviderError(error, { stage: 'generate', modelId: this.model, online: globalThis.navigator?.onLine });
    } finally {
      signal?.removeEventListener('abort', interrupt);
    }
    yield { type: 'finish', reason: signal?.aborted ? 'abort' : (mapper.finishReason ?? 'stop') };
  }
}

/**
 * The provider for `modelId` on this tab's shared engine (or `access`, e.g. a remote engine in
 * a worker). Reads web-llm's function-calling list, so it loads the web-llm chunk.
 */
export async function createWebLlmProvider(
  modelId: string,
  access: EngineAccess,
  onLoadProgress?: (progress: LoadProgress) => void,
): Promise<WebLlmProvider> {
  const { loadModelCatalog } = await import('./models');
  const catalog = await loadModelCatalog();
  const model = catalog.models.find((candidate) => candidate.id === modelId);
  return new WebLlmProvider({
    model: modelId,
    access,
    nativeTools: model?.nativeTools ?? false,
    onLoadProgress,
    listModels: async () =>
      catalog.models.map((candidate) => ({ id: candidate.id, label: candidate.label, sizeMB: candidate.downloadMB, vramMB: candidate.vramMB })),
  });
}
