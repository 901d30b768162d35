/**
 * Asking an OpenAI-compatible server how large a model's window is (docs/context-window.md,
 * "Knowing the window"). No standard says where: each server type answers somewhere else,
 * so the server's preset picks which to ask first, and every other probe follows quietly
 * (a 404, a CORS refusal or a timeout just moves on). Nothing answered → a conservative
 * default: 4,096 for a server on this machine or the local network (llama.cpp, LM Studio and
 * Ollama all start there), 8,192 for a hosted one.
 *
 * - llama.cpp: `GET {root}/props` → `default_generation_settings.n_ctx` (the running window);
 * - LM Studio: `GET {root}/api/v0/models` → `loaded_context_length`, else `max_context_length`;
 * - Ollama: `GET {root}/api/ps` → the loaded model's `context_length` (what it runs with);
 *   else `POST {root}/api/show` → `num_ctx` from its `parameters` when the Modelfile sets it;
 *   else Ollama's own default of 4,096, never more than the trained `<arch>.context_length`
 *   (newer Ollama picks a larger default on GPUs with 24 GB or more, but nothing in the API
 *   says so before the model is loaded, and assuming too much is what breaks a chat);
 * - OpenRouter, vLLM and others: `GET {base}/models` → the model's `context_length`
 *   (OpenRouter), `max_model_len` (vLLM) or `context_window`.
 */
import { presetForBaseUrl, presetById, type PresetId } from './presets';
import { LOCAL_DEFAULT_WINDOW, REMOTE_DEFAULT_WINDOW, type ModelWindow } from './modelWindow';

export interface WindowTarget {
  baseUrl: string;
  model: string;
  /** Sent only to this server (the probes all live on the base URL's own origin). */
  apiKey?: string;
  /** The saved provider's preset; derived from the base URL when absent. */
  presetId?: string;
}

export interface DiscoveryOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per probe; a probe that takes longer is given up. */
  timeoutMs?: number;
}

type Probe = (ask: Ask, target: WindowTarget) => Promise<ModelWindow | null>;
type Ask = (url: string, init?: { method?: string; body?: unknown }) => Promise<unknown>;

const PROBE_TIMEOUT_MS = 4_000;
/** Ollama's num_ctx when neither the Modelfile nor OLLAMA_CONTEXT_LENGTH sets one (docs/context-window.md). */
export const OLLAMA_DEFAULT_NUM_CTX = 4_096;

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function positive(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}

function reported(tokens: number, detail: string): ModelWindow {
  return { tokens, source: 'reported', detail };
}

/** The server's root: the base URL without its API path (`/v1`, `/api/v1`). */
export function serverRoot(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, '').replace(/(\/api)?\/v\d+$/, '');
}

/** Whether the host is this machine or a private network (where local servers run). */
export function isLocalHost(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl.trim()).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host === '0.0.0.0') return true;
  if (host === '::1' || /^f[cd][0-9a-f]{2}:/.test(host) || /^fe80:/.test(host)) return true;
  const ipv4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  if (!ipv4) return false;
  const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}

/** The window to assume when nothing answered. */
export function defaultWindow(baseUrl: string): ModelWindow {
  return isLocalHost(baseUrl)
    ? { tokens: LOCAL_DEFAULT_WINDOW, source: 'default', detail: 'a server on this machine or network; local servers start at 4,096' }
    : { tokens: REMOTE_DEFAULT_WINDOW, source: 'default', detail: 'a hosted server that did not say' };
}

const llamaCppProps: Probe = async (ask, target) => {
  const props = await ask(`${serverRoot(target.baseUrl)}/props`);
  if (!isRecord(props)) return null;
  const settings = isRecord(props.default_generation_settings) ? props.default_generation_settings : {};
  const tokens = positive(settings.n_ctx) ?? positive(props.n_ctx);
  return tokens ? reported(tokens, 'llama.cpp') : null;
};

const lmStudioModels: Probe = async (ask, target) => {
  const list = await ask(`${serverRoot(target.baseUrl)}/api/v0/models`);
  const entries = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  const entry = entries.find((item) => isRecord(item) && item.id === target.model);
  if (!isRecord(entry)) return null;
  const loaded = positive(entry.loaded_context_length);
  if (loaded) return reported(loaded, 'LM Studio');
  const max = positive(entry.max_context_length);
  // Not loaded yet: LM Studio loads it with its own default (4,096) unless told otherwise.
  return max ? reported(Math.min(max, LOCAL_DEFAULT_WINDOW), `LM Studio (the model is not loaded; it can take up to ${max.toLocaleString('en-US')})`) : null;
};

/** `num_ctx` from Ollama's `parameters` text ("num_ctx      8192\nstop …"). */
export function ollamaNumCtx(parameters: unknown): number | undefined {
  if (typeof parameters !== 'string') return undefined;
  return positive(/^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1]);
}

/**
 * Ollama: the running model's window, else what its settings say. `onlyIfOllama` (a custom
 * server): `/api/show` is asked only when `/api/ps` answered like Ollama, so other servers
 * get no POST they did not ask for.
 */
const ollama = (onlyIfOllama: boolean): Probe => async (ask, target) => {
  const root = serverRoot(target.baseUrl);
  const running = await ask(`${root}/api/ps`).catch(() => null);
  const isOllama = isRecord(running) && Array.isArray(running.models);
  if (onlyIfOllama && !isOllama) return null;
  const loaded = isOllama ? (running.models as unknown[]).find((item) => isRecord(item) && (item.name === target.model || item.model === target.model)) : undefined;
  const loadedWith = isRecord(loaded) ? positive(loaded.context_length) : undefined;
  if (loadedWith) return reported(loadedWith, 'Ollama (the loaded model)');
  const show = await ask(`${root}/api/show`, { method: 'POST', body: { model: target.model } });
  if (!isRecord(show)) return null;
  const numCtx = ollamaNumCtx(show.parameters);
  if (numCtx) return reported(numCtx, "Ollama (the model's num_ctx)");
  const info = isRecord(show.model_info) ? show.model_info : {};
  const arch = typeof info['general.architecture'] === 'string' ? info['general.architecture'] : '';
  const trained = positive(info[`${arch}.context_length`]);
  if (!trained && !('parameters' in show) && !('model_info' in show)) return null;
  const tokens = Math.min(trained ?? OLLAMA_DEFAULT_NUM_CTX, OLLAMA_DEFAULT_NUM_CTX);
  const more = trained && trained > tokens ? `; the model can take ${trained.toLocaleString('en-US')} if num_ctx is raised` : '';
  return reported(tokens, `Ollama (its default num_ctx${more})`);
};

const modelList: Probe = async (ask, target) => {
  const list = await ask(`${target.baseUrl.trim().replace(/\/+$/, '')}/models`);
  const entries = isRecord(list) && Array.isArray(list.data) ? list.data : [];
  const entry = entries.find((item) => isRecord(item) && item.id === target.model);
  if (!isRecord(entry)) return null;
  const topProvider = isRecord(entry.top_provider) ? entry.top_provider : {};
  const fields: Array<[unknown, string]> = [
    [entry.max_model_len, 'vLLM (max_model_len)'],
    [topProvider.context_length, 'the model list (context_length)'],
    [entry.context_length, 'the model list (context_length)'],
    [entry.context_window, 'the model list (context_window)'],
    [entry.loaded_context_length, 'LM Studio'],
  ];
  for (const [value, detail] of fields) {
    const tokens = positive(value);
    if (tokens) return reported(tokens, detail);
  }
  return null;
};

/** Which probes to try, in order, for a preset; a custom server gets all of them. */
export function probesFor(presetId: PresetId): Probe[] {
  switch (presetId) {
    case 'llama-cpp':
      return [llamaCppProps, modelList];
    case 'lm-studio':
      return [lmStudioModels, modelList];
    case 'ollama':
      return [ollama(false), modelList];
    case 'openai':
    case 'openrouter':
      return [modelList];
    default:
      return [modelList, llamaCppProps, ollama(true), lmStudioModels];
  }
}

function asker(target: WindowTarget, options: DiscoveryOptions): Ask {
  const fetchImpl = options.fetch ?? fetch;
  return async (url, init = {}) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? PROBE_TIMEOUT_MS);
    const stop = () => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      const headers: Record<string, string> = {};
      if (init.body !== undefined) headers['Content-Type'] = 'application/json';
      // Every probe is on the base URL's own server, the only place its key may go (docs/providers.md).
      if (target.apiKey) headers.Authorization = `Bearer ${target.apiKey}`;
      const response = await fetchImpl(url, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: controller.signal,
        credentials: 'omit',
      });
      if (!response.ok) return null;
      return (await response.json()) as unknown;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
    }
  };
}

/**
 * The model's window as the server reports it, or the default when no probe answers. Never
 * throws for a server that does not answer; an aborted `signal` ends it with the default.
 */
export async function discoverWindow(target: WindowTarget, options: DiscoveryOptions = {}): Promise<ModelWindow> {
  const preset = presetById(target.presetId) ?? presetForBaseUrl(target.baseUrl);
  const ask = asker(target, options);
  for (const probe of probesFor(preset.id)) {
    if (options.signal?.aborted) break;
    try {
      const found = await probe(ask, target);
      if (found) return found;
    } catch {
      // A probe the server does not answer (404, CORS, not JSON, timeout): try the next one.
    }
  }
  return defaultWindow(target.baseUrl);
}
