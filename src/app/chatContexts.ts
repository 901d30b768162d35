/**
 * The window budget's links to the window book (docs/context-window.md): the chat's context for a
 * model, the review's window, and the gate's check that a case fits before it is sent. Each names
 * its model the way the book does: a saved provider's id, or the base URL of an endpoint that is
 * not a saved provider. Plain TypeScript, shared by the tab and the review worker.
 */
import type { ChatContext } from '../agent/chatContext';
import { DEFAULT_COMPACT_SHARE } from '../agent/contextBudget';
import type { RequestFits } from '../gate/gatePair';
import type { ProviderSettings } from '../providers/createProvider';
import type { ModelKey, ModelWindow, ModelWindowBook, TokenCounter } from '../providers/modelWindow';
import { countRequest } from '../providers/tokenEstimate';
import type { KnackSettings } from './appSettings';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');

/** The book's key for the provider settings a review or gate run uses. */
export function modelKeyFor(app: Pick<KnackSettings, 'providers'>, provider: ProviderSettings): ModelKey {
  const saved = app.providers.find((entry) => entry.kind === provider.kind && (provider.kind === 'webgpu' || trimSlash(entry.baseUrl) === trimSlash(provider.baseUrl)));
  return { providerId: saved?.id ?? (provider.kind === 'webgpu' ? 'webgpu' : trimSlash(provider.baseUrl)), model: provider.model };
}

/** The chat's context for a model: its window and counter, and the book's hooks to learn and calibrate. */
export async function chatContextFor(book: ModelWindowBook, key: ModelKey, compactShare = DEFAULT_COMPACT_SHARE): Promise<ChatContext> {
  const { window, counter } = await book.lookup(key);
  return {
    window,
    counter,
    compactShare,
    learn: (tokens, detail) => book.learn(key, tokens, detail),
    observe: (estimated, reported) => book.observe(key, estimated, reported),
  };
}

/**
 * The gate's check: a case fits when its request and the answer's room fit the window, with the
 * same margin the chat keeps (4 %). Otherwise the reason names the model and the figures.
 */
export function requestFitsFor(budget: { window: ModelWindow; counter: TokenCounter }, modelName: string): RequestFits {
  const limit = Math.floor(budget.window.tokens * 0.96);
  return (messages, maxTokens, tools) => {
    const tokens = countRequest(budget.counter, messages, tools);
    if (tokens + maxTokens <= limit) return null;
    const fmt = (n: number) => n.toLocaleString('en-US');
    return `too long for ${modelName}: ${fmt(tokens)} tokens and ${fmt(maxTokens)} for the answer do not fit its ${fmt(budget.window.tokens)}-token window`;
  };
}
