/**
 * Reading a context-length refusal: whether a server's (or web-llm's) error says the request
 * did not fit the model's window, and the window it names when it names one. A refusal that
 * names the window teaches it (docs/context-window.md, "Knowing the window").
 *
 * The shapes recognised, each from the server's own source or documentation:
 * - llama.cpp's 400 `{"error":{"code":400,"message":…,"type":"exceed_context_size_error",
 *   "n_prompt_tokens":N,"n_ctx":M}}` (the message moved between builds from "the request
 *   exceeds the available context size, try increasing it" to "request (N tokens) exceeds the
 *   available context size (M tokens), try increasing it"; the type and `n_ctx` did not);
 * - OpenAI and vLLM: "This model's maximum context length is N tokens…" (OpenAI adds the code
 *   `context_length_exceeded`); vLLM's "…longer than the maximum model length of N";
 * - LM Studio: "…the model is loaded with context length of only N tokens…";
 * - web-llm's `ContextWindowSizeExceededError`: "…context window size: N…".
 */

export interface ContextRefusal {
  /** The request did not fit the model's window. */
  tooLong: boolean;
  /** The window the refusal names, in tokens, when it names one. */
  window?: number;
}

const WINDOW_PHRASES: readonly RegExp[] = [
  /maximum context length (?:is|of) (\d[\d,]*)/i,
  /maximum model length (?:is |of )?(\d[\d,]*)/i,
  /available context size \((\d[\d,]*) tokens?\)/i,
  /context length of only (\d[\d,]*)/i,
  /context window size:? (\d[\d,]*)/i,
  /\bn_ctx\b[^\d]{0,12}(\d[\d,]*)/i,
  /\d[\d,]* tokens? > (\d[\d,]*)/i,
];

const TOO_LONG_WORDS = /exceed_context_size|context_length_exceeded|ContextWindowSizeExceeded|context|too long|maximum.*tokens|tokens.*exceed/i;

/** A positive whole number from a JSON field or a matched figure ("8,192"), else undefined. */
function positiveInteger(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value.replace(/,/g, '')) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 ? number : undefined;
}

/** The error object of a JSON body (`{error: {...}}`, or the body itself), if the text is JSON. */
function errorObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const fields = parsed as Record<string, unknown>;
    const inner = fields.error;
    if (typeof inner === 'string') return { message: inner };
    return inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : fields;
  } catch {
    return undefined;
  }
}

/** The window a refusal's words name, if any. */
export function windowNamedIn(text: string): number | undefined {
  for (const phrase of WINDOW_PHRASES) {
    const found = phrase.exec(text);
    const window = found ? positiveInteger(found[1]) : undefined;
    if (window !== undefined) return window;
  }
  return undefined;
}

/**
 * Reads a refusal from an error body (JSON or text) or an error's message. `bodyText` is the
 * whole body; the message alone loses llama.cpp's `n_ctx` field, so pass the body when there is one.
 */
export function contextRefusal(bodyText: string): ContextRefusal {
  const text = bodyText.trim();
  if (text === '') return { tooLong: false };
  const error = errorObject(text);
  if (error) {
    const typed = error.type === 'exceed_context_size_error' || error.code === 'context_length_exceeded';
    const message = typeof error.message === 'string' ? error.message : '';
    const fromField = positiveInteger(error.n_ctx);
    const tooLong = typed || fromField !== undefined || TOO_LONG_WORDS.test(message);
    if (!tooLong) return { tooLong: false };
    const window = fromField ?? windowNamedIn(message);
    return window === undefined ? { tooLong } : { tooLong, window };
  }
  // An HTML error page (a proxy's) says nothing about the model.
  if (/^</.test(text) || !TOO_LONG_WORDS.test(text)) return { tooLong: false };
  const window = windowNamedIn(text);
  return window === undefined ? { tooLong: true } : { tooLong: true, window };
}
