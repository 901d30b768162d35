/**
 * WebGPU detection, run before anything of web-llm is loaded (docs/providers.md).
 *
 * web-llm fetches the model config and wasm *before* it looks for a GPU, so without this
 * check a browser with no WebGPU (or an offline one) fails with a download error instead
 * of saying what is actually wrong. Uses only `navigator.gpu`, so it works on the UI
 * thread and in workers (`WorkerNavigator.gpu`), and never imports web-llm.
 *
 * TypeScript's DOM lib has no WebGPU types and we add no dependency for them, so the few
 * members we read are described structurally below.
 */

interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

interface GpuAdapterLike {
  features: { has(feature: string): boolean };
  limits: { maxBufferSize?: number; maxStorageBufferBindingSize?: number };
  /** Chrome 114+; older builds only had `requestAdapterInfo()`. */
  info?: GpuAdapterInfoLike;
  /** Deprecated in favour of `info.isFallbackAdapter`, still present in some browsers. */
  isFallbackAdapter?: boolean;
}

interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<GpuAdapterLike | null>;
}

export type WebGpuProblem = 'no-api' | 'no-adapter' | 'error';

export interface WebGpuAdapterSummary {
  vendor: string;
  architecture: string;
  description: string;
  /** A software/compatibility adapter (e.g. SwiftShader): works, but slowly. */
  isFallbackAdapter: boolean;
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
}

export interface WebGpuSupport {
  available: boolean;
  /** Why WebGPU is unusable; absent when it is available. */
  problem?: WebGpuProblem;
  /** Needed by the q4f16/q0f16 models. */
  shaderF16: boolean;
  adapter?: WebGpuAdapterSummary;
  /** One line for the status area, written for the user. */
  message: string;
}

/** web-llm wants 1 GiB buffers for most models and refuses below 128 MiB bindings. */
const COMFORTABLE_BINDING_BYTES = 1024 * 1024 * 1024;

const USE_HTTP_INSTEAD =
  'You can still use Knack with an OpenAI-compatible server such as Ollama or LM Studio running on this computer.';

function describeAdapter(adapter: WebGpuAdapterSummary): string {
  const name = adapter.description || [adapter.vendor, adapter.architecture].filter(Boolean).join(' ') || 'unnamed GPU';
  return adapter.isFallbackAdapter ? `${name} (software fallback, slow)` : name;
}

/** Builds the user-facing summary; exported so unit tests can cover the wording rules. */
export function summarizeSupport(input: Omit<WebGpuSupport, 'message'>): WebGpuSupport {
  if (!input.available) {
    const message =
      input.problem === 'no-api'
        ? `Your browser has no WebGPU, so models can't run inside it. ${USE_HTTP_INSTEAD}`
        : input.problem === 'no-adapter'
          ? `Your browser supports WebGPU but found no usable graphics adapter (it may be disabled or blocklisted). ${USE_HTTP_INSTEAD}`
          : `WebGPU could not be started in this browser. ${USE_HTTP_INSTEAD}`;
    return { ...input, message };
  }
  const adapter = input.adapter;
  const parts = [`WebGPU is available${adapter ? ` on ${describeAdapter(adapter)}` : ''}.`];
  parts.push(input.shaderF16 ? 'Half-precision (shader-f16) models are supported.' : 'No shader-f16: only q4f32 models can run here.');
  if (adapter && adapter.maxStorageBufferBindingSize < COMFORTABLE_BINDING_BYTES) {
    parts.push('The GPU allows only small buffers, so pick a small model.');
  }
  return { ...input, message: parts.join(' ') };
}

function readGpu(nav: unknown): GpuLike | undefined {
  const gpu = (nav as { gpu?: unknown } | undefined)?.gpu;
  return gpu && typeof (gpu as GpuLike).requestAdapter === 'function' ? (gpu as GpuLike) : undefined;
}

/**
 * Asks for the adapter web-llm will ask for (high-performance) and reports what it offers.
 * Never throws: a failure is itself the answer.
 */
export async function detectWebGpu(nav: unknown = globalThis.navigator): Promise<WebGpuSupport> {
  const gpu = readGpu(nav);
  if (!gpu) return summarizeSupport({ available: false, problem: 'no-api', shaderF16: false });
  let adapter: GpuAdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    return summarizeSupport({ available: false, problem: 'error', shaderF16: false });
  }
  if (!adapter) return summarizeSupport({ available: false, problem: 'no-adapter', shaderF16: false });
  const info = adapter.info ?? {};
  return summarizeSupport({
    available: true,
    shaderF16: adapter.features.has('shader-f16'),
    adapter: {
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
      description: info.description ?? '',
      isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
      maxBufferSize: adapter.limits.maxBufferSize ?? 0,
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize ?? 0,
    },
  });
}
