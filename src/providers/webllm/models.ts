/**
 * The in-browser model picker's data: web-llm's prebuilt model list, reduced to chat models,
 * sized, and checked against what this device's WebGPU offers.
 *
 * The pure functions take plain records so they run in unit tests; `loadModelCatalog` is the
 * only place that touches web-llm at run time, through a dynamic import, so web-llm's ~6 MB
 * stays in its own chunk until the in-browser provider is actually used.
 */
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';
import type { WebGpuSupport } from './webgpu';

export interface WebLlmModel {
  id: string;
  /** Readable name for the picker, e.g. "Qwen3 1.7B · q4f32". */
  label: string;
  /** Quantization tag from the id, e.g. "q4f32_1". */
  quantization: string;
  /** Estimated download in MB (web-llm's records carry no download size). */
  downloadMB: number;
  /** From the record: GPU memory needed while running. */
  vramMB: number;
  lowResource: boolean;
  /** GPU features the model needs: the record's list plus shader-f16 for every f16 quantization. */
  requiredFeatures: string[];
  /** Minimum maxStorageBufferBindingSize, when the record names one. */
  bufferSizeRequiredBytes?: number;
  contextWindow?: number;
  /** web-llm accepts `tools` only for these (functionCallingModelIds); others use the text protocol. */
  nativeTools: boolean;
}

export interface AnnotatedModel extends WebLlmModel {
  supported: boolean;
  /** Why it can't run here, for the picker ("needs shader-f16"). */
  unsupportedReason?: string;
}

/** web-llm ModelType: 0 = LLM, 1 = embedding, 2 = vision. The agent needs plain chat models. */
const CHAT_MODEL_TYPE = 0;

/** Effective bits per weight: the 4-bit formats store one scale per group of 32 weights. */
const BITS_PER_WEIGHT: Record<string, number> = { q0f16: 16, q0f32: 32, q3f16: 3.4, q4f16: 4.5, q4f32: 5 };

/** Parameter counts (billions) for ids that don't spell them out. */
const KNOWN_PARAMETERS_B: Record<string, number> = {
  'Phi-3.5-mini': 3.8,
  'Phi-3-mini': 3.8,
  'Phi-4-mini': 3.8,
  'phi-2': 2.7,
  'phi-1_5': 1.4,
  'gemma-4-E2B': 5.1,
};

export function quantizationOf(modelId: string): string {
  return /-(q\d+f\d+(?:_\d+)?)(?:-|$)/.exec(modelId)?.[1] ?? '';
}

/** f16 quantizations compute in half precision, so they need shader-f16 even where the record doesn't say. */
export function needsShaderF16(modelId: string, requiredFeatures: readonly string[] = []): boolean {
  return requiredFeatures.includes('shader-f16') || /^q\d+f16/.test(quantizationOf(modelId));
}

export function parametersInBillions(modelId: string): number | undefined {
  const known = Object.keys(KNOWN_PARAMETERS_B).find((prefix) => modelId.startsWith(prefix));
  if (known) return KNOWN_PARAMETERS_B[known];
  // "Qwen3-0.6B", "SmolLM2-360M", "stablelm-2-zephyr-1_6b", "Llama-3.1-70B"
  const match = /(?:^|-)(\d+(?:[._]\d+)?)([BbMm])(?:-|$)/.exec(modelId);
  if (!match) return undefined;
  const amount = Number(match[1].replace('_', '.'));
  return match[2].toLowerCase() === 'm' ? amount / 1000 : amount;
}

/** Download estimate in MB from parameters × bits per weight; falls back to half the VRAM need. */
export function estimateDownloadMB(modelId: string, vramMB: number): number {
  const params = parametersInBillions(modelId);
  const bits = BITS_PER_WEIGHT[quantizationOf(modelId).replace(/_\d+$/, '')];
  if (params === undefined || bits === undefined) return Math.round(vramMB / 2);
  return Math.round((params * 1e9 * bits) / 8 / 1e6);
}

function labelFor(modelId: string): string {
  const quantization = quantizationOf(modelId);
  const base = modelId
    .replace(/-MLC(-\w+)?$/, (_match, suffix: string | undefined) => (suffix ? ` ${suffix.slice(1)} context` : ''))
    .replace(`-${quantization}`, '')
    .replace(/-/g, ' ');
  return `${base} · ${quantization.replace(/_\d+$/, '')}`;
}

/** The chat models of a web-llm app config, in web-llm's order. */
export function catalogFrom(records: readonly ModelRecord[], functionCallingIds: readonly string[]): WebLlmModel[] {
  return records
    .filter((record) => (record.model_type ?? CHAT_MODEL_TYPE) === CHAT_MODEL_TYPE)
    .map((record) => {
      const vramMB = Math.round(record.vram_required_MB ?? 0);
      const features = new Set(record.required_features ?? []);
      if (needsShaderF16(record.model_id, record.required_features)) features.add('shader-f16');
      const contextWindow = (record.overrides as { context_window_size?: number } | undefined)?.context_window_size;
      return {
        id: record.model_id,
        label: labelFor(record.model_id),
        quantization: quantizationOf(record.model_id),
        downloadMB: estimateDownloadMB(record.model_id, vramMB),
        vramMB,
        lowResource: record.low_resource_required ?? false,
        requiredFeatures: [...features],
        bufferSizeRequiredBytes: record.buffer_size_required_bytes,
        contextWindow,
        nativeTools: functionCallingIds.includes(record.model_id),
      };
    });
}

/** Marks each model runnable or not on this device, with the reason. */
export function annotateForSupport(models: readonly WebLlmModel[], support: WebGpuSupport): AnnotatedModel[] {
  return models.map((model) => {
    let reason: string | undefined;
    if (!support.available) reason = 'needs WebGPU';
    else if (model.requiredFeatures.includes('shader-f16') && !support.shaderF16) reason = 'needs shader-f16';
    else {
      const missing = model.requiredFeatures.find((feature) => feature !== 'shader-f16');
      if (missing) reason = `needs ${missing}`;
      else if (
        model.bufferSizeRequiredBytes !== undefined &&
        support.adapter !== undefined &&
        support.adapter.maxStorageBufferBindingSize < model.bufferSizeRequiredBytes
      ) {
        reason = 'needs larger GPU buffers';
      }
    }
    return reason ? { ...model, supported: false, unsupportedReason: reason } : { ...model, supported: true };
  });
}

/**
 * Small models that run well and follow the text tool protocol (Qwen3 does, even at 0.6B),
 * best first. Each exists in both quantizations; the f16 one wins where shader-f16 exists.
 */
const PREFERRED_DEFAULTS = ['Qwen3-1.7B', 'Qwen3-0.6B', 'Llama-3.2-1B-Instruct', 'Llama-3.2-3B-Instruct'];

/** The model to offer first: a small Qwen3/Llama-3.2 in the best quantization the device runs. */
export function defaultModelId(models: readonly AnnotatedModel[], support: WebGpuSupport): string | undefined {
  const quantizations = support.shaderF16 ? ['q4f16_1', 'q4f32_1'] : ['q4f32_1'];
  for (const base of PREFERRED_DEFAULTS) {
    for (const quantization of quantizations) {
      const found = models.find((model) => model.id === `${base}-${quantization}-MLC` && model.supported);
      if (found) return found.id;
    }
  }
  return models.find((model) => model.supported && model.lowResource)?.id ?? models.find((model) => model.supported)?.id;
}

/**
 * The app config every engine and cache call uses. The Cache API backend is web-llm's default
 * and best tested; spelled out because the older `useIndexedDBCache` flag is silently ignored.
 */
export function knackAppConfig(prebuilt: AppConfig): AppConfig {
  return { ...prebuilt, cacheBackend: 'cache' };
}

export interface ModelCatalog {
  models: WebLlmModel[];
  appConfig: AppConfig;
}

let catalog: Promise<ModelCatalog> | null = null;

/** Loads web-llm's chunk (once) and reads its model list. */
export function loadModelCatalog(): Promise<ModelCatalog> {
  catalog ??= import('@mlc-ai/web-llm').then(
    (webllm) => ({
      models: catalogFrom(webllm.prebuiltAppConfig.model_list, webllm.functionCallingModelIds),
      appConfig: knackAppConfig(webllm.prebuiltAppConfig),
    }),
    (error: unknown) => {
      catalog = null; // a failed chunk load (offline, not precached) may succeed later
      throw error;
    },
  );
  return catalog;
}
