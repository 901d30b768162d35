/**
 * The replay cache key: a hash of the exact request (docs/gate.md, "Caching"). Everything
 * that can change an answer is in it (where the model runs, which model, every sampling
 * parameter, every message, the tools: none), so a hit is the answer this request gets, and
 * baselines are shared across skills and sessions without anyone deciding they may be.
 */
import type { ChatMessage } from '../providers/provider';
import type { ReplayParams } from './replayRequest';

/** Bump when the key's shape or the replay protocol changes: every old entry then misses. */
export const REPLAY_KEY_VERSION = 'gate.v1';

export interface ReplayKeyInput {
  /** `replayProviderId(...)`: the server's address, or "webgpu:" + model for the in-browser engine. */
  provider: string;
  model: string;
  params: ReplayParams;
  messages: readonly ChatMessage[];
}

/** Where a provider runs, for keys and per-provider memory. */
export function replayProviderId(settings: { kind: 'openai-compatible' | 'webgpu'; baseUrl: string; model: string }): string {
  if (settings.kind === 'webgpu') return `webgpu:${settings.model}`;
  const raw = settings.baseUrl.trim();
  try {
    const url = new URL(raw);
    // Origin and path, never credentials or a query: two APIs behind one host stay apart.
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return raw.replace(/\/+$/, '');
  }
}

export type ProviderLocality = 'webgpu' | 'local' | 'remote';

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\./.test(hostname);
}

/** In this browser, on this machine (loopback HTTP), or hosted elsewhere. */
export function providerLocality(providerId: string): ProviderLocality {
  if (providerId.startsWith('webgpu:')) return 'webgpu';
  try {
    return isLoopbackHost(new URL(providerId).hostname) ? 'local' : 'remote';
  } catch {
    return 'remote';
  }
}

/**
 * JSON with object keys sorted at every depth and undefined fields dropped, so equal requests
 * give equal text. Kept local until the gate has one shared canonical-JSON module.
 */
function canonicalStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalStringify(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const fields = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalStringify(record[key])}`);
  return `{${fields.join(',')}}`;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The canonical text that is hashed (exposed for tests and for debugging a miss). */
export function replayKeyText(input: ReplayKeyInput): string {
  return canonicalStringify({
    v: REPLAY_KEY_VERSION,
    provider: input.provider,
    model: input.model,
    // An absent parameter is null, so "not sent" never collides with a value.
    params: { temperature: input.params.temperature ?? null, seed: input.params.seed ?? null, max_tokens: input.params.maxTokens },
    messages: input.messages.map((message) => ({
      role: message.role,
      content: message.content,
      toolCalls: message.toolCalls,
      toolCallId: message.toolCallId,
      name: message.name,
    })),
    tools: null,
  });
}

/** Hex SHA-256 of the canonical request. */
export function replayCacheKey(input: ReplayKeyInput): Promise<string> {
  return sha256Hex(replayKeyText(input));
}
