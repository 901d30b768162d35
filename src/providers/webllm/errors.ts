/**
 * web-llm failures turned into ProviderErrors that say what to do.
 *
 * Errors from the engine worker cross the worker boundary as *strings* (web-llm's handler
 * posts `err.toString()`, i.e. "ShaderF16SupportError: …"), so matching goes by the error
 * name at the start of the text and by telltale phrases, never by `instanceof`.
 */
import { ProviderError } from '../provider';
import { windowNamedIn } from '../contextRefusal';

export type EngineStage = 'load' | 'generate';

const USE_HTTP_HINT =
  'Choose "OpenAI-compatible" in Settings and point it at a server such as Ollama (http://localhost:11434/v1).';

function textOf(error: unknown): { name: string; message: string } {
  if (error instanceof Error) return { name: error.name, message: error.message };
  if (error && typeof error === 'object' && 'message' in error) {
    const record = error as { name?: unknown; message?: unknown };
    return { name: String(record.name ?? ''), message: String(record.message ?? '') };
  }
  const text = String(error);
  const named = /^([A-Za-z]*Error|AbortError|DOMException): ?([\s\S]*)$/.exec(text);
  return named ? { name: named[1], message: named[2] } : { name: '', message: text };
}

export interface ErrorContext {
  stage: EngineStage;
  modelId?: string;
  /** navigator.onLine at the time, when known. */
  online?: boolean;
}

export function toProviderError(error: unknown, context: ErrorContext): ProviderError {
  if (error instanceof ProviderError) return error;
  const { name, message } = textOf(error);
  const all = `${name}: ${message}`;
  const model = context.modelId ?? 'the model';

  if (name === 'AbortError' || (context.stage === 'load' && /\babort(ed)?\b/i.test(message))) {
    return new ProviderError('aborted', `Loading ${model} was cancelled.`);
  }
  if (/WebGPUNotAvailableError|WebGPUNotFoundError|No available adapters|navigator\.gpu/i.test(all)) {
    return new ProviderError('webgpu', 'This browser has no usable WebGPU, so the model cannot run here.', USE_HTTP_HINT);
  }
  if (/ShaderF16SupportError|shader-f16/i.test(all)) {
    return new ProviderError(
      'webgpu',
      `${model} needs half-precision GPU support (shader-f16), which this GPU or browser lacks.`,
      'Pick a q4f32 model instead (same model, a bit larger).',
    );
  }
  if (/FeatureSupportError/.test(name) || /requires feature/i.test(message)) {
    return new ProviderError('webgpu', `${model} needs a GPU feature this browser lacks: ${message}`, 'Pick another model.');
  }
  if (/DeviceLostError|device (was )?lost/i.test(all)) {
    return new ProviderError(
      'webgpu',
      'The GPU stopped responding (device lost), usually because it ran out of memory.',
      'Pick a smaller model or a "1k" context variant, close other GPU-heavy tabs, then load again.',
    );
  }
  if (/out of memory|\bOOM\b|allocation failed|failed to allocate|exceeds the (max|limit)/i.test(all)) {
    return new ProviderError(
      'model',
      `${model} does not fit in this GPU's memory.`,
      'Pick a smaller model (check its VRAM need) or close other GPU-heavy tabs.',
    );
  }
  if (/ModelNotFoundError|SpecifiedModelNotFoundError|Cannot find model record/i.test(all)) {
    return new ProviderError('model', `"${model}" is not one of the in-browser models.`, 'Pick a model from the list in Settings.');
  }
  if (/ContextWindowSizeExceededError|context window/i.test(all)) {
    // web-llm's message names the window ("…context window size: 4096…"): it teaches the window.
    const window = windowNamedIn(message);
    return new ProviderError(
      'bad-request',
      'The conversation is longer than this model can read at once.',
      'Start a new chat, or pick a model with a larger context window.',
      undefined,
      window === undefined ? { contextTooLong: true } : { contextTooLong: true, contextWindow: window },
    );
  }
  if (/Failed to fetch|NetworkError|net::|Load failed|fetch failed|ERR_INTERNET_DISCONNECTED|Cannot fetch/i.test(all)) {
    if (context.online === false) {
      return new ProviderError(
        'network',
        `${model} is not downloaded yet and this device is offline.`,
        'Connect to the internet to download it once; after that it loads offline.',
      );
    }
    return new ProviderError(
      'network',
      context.stage === 'load' ? `Downloading ${model} failed.` : `The model stopped: ${message}`,
      'Check the internet connection (the files come from huggingface.co and raw.githubusercontent.com) and try again; finished parts are kept.',
    );
  }
  if (/ModelNotLoadedError|EngineNotLoadedError|WorkerEngineModelNotLoadedError/.test(name)) {
    return new ProviderError('model', 'No in-browser model is loaded.', 'Load a model in Settings first.');
  }
  return new ProviderError(
    'model',
    context.stage === 'load' ? `Loading ${model} failed: ${message}` : `The in-browser model failed: ${message}`,
    context.stage === 'load' ? 'Try again, or pick a smaller model.' : 'Try again; if it keeps failing, reload the model in Settings.',
  );
}
