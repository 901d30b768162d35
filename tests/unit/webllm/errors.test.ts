import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/providers/provider';
import { toProviderError } from '../../../src/providers/webllm/errors';

// Strings as web-llm's worker handler posts them: `err.toString()`.
const load = { stage: 'load' as const, modelId: 'Qwen3-1.7B-q4f16_1-MLC' };

describe('web-llm error mapping', () => {
  it('maps no WebGPU to a webgpu error that points at the HTTP provider', () => {
    const error = toProviderError('WebGPUNotAvailableError: WebGPU is not supported in your current environment', load);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.kind).toBe('webgpu');
    expect(error.hint).toMatch(/OpenAI-compatible/);
    expect(error.hint).toMatch(/Ollama/);
  });

  it('maps missing shader-f16 to advice to pick q4f32', () => {
    const error = toProviderError('ShaderF16SupportError: This model requires WebGPU extension shader-f16', load);
    expect(error.kind).toBe('webgpu');
    expect(error.message).toMatch(/Qwen3-1\.7B-q4f16_1-MLC needs half-precision/);
    expect(error.hint).toMatch(/q4f32/);
  });

  it('maps device lost and out-of-memory to smaller-model advice', () => {
    const lost = toProviderError(Object.assign(new Error('The WebGPU device was lost while loading the model.'), { name: 'DeviceLostError' }), load);
    expect(lost.kind).toBe('webgpu');
    expect(lost.message).toMatch(/device lost/);
    expect(lost.hint).toMatch(/smaller model/);
    const oom = toProviderError('Error: Out of memory allocating buffer', load);
    expect(oom.kind).toBe('model');
    expect(oom.hint).toMatch(/smaller model/);
  });

  it('separates "offline and not downloaded" from a failed download', () => {
    const offline = toProviderError('TypeError: Failed to fetch', { ...load, online: false });
    expect(offline.kind).toBe('network');
    expect(offline.message).toBe('Qwen3-1.7B-q4f16_1-MLC is not downloaded yet and this device is offline.');
    const failed = toProviderError(new TypeError('Failed to fetch'), { ...load, online: true });
    expect(failed.kind).toBe('network');
    expect(failed.message).toBe('Downloading Qwen3-1.7B-q4f16_1-MLC failed.');
    expect(failed.hint).toMatch(/huggingface\.co/);
  });

  it('maps aborts, unknown models and long conversations', () => {
    expect(toProviderError(new DOMException('stop', 'AbortError'), load).kind).toBe('aborted');
    expect(toProviderError('ModelNotFoundError: Cannot find model record in appConfig for x', load).kind).toBe('model');
    const long = toProviderError('ContextWindowSizeExceededError: Prompt tokens exceed context window size', { stage: 'generate' });
    expect(long.kind).toBe('bad-request');
    expect(long.hint).toMatch(/new chat/);
    expect(long.contextTooLong).toBe(true);
  });

  it('keeps the original text for anything unknown and passes ProviderErrors through', () => {
    const other = toProviderError('Error: tokenizer exploded', { stage: 'generate' });
    expect(other.kind).toBe('model');
    expect(other.message).toMatch(/tokenizer exploded/);
    const original = new ProviderError('cors', 'x');
    expect(toProviderError(original, load)).toBe(original);
  });
});
