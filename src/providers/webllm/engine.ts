/**
 * The slice of web-llm's engine the provider needs, and how a caller gets hold of it.
 *
 * Three things implement `CompletionEngine`: the UI-thread host's per-caller session over the
 * one `WebWorkerMLCEngine`, the remote client a worker uses over a MessagePort, and the fakes
 * in unit tests. Only types are imported from web-llm, so this module costs no bundle bytes.
 */
import type { ChatCompletionChunk, ChatCompletionRequestStreaming } from '@mlc-ai/web-llm';

export type { ChatCompletionChunk, ChatCompletionRequestStreaming };

export interface CompletionEngine {
  chat: {
    completions: {
      create(request: ChatCompletionRequestStreaming): Promise<AsyncIterable<ChatCompletionChunk>>;
    };
  };
  /** Stops this caller's generation; the stream then ends with finish_reason "abort". */
  interruptGenerate(): void;
}

export interface LoadProgress {
  /** 0..1 */
  progress: number;
  text: string;
}

export interface AcquireOptions {
  signal?: AbortSignal;
  onProgress?: (progress: LoadProgress) => void;
}

/** Hands out an engine with `modelId` loaded, loading it first when needed. */
export interface EngineAccess {
  acquire(modelId: string, options?: AcquireOptions): Promise<CompletionEngine>;
}
