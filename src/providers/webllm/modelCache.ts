/**
 * Models already downloaded by web-llm: which, how big, and deleting them.
 *
 * Presence comes from web-llm's own `hasModelInCache` (it knows which files make a model);
 * size is summed from the Cache API entries under the model's URL, because web-llm has no
 * size query. Weights live in web-llm's caches, never in our precache (docs/security.md).
 */
import type { AppConfig } from '@mlc-ai/web-llm';
import { loadModelCatalog, type WebLlmModel } from './models';

export interface CachedModel {
  id: string;
  label: string;
  /** Bytes stored for the model's weights and config, when the cache tells. */
  bytes?: number;
}

const MODEL_CACHE_SCOPES = ['webllm/model', 'webllm/config'];

/** Sums Content-Length (or blob size) of every cached response whose URL starts with `prefix`. */
export async function cachedBytesUnder(prefix: string, cacheStorage: CacheStorage = caches): Promise<number | undefined> {
  let total = 0;
  let found = false;
  for (const scope of MODEL_CACHE_SCOPES) {
    if (!(await cacheStorage.has(scope))) continue;
    const cache = await cacheStorage.open(scope);
    for (const request of await cache.keys()) {
      if (!request.url.startsWith(prefix)) continue;
      const response = await cache.match(request);
      if (!response) continue;
      found = true;
      const length = Number(response.headers.get('content-length'));
      total += Number.isFinite(length) && length > 0 ? length : (await response.blob()).size;
    }
  }
  return found ? total : undefined;
}

function modelUrlPrefix(appConfig: AppConfig, modelId: string): string | undefined {
  const record = appConfig.model_list.find((candidate) => candidate.model_id === modelId);
  return record ? record.model.replace(/\/+$/, '') + '/' : undefined;
}

export async function listCachedModels(): Promise<CachedModel[]> {
  const [webllm, catalog] = await Promise.all([import('@mlc-ai/web-llm'), loadModelCatalog()]);
  const present: WebLlmModel[] = [];
  // Sequential on purpose: each check opens caches; 150 parallel opens gain nothing.
  for (const model of catalog.models) {
    if (await webllm.hasModelInCache(model.id, catalog.appConfig)) present.push(model);
  }
  return Promise.all(
    present.map(async (model) => {
      const prefix = modelUrlPrefix(catalog.appConfig, model.id);
      return { id: model.id, label: model.label, bytes: prefix ? await cachedBytesUnder(prefix) : undefined };
    }),
  );
}

/** Deletes weights, config and wasm of one model from web-llm's caches. */
export async function deleteCachedModel(modelId: string): Promise<void> {
  const [webllm, catalog] = await Promise.all([import('@mlc-ai/web-llm'), loadModelCatalog()]);
  await webllm.deleteModelAllInfoInCache(modelId, catalog.appConfig);
}
