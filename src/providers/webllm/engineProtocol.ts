/**
 * Messages between a worker's remote engine client (remoteEngine.ts) and the UI-thread engine
 * host (engineHost.ts) over a MessagePort. Deliberately tiny: the host already owns web-llm's
 * own worker protocol; this one only forwards whole generations.
 */
import type { ChatCompletionChunk, ChatCompletionRequestStreaming } from './engine';
import type { ProviderErrorDetails, ProviderErrorKind } from '../provider';

export type RemoteRequest =
  | { type: 'generate'; id: number; modelId: string; request: ChatCompletionRequestStreaming }
  | { type: 'interrupt'; id: number };

export interface SerializedProviderError {
  kind: ProviderErrorKind;
  message: string;
  hint: string;
  /** e.g. `contextTooLong`, which the gate reads (absent from older hosts). */
  details?: ProviderErrorDetails;
}

export type RemoteResponse =
  /** The model is loaded and this caller holds the engine; chunks follow. */
  | { type: 'started'; id: number }
  | { type: 'chunk'; id: number; chunk: ChatCompletionChunk }
  | { type: 'end'; id: number }
  | { type: 'error'; id: number; error: SerializedProviderError };
