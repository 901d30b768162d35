import { describe, expect, it } from 'vitest';
import { detectWebGpu } from '../../../src/providers/webllm/webgpu';

function fakeNavigator(adapter: unknown, options: { throws?: boolean } = {}) {
  const requested: unknown[] = [];
  return {
    requested,
    navigator: {
      gpu: {
        async requestAdapter(request: unknown) {
          requested.push(request);
          if (options.throws) throw new Error('GPU process crashed');
          return adapter;
        },
      },
    },
  };
}

describe('WebGPU detection', () => {
  it('says there is no WebGPU and offers the HTTP provider when navigator.gpu is missing', async () => {
    const support = await detectWebGpu({});
    expect(support).toMatchObject({ available: false, problem: 'no-api', shaderF16: false });
    expect(support.message).toMatch(/no WebGPU/);
    expect(support.message).toMatch(/OpenAI-compatible server such as Ollama/);
  });

  it('reports a missing adapter differently from a missing API', async () => {
    const { navigator, requested } = fakeNavigator(null);
    const support = await detectWebGpu(navigator);
    expect(support).toMatchObject({ available: false, problem: 'no-adapter' });
    expect(support.message).toMatch(/no usable graphics adapter/);
    expect(requested).toEqual([{ powerPreference: 'high-performance' }]);
  });

  it('turns a throwing requestAdapter into an answer, not an exception', async () => {
    const support = await detectWebGpu(fakeNavigator(null, { throws: true }).navigator);
    expect(support).toMatchObject({ available: false, problem: 'error' });
  });

  it('reads features, adapter info, fallback flag and limits', async () => {
    const adapter = {
      features: new Set(['shader-f16', 'timestamp-query']),
      limits: { maxBufferSize: 2 ** 31, maxStorageBufferBindingSize: 2 ** 30 },
      info: { vendor: 'nvidia', architecture: 'ampere', description: 'RTX 3060', isFallbackAdapter: false },
    };
    const support = await detectWebGpu(fakeNavigator(adapter).navigator);
    expect(support).toMatchObject({
      available: true,
      shaderF16: true,
      adapter: { vendor: 'nvidia', architecture: 'ampere', description: 'RTX 3060', isFallbackAdapter: false, maxBufferSize: 2 ** 31 },
    });
    expect(support.message).toBe('WebGPU is available on RTX 3060. Half-precision (shader-f16) models are supported.');
  });

  it('describes a software adapter without f16 and with small buffers', async () => {
    const adapter = {
      features: new Set<string>(),
      limits: { maxBufferSize: 2 ** 28, maxStorageBufferBindingSize: 2 ** 27 },
      info: { vendor: 'google', architecture: 'swiftshader' },
      isFallbackAdapter: true, // the older place of the flag
    };
    const support = await detectWebGpu(fakeNavigator(adapter).navigator);
    expect(support.shaderF16).toBe(false);
    expect(support.adapter?.isFallbackAdapter).toBe(true);
    expect(support.message).toMatch(/google swiftshader \(software fallback, slow\)/);
    expect(support.message).toMatch(/only q4f32 models/);
    expect(support.message).toMatch(/small model/);
  });
});
