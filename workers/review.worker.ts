/**
 * The review worker (docs/architecture.md): background reviews and curator runs, off the UI thread.
 * Exposed with comlink; its contract is ReviewWorkerApi (src/review/reviewWorkerApi.ts). It
 * opens the same OPFS/IndexedDB storage as the tab (the tab already ran recovery), builds the
 * same app services (`context: 'worker'`: its own catalogue and memory store, the same
 * settings records) and reaches the model through the same provider layer: direct HTTP, or
 * the tab's one web-llm engine over a MessagePort (`connectEngine`), so a model is never
 * loaded twice.
 */
import * as Comlink from 'comlink';
import { countWorkerRequests, type CountableScope } from '../src/providers/requestCounter';
import { openStorage } from '../src/app/openStorage';
import { createAppServices, type AppServices } from '../src/app/appServices';
import { createReviewWorkerHandler } from '../src/app/reviewWorkerHandler';
import type { ReviewWorkerApi } from '../src/review/reviewWorkerApi';

// Every request of a background review or gate run shows in the Privacy panel (docs/security.md).
countWorkerRequests(self as unknown as CountableScope, 'review-worker');

let services: Promise<AppServices> | null = null;

function ready(): Promise<AppServices> {
  services ??= openStorage({ recover: false }).then((storage) => createAppServices(storage, { context: 'worker' }));
  return services;
}

const api = createReviewWorkerHandler(ready) satisfies ReviewWorkerApi;

Comlink.expose(api);
