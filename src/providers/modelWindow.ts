/**
 * A model's context window and how Knack counts tokens against it (docs/context-window.md).
 * Plain TypeScript, no DOM: the chat, the review worker and the gate all budget with these.
 */
import type { ChatMessage, ToolSpec } from './provider';

/**
 * Where a window figure came from, shown beside it in Settings:
 * - `reported`: the engine or server said so (web-llm's record, llama.cpp `/props`, LM Studio,
 *   Ollama `/api/show`, an OpenRouter or vLLM model list);
 * - `learned`: a context-length refusal named it;
 * - `set`: the user typed it;
 * - `default`: nothing is known yet (a conservative guess).
 */
export type WindowSource = 'reported' | 'learned' | 'set' | 'default';

export interface ModelWindow {
  /** The window in tokens: prompt and reply together must fit it. */
  tokens: number;
  source: WindowSource;
  /** Where exactly, in words ("llama.cpp /props", "the server's refusal"), for Settings. */
  detail?: string;
}

/** The guess for a model nothing is known of: local servers start at 4,096 (llama.cpp, LM Studio, Ollama). */
export const LOCAL_DEFAULT_WINDOW = 4_096;
/** The guess for a hosted model nothing is known of; small enough for most hosted models. */
export const REMOTE_DEFAULT_WINDOW = 8_192;

/**
 * Counts tokens the way the model will. Synchronous, so the budget can try many cuts; an
 * estimate calibrated per model from the counts the server reports (`observe`), or exact where
 * the engine has a tokenizer.
 */
export interface TokenCounter {
  /** Tokens of a bare text. */
  countText(text: string): number;
  /** Tokens of one message as the model sees it, with its role and template overhead. */
  countMessage(message: ChatMessage): number;
  /** Tokens the tool schemas add to a request (0 for none). */
  countTools(tools: readonly ToolSpec[] | undefined): number;
}

/** Which model a window belongs to: a saved provider and one of its models. */
export interface ModelKey {
  /** The saved provider's id (src/app/savedProviders.ts). */
  providerId: string;
  model: string;
}

/**
 * What Knack knows of each model's window, kept across sessions (src/app/modelWindows.ts). The
 * chat, the review and the gate ask it before every model call; refusals and reported usage
 * teach it.
 */
export interface ModelWindowBook {
  /** The window of a model (discovered from the server on first use when it can be) and its counter. */
  lookup(key: ModelKey): Promise<{ window: ModelWindow; counter: TokenCounter }>;
  /** A context-length refusal named the window (or, with no figure, showed the known one too big). */
  learn(key: ModelKey, tokens: number | null, detail: string): Promise<ModelWindow>;
  /** The server counted `reported` prompt tokens for a request the counter put at `estimated`. */
  observe(key: ModelKey, estimated: number, reported: number): void;
}
