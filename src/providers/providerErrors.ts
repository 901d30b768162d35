/**
 * Turns HTTP and network failures of an OpenAI-compatible server into ProviderErrors whose
 * message says what happened and whose hint says what to change, naming the setting.
 *
 * A failed `fetch()` is a bare TypeError in browsers whether the server is down or CORS hid
 * its answer. A `no-cors` probe tells the two apart: it needs no CORS headers, so it
 * resolves (with an opaque response) whenever something answered at all.
 */
import { ProviderError, type SamplingParam } from './provider';
import { presetById, presetForBaseUrl, type ProviderPreset } from './presets';
import { contextRefusal } from './contextRefusal';

export interface ErrorContext {
  baseUrl: string;
  model?: string;
  /** Preset whose advice to give; derived from the base URL when absent. */
  presetId?: string;
  /** The page's origin, the value CORS settings want. */
  origin?: string;
}

export type Reachability = 'reachable' | 'unreachable' | 'unknown';

const MAX_DETAIL = 300;

function presetOf(context: ErrorContext): ProviderPreset {
  return presetById(context.presetId) ?? presetForBaseUrl(context.baseUrl);
}

function originOf(context: ErrorContext): string {
  const fromPage = (globalThis as { location?: { origin?: string } }).location?.origin;
  return context.origin ?? (fromPage && fromPage !== 'null' ? fromPage : "this page's address");
}

function displayUrl(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '');
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname) || hostname.endsWith('.localhost');
}

/** Browsers block https pages from calling plain-http servers, except on loopback. */
function mixedContentNote(context: ErrorContext): string {
  const origin = originOf(context);
  try {
    const target = new URL(context.baseUrl);
    if (origin.startsWith('https:') && target.protocol === 'http:' && !isLoopback(target.hostname)) {
      return (
        `This page is served over https, and browsers block its requests to plain-http addresses other than localhost. ` +
        'Serve the model over https (for example through a tunnel or reverse proxy), or open Knack from http://localhost. '
      );
    }
  } catch {
    // An unparsable base URL fails earlier with its own message.
  }
  return '';
}

/** The server's own words from an error body: OpenAI-style JSON, `{message}`, `{detail}`, or short text. */
export function serverMessage(bodyText: string): string {
  const text = bodyText.trim();
  if (text === '') return '';
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') {
      const fields = parsed as Record<string, unknown>;
      const error = fields.error;
      if (typeof error === 'string') return error.slice(0, MAX_DETAIL);
      if (error !== null && typeof error === 'object') {
        const message = (error as Record<string, unknown>).message;
        if (typeof message === 'string') return message.slice(0, MAX_DETAIL);
      }
      for (const key of ['message', 'detail']) {
        if (typeof fields[key] === 'string') return (fields[key] as string).slice(0, MAX_DETAIL);
      }
    }
  } catch {
    // Not JSON: fall through to the text itself.
  }
  if (/^<(!doctype|html)/i.test(text)) return '';
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}…` : text;
}

function withDetail(message: string, detail: string): string {
  return detail ? `${message} The server said: ${detail}` : message;
}

/**
 * A Retry-After header in milliseconds: either delay-seconds or an HTTP date (RFC 9110).
 * Undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const REFUSAL_WORDS = /unsupported|not supported|does not support|unrecognized|unknown (parameter|field|argument|key)|not allowed|not permitted|extra (inputs|fields)|invalid/i;
const SAMPLING_PARAMS: readonly SamplingParam[] = ['temperature', 'seed'];

/**
 * The sampling parameter a 400's message says the model refuses, e.g. OpenAI's reasoning
 * models: "Unsupported parameter: 'temperature'" or "Unsupported value: 'temperature' does
 * not support 0 with this model". When both are named, the one named first.
 */
export function rejectedSamplingParam(detail: string): SamplingParam | undefined {
  if (!REFUSAL_WORDS.test(detail)) return undefined;
  let found: { param: SamplingParam; at: number } | undefined;
  for (const param of SAMPLING_PARAMS) {
    const at = detail.search(new RegExp(`\\b${param}\\b`, 'i'));
    if (at >= 0 && (!found || at < found.at)) found = { param, at };
  }
  return found?.param;
}

/** A non-2xx answer from `url`. `retryAfter` is the Retry-After header, if any. */
export function httpError(status: number, bodyText: string, context: ErrorContext, retryAfter?: string | null): ProviderError {
  const base = displayUrl(context.baseUrl);
  const detail = serverMessage(bodyText);
  const preset = presetOf(context);
  if (status === 401 || status === 403) {
    return new ProviderError(
      'auth',
      withDetail(`The server at ${base} refused the request (${status}): the API key is missing, wrong, or not allowed to do this.`, detail),
      'Check the API key in Settings. It is sent only to this Base URL; a key for another service will not work here.',
      status,
    );
  }
  if (status === 404) {
    const model = context.model ? `"${context.model}"` : 'the model';
    const aboutModel = /model/i.test(detail);
    const pull = preset.id === 'ollama' && context.model ? ` For Ollama, download it first: \`ollama pull ${context.model}\`.` : '';
    return new ProviderError(
      'bad-request',
      withDetail(
        aboutModel
          ? `The server at ${base} does not have the model ${model} (404).`
          : `The server at ${base} has no such address (404): either the Base URL or the model name is wrong.`,
        detail,
      ),
      aboutModel
        ? `Check the model name in Settings, or pick one from the server's model list.${pull}`
        : `Check the Base URL: OpenAI-compatible servers usually end in /v1 (for example ${preset.baseUrl || 'http://localhost:11434/v1'}). ` +
          `Then check the model name.${pull}`,
      status,
    );
  }
  if (status === 429) {
    const seconds = retryAfter && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : undefined;
    return new ProviderError(
      'rate-limit',
      withDetail(`The server at ${base} is rate-limiting requests (429).`, detail),
      seconds !== undefined
        ? `Wait ${seconds} s and try again, or check the plan or credits of this account.`
        : 'Wait a little and try again, or check the plan or credits of this account.',
      status,
      retryAfterMs(retryAfter),
    );
  }
  if (status === 408 || status >= 500) {
    return new ProviderError(
      'server',
      withDetail(`The server at ${base} failed to answer (${status}).`, detail),
      preset.local
        ? 'This is a problem on the server side: check its log (the model may have failed to load or run out of memory), then try again.'
        : 'This is a problem on the server side; try again in a moment.',
      status,
      status === 503 ? retryAfterMs(retryAfter) : {},
    );
  }
  const rejectedParam = rejectedSamplingParam(detail);
  // The whole body, not just its message: llama.cpp names the window in a field beside it.
  const refusal = rejectedParam ? { tooLong: false } : contextRefusal(bodyText);
  const tooLong = refusal.tooLong;
  return new ProviderError(
    'bad-request',
    withDetail(`The server at ${base} rejected the request (${status}).`, detail),
    tooLong
      ? 'The conversation is too long for this model: start a new chat or pick a model with a larger context.'
      : 'Check the model name and the Base URL in Settings; the server\'s message above says what it did not accept.',
    status,
    rejectedParam ? { rejectedParam } : tooLong ? { contextTooLong: true, ...(refusal.window ? { contextWindow: refusal.window } : {}) } : {},
  );
}

function retryAfterMs(header: string | null | undefined): { retryAfterMs?: number } {
  const ms = parseRetryAfter(header);
  return ms === undefined ? {} : { retryAfterMs: ms };
}

/**
 * `fetch()` rejected (no HTTP answer reached the page). `reachability` comes from
 * `probeReachability`: 'reachable' means the server answered and CORS hid it.
 */
export function fetchFailure(context: ErrorContext, reachability: Reachability): ProviderError {
  const base = displayUrl(context.baseUrl);
  const preset = presetOf(context);
  const origin = originOf(context);
  const mixed = mixedContentNote(context);
  const corsFix = preset.corsFix(origin);
  if (reachability === 'reachable') {
    return new ProviderError(
      'cors',
      `The server at ${base} answered, but the browser blocked its reply: it does not allow requests from ${origin} (CORS).`,
      mixed + corsFix,
    );
  }
  if (reachability === 'unreachable') {
    const start = preset.local ? `${preset.startHint} ` : '';
    return new ProviderError(
      'network',
      `Could not reach ${base}: nothing answered there.`,
      mixed +
        `${start}Check the Base URL${preset.local ? ' and port' : ' and your network connection'}. ` +
        `If the server is running, it may also need to allow this page: ${corsFix}`,
    );
  }
  return new ProviderError(
    'network',
    `Could not connect to ${base}. Either the server is not running there, or it does not allow requests from ${origin} (CORS).`,
    mixed + (preset.local ? `${preset.startHint} ` : 'Check the Base URL and your network connection. ') + `If it is running: ${corsFix}`,
  );
}

/**
 * Asks whether anything answers at the base URL, without needing CORS. Never throws and
 * never sends the API key; gives up after `timeoutMs`.
 */
export async function probeReachability(
  baseUrl: string,
  fetchImpl: typeof fetch = fetch,
  signal?: AbortSignal,
  timeoutMs = 4000,
): Promise<Reachability> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await fetchImpl(`${displayUrl(baseUrl)}/models`, {
      mode: 'no-cors',
      credentials: 'omit',
      cache: 'no-store',
      // A no-cors request must follow redirects (anything else is a TypeError), and a
      // redirect answer proves something is there just as well.
      signal: controller.signal,
    });
    return 'reachable';
  } catch {
    return controller.signal.aborted ? 'unknown' : 'unreachable';
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}
