/**
 * The in-browser engine as seen from another worker (the review worker): a `CompletionEngine`
 * over a MessagePort from `engineHost().connectPort()`. Generations run on the UI thread's
 * one engine, so nothing here imports web-llm and no model is ever loaded twice.
 */
import { ProviderError } from '../provider';
import type { AcquireOptions, ChatCompletionChunk, ChatCompletionRequestStreaming, CompletionEngine, EngineAccess } from './engine';
import type { RemoteRequest, RemoteResponse } from './engineProtocol';

/** Queue of one generation's messages, consumed as an async iterable. */
class ChunkQueue implements AsyncIterable<ChatCompletionChunk> {
  readonly #items: ChatCompletionChunk[] = [];
  #ended = false;
  #failure: ProviderError | null = null;
  #wake: (() => void) | null = null;

  push(chunk: ChatCompletionChunk): void {
    this.#items.push(chunk);
    this.#notify();
  }

  end(failure: ProviderError | null = null): void {
    this.#ended = true;
    this.#failure = failure;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    while (true) {
      const next = this.#items.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.#ended) {
        if (this.#failure) throw this.#failure;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

interface PendingGeneration {
  queue: ChunkQueue;
  /** Settles when the host says the model is loaded and this call holds the engine. */
  started: { resolve: () => void; reject: (error: ProviderError) => void };
}

export function connectRemoteEngine(port: MessagePort): EngineAccess {
  let nextId = 1;
  const pending = new Map<number, PendingGeneration>();
  const send = (message: RemoteRequest) => port.postMessage(message);

  port.onmessage = (event: MessageEvent<RemoteResponse>) => {
    const message = event.data;
    const generation = pending.get(message.id);
    if (!generation) return;
    switch (message.type) {
      case 'started':
        generation.started.resolve();
        break;
      case 'chunk':
        generation.queue.push(message.chunk);
        break;
      case 'end':
        pending.delete(message.id);
        generation.started.resolve(); // interrupted while waiting: an empty stream
        generation.queue.end();
        break;
      case 'error': {
        pending.delete(message.id);
        const failure = new ProviderError(message.error.kind, message.error.message, message.error.hint, undefined, message.error.details);
        generation.started.reject(failure);
        generation.queue.end(failure);
        break;
      }
    }
  };

  return {
    async acquire(modelId: string, options: AcquireOptions = {}): Promise<CompletionEngine> {
      // Loading happens on the host when the first generation asks for `modelId`; its progress
      // shows in the Settings UI there, so `options.onProgress` has nothing to report here.
      void options;
      let current: number | null = null;
      return {
        interruptGenerate() {
          if (current !== null) send({ type: 'interrupt', id: current });
        },
        chat: {
          completions: {
            create(request: ChatCompletionRequestStreaming) {
              const id = nextId++;
              current = id;
              const queue = new ChunkQueue();
              return new Promise<AsyncIterable<ChatCompletionChunk>>((resolve, reject) => {
                pending.set(id, { queue, started: { resolve: () => resolve(queue), reject } });
                send({ type: 'generate', id, modelId, request });
              });
            },
          },
        },
      };
    },
  };
}
