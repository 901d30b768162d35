import { describe, expect, it } from 'vitest';
import { contextRefusal, windowNamedIn } from '../../src/providers/contextRefusal';
import { httpError } from '../../src/providers/providerErrors';
import { toProviderError } from '../../src/providers/webllm/errors';

const llamaOld = {
  error: {
    code: 400,
    message: 'the request exceeds the available context size, try increasing it',
    type: 'exceed_context_size_error',
    n_prompt_tokens: 4731,
    n_ctx: 4096,
  },
};
const llamaNew = {
  error: {
    code: 400,
    message: 'request (4476 tokens) exceeds the available context size (2048 tokens), try increasing it',
    type: 'exceed_context_size_error',
    n_prompt_tokens: 4476,
    n_ctx: 2048,
  },
};

describe('contextRefusal', () => {
  it.each<[string, string, number | undefined]>([
    ["llama.cpp's 400 (older message)", JSON.stringify(llamaOld), 4096],
    ["llama.cpp's 400 (message with counts)", JSON.stringify(llamaNew), 2048],
    [
      'OpenAI',
      JSON.stringify({
        error: {
          message: "This model's maximum context length is 8,192 tokens. However, your messages resulted in 9,001 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
        },
      }),
      8192,
    ],
    [
      'vLLM',
      JSON.stringify({
        object: 'error',
        message: "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion).",
        type: 'BadRequestError',
        code: 400,
      }),
      32768,
    ],
    ['vLLM, prompt longer than the model', JSON.stringify({ message: 'The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.' }), 4096],
    [
      'LM Studio',
      JSON.stringify({ error: 'Trying to keep the first 5012 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough.' }),
      4096,
    ],
    ['a plain-text refusal', 'Prompt is too long: 9000 tokens > 8192', 8192],
    ['a refusal that names no window', JSON.stringify({ error: { message: 'Input is too long for this model.' } }), undefined],
  ])('%s', (_label, body, window) => {
    const refusal = contextRefusal(body);
    expect(refusal.tooLong).toBe(true);
    expect(refusal.window).toBe(window);
  });

  it('other errors are not refusals', () => {
    expect(contextRefusal(JSON.stringify({ error: { message: 'model "x" not found', type: 'not_found_error' } }))).toEqual({ tooLong: false });
    expect(contextRefusal('')).toEqual({ tooLong: false });
    expect(contextRefusal('Bad Gateway')).toEqual({ tooLong: false });
  });

  it('reads the window from words only where it is named', () => {
    expect(windowNamedIn('number of prompt tokens: 5000; context window size: 4096')).toBe(4096);
    expect(windowNamedIn('request (4476 tokens) exceeds the available context size (4096 tokens)')).toBe(4096);
    expect(windowNamedIn('the request exceeds the available context size')).toBeUndefined();
  });
});

describe('refusals become ProviderErrors that carry the window', () => {
  const context = { baseUrl: 'http://localhost:8080/v1', model: 'qwen' };

  it("llama.cpp's 400 → contextTooLong with n_ctx", () => {
    const error = httpError(400, JSON.stringify(llamaOld), context);
    expect(error.contextTooLong).toBe(true);
    expect(error.contextWindow).toBe(4096);
    expect(error.details).toEqual({ contextTooLong: true, contextWindow: 4096 });
  });

  it('"maximum context length is N tokens" → contextTooLong with N', () => {
    const error = httpError(400, JSON.stringify({ error: { message: "This model's maximum context length is 16384 tokens." } }), context);
    expect(error.details).toEqual({ contextTooLong: true, contextWindow: 16384 });
  });

  it('a refusal without a figure is still contextTooLong, with no window', () => {
    const error = httpError(400, JSON.stringify({ error: { message: 'Prompt is too long' } }), context);
    expect(error.details).toEqual({ contextTooLong: true });
  });

  it("web-llm's ContextWindowSizeExceededError (as it crosses the worker boundary) → contextTooLong with the window", () => {
    const text =
      'ContextWindowSizeExceededError: Prompt tokens exceed context window size: number of prompt tokens: 5120; context window size: 4096\n' +
      'Consider shortening the prompt, or increase `context_window_size`, or using sliding window via `sliding_window_size`.';
    const error = toProviderError(text, { stage: 'generate', modelId: 'Qwen3-0.6B-q4f16_1-MLC' });
    expect(error.details).toEqual({ contextTooLong: true, contextWindow: 4096 });
  });
});
