/**
 * UI state of the in-browser provider's settings: WebGPU support, the model picker's list,
 * the engine's load status and the downloaded models. Nothing runs until `start()` (called
 * when the In-browser provider is shown), and web-llm's chunk is fetched only when WebGPU
 * is actually usable.
 */
import { ProviderError } from '../../providers/provider';
import { engineHost, type HostStatus } from '../../providers/webllm/engineHost';
import { deleteCachedModel, listCachedModels, type CachedModel } from '../../providers/webllm/modelCache';
import { annotateForSupport, defaultModelId, loadModelCatalog, type AnnotatedModel } from '../../providers/webllm/models';
import { detectWebGpu, type WebGpuSupport } from '../../providers/webllm/webgpu';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class WebLlmState {
  support = $state<WebGpuSupport | null>(null);
  models = $state<AnnotatedModel[]>([]);
  defaultModel = $state<string | undefined>(undefined);
  catalogError = $state<string | null>(null);
  engine = $state<HostStatus>({ phase: 'idle', progress: 0, text: '' });
  cached = $state<CachedModel[] | null>(null);
  cacheError = $state<string | null>(null);
  /** Model ids being deleted, so their buttons can say so. */
  deleting = $state<string[]>([]);
  #starting: Promise<void> | null = null;

  /** Detects WebGPU and, when usable, loads the model list and the cached models. Idempotent. */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    const support = await detectWebGpu();
    this.support = support;
    if (!support.available) return;
    engineHost().subscribe((status) => {
      const wasLoading = this.engine.phase === 'loading';
      this.engine = status;
      // A finished download is now in the cache.
      if (wasLoading && status.phase === 'ready') void this.refreshCached();
    });
    try {
      const catalog = await loadModelCatalog();
      this.models = annotateForSupport(catalog.models, support);
      this.defaultModel = defaultModelId(this.models, support);
    } catch (error) {
      this.#starting = null; // e.g. offline before the chunk was cached: let a later visit retry
      this.catalogError = `The in-browser engine could not be loaded: ${messageOf(error)}`;
      return;
    }
    await this.refreshCached();
  }

  async refreshCached(): Promise<void> {
    try {
      this.cached = await listCachedModels();
      this.cacheError = null;
    } catch (error) {
      this.cacheError = `Could not read the downloaded models: ${messageOf(error)}`;
    }
  }

  /** Downloads (if needed) and loads the model; failures land in `engine.error`. */
  async load(modelId: string): Promise<void> {
    try {
      await engineHost().load(modelId);
    } catch (error) {
      if (!(error instanceof ProviderError)) {
        this.engine = { phase: 'error', modelId, progress: 0, text: messageOf(error) };
      }
    }
  }

  cancelLoad(): void {
    engineHost().cancelLoad();
  }

  async deleteCached(modelId: string): Promise<void> {
    this.deleting = [...this.deleting, modelId];
    try {
      await deleteCachedModel(modelId);
    } catch (error) {
      this.cacheError = `Could not delete ${modelId}: ${messageOf(error)}`;
    } finally {
      this.deleting = this.deleting.filter((id) => id !== modelId);
    }
    await this.refreshCached();
  }
}

export const webllm = new WebLlmState();
