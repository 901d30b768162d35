import { functionCallingModelIds, prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import {
  annotateForSupport,
  catalogFrom,
  defaultModelId,
  estimateDownloadMB,
  knackAppConfig,
  needsShaderF16,
  parametersInBillions,
  quantizationOf,
} from '../../../src/providers/webllm/models';
import { summarizeSupport, type WebGpuSupport } from '../../../src/providers/webllm/webgpu';

const GIB = 1024 ** 3;
const adapter = {
  vendor: 'google',
  architecture: 'swiftshader',
  description: '',
  isFallbackAdapter: true,
  maxBufferSize: GIB,
  maxStorageBufferBindingSize: GIB,
};
const noF16 = summarizeSupport({ available: true, shaderF16: false, adapter });
const withF16 = summarizeSupport({ available: true, shaderF16: true, adapter: { ...adapter, isFallbackAdapter: false } });
const noGpu = summarizeSupport({ available: false, problem: 'no-adapter', shaderF16: false });

const catalog = catalogFrom(prebuiltAppConfig.model_list, functionCallingModelIds);

describe('web-llm model catalog', () => {
  it('keeps only chat models from the prebuilt list', () => {
    expect(catalog.length).toBeGreaterThan(50);
    expect(catalog.some((model) => model.id.startsWith('snowflake-arctic-embed'))).toBe(false);
    expect(catalog.some((model) => model.id.startsWith('Phi-3.5-vision'))).toBe(false);
    expect(catalog.map((model) => model.id)).toContain('Qwen3-0.6B-q4f32_1-MLC');
  });

  it('reads quantization, VRAM, low-resource flag and context from the records', () => {
    const qwen = catalog.find((model) => model.id === 'Qwen3-1.7B-q4f32_1-MLC')!;
    expect(qwen.quantization).toBe('q4f32_1');
    expect(qwen.vramMB).toBe(2635);
    expect(qwen.lowResource).toBe(true);
    expect(qwen.contextWindow).toBe(4096);
    expect(qwen.requiredFeatures).toEqual([]);
    const gemma = catalog.find((model) => model.id === 'gemma-2b-it-q4f32_1-MLC')!;
    expect(gemma.bufferSizeRequiredBytes).toBe(262144000);
  });

  it('marks every f16 quantization as needing shader-f16, even where the record does not', () => {
    // Qwen3's q4f16 record lists no required_features, but it computes in f16.
    expect(prebuiltAppConfig.model_list.find((r) => r.model_id === 'Qwen3-0.6B-q4f16_1-MLC')!.required_features).toBeUndefined();
    expect(catalog.find((model) => model.id === 'Qwen3-0.6B-q4f16_1-MLC')!.requiredFeatures).toEqual(['shader-f16']);
    expect(needsShaderF16('SmolLM2-360M-Instruct-q0f16-MLC')).toBe(true);
    expect(needsShaderF16('Llama-3.1-70B-Instruct-q3f16_1-MLC')).toBe(true);
    expect(needsShaderF16('Llama-3.2-1B-Instruct-q4f32_1-MLC')).toBe(false);
    for (const model of catalog) {
      expect(model.requiredFeatures.includes('shader-f16')).toBe(/f16/.test(model.quantization));
    }
  });

  it('flags native tools exactly for web-llm function-calling models', () => {
    const native = catalog.filter((model) => model.nativeTools).map((model) => model.id).sort();
    expect(native).toEqual([...functionCallingModelIds].sort());
    expect(catalog.find((model) => model.id === 'Qwen3-1.7B-q4f32_1-MLC')!.nativeTools).toBe(false);
  });

  it('estimates download sizes from parameters and bits per weight', () => {
    expect(quantizationOf('Llama-3.1-8B-Instruct-q4f16_1-MLC-1k')).toBe('q4f16_1');
    expect(parametersInBillions('Qwen3-0.6B-q4f16_1-MLC')).toBe(0.6);
    expect(parametersInBillions('SmolLM2-360M-Instruct-q4f32_1-MLC')).toBeCloseTo(0.36);
    expect(parametersInBillions('stablelm-2-zephyr-1_6b-q4f32_1-MLC')).toBe(1.6);
    expect(parametersInBillions('Phi-3.5-mini-instruct-q4f16_1-MLC')).toBe(3.8);
    expect(estimateDownloadMB('Qwen3-0.6B-q4f16_1-MLC', 1403)).toBe(338); // 0.6e9 × 4.5 bits
    expect(estimateDownloadMB('Qwen3-0.6B-q0f32-MLC', 3843)).toBe(2400);
    expect(estimateDownloadMB('mystery-model', 1000)).toBe(500);
    for (const model of catalog) {
      expect(model.downloadMB).toBeGreaterThan(0);
      // Weights alone never need more memory than running the model.
      expect(model.downloadMB).toBeLessThan(model.vramMB * 1.2);
    }
  });

  it('marks f16 models unsupported without shader-f16 and says why', () => {
    const annotated = annotateForSupport(catalog, noF16);
    const f16 = annotated.find((model) => model.id === 'Qwen3-1.7B-q4f16_1-MLC')!;
    expect(f16.supported).toBe(false);
    expect(f16.unsupportedReason).toBe('needs shader-f16');
    expect(annotated.find((model) => model.id === 'Qwen3-1.7B-q4f32_1-MLC')!.supported).toBe(true);
    expect(annotateForSupport(catalog, withF16).find((model) => model.id === 'Qwen3-1.7B-q4f16_1-MLC')!.supported).toBe(true);
    expect(annotateForSupport(catalog, noGpu).every((model) => !model.supported && model.unsupportedReason === 'needs WebGPU')).toBe(true);
  });

  it('refuses models needing bigger buffers than the adapter allows', () => {
    const small: WebGpuSupport = summarizeSupport({
      available: true,
      shaderF16: true,
      adapter: { ...adapter, maxStorageBufferBindingSize: 128 * 1024 * 1024 },
    });
    const gemma = annotateForSupport(catalog, small).find((model) => model.id === 'gemma-2b-it-q4f32_1-MLC')!;
    expect(gemma).toMatchObject({ supported: false, unsupportedReason: 'needs larger GPU buffers' });
  });

  it('defaults to a small q4f32 Qwen3 without shader-f16 and to q4f16 with it', () => {
    expect(defaultModelId(annotateForSupport(catalog, noF16), noF16)).toBe('Qwen3-1.7B-q4f32_1-MLC');
    expect(defaultModelId(annotateForSupport(catalog, withF16), withF16)).toBe('Qwen3-1.7B-q4f16_1-MLC');
    expect(defaultModelId(annotateForSupport(catalog, noGpu), noGpu)).toBeUndefined();
  });

  it('falls back to Llama-3.2 when no Qwen3 is in the list', () => {
    const withoutQwen = catalog.filter((model) => !model.id.startsWith('Qwen3-'));
    expect(defaultModelId(annotateForSupport(withoutQwen, noF16), noF16)).toBe('Llama-3.2-1B-Instruct-q4f32_1-MLC');
  });

  it('names the Cache API backend explicitly', () => {
    const config = knackAppConfig(prebuiltAppConfig);
    expect(config.cacheBackend).toBe('cache');
    expect(config.model_list).toBe(prebuiltAppConfig.model_list);
    expect('useIndexedDBCache' in config).toBe(false);
  });
});
