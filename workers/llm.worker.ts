/**
 * The web-llm engine worker (docs/providers.md): one `MLCEngine` behind web-llm's own worker
 * protocol. Its only client is the UI thread's engine host (src/providers/webllm/engineHost.ts),
 * which shares it with every other caller; see that module for why.
 *
 * WebGPU is exposed in dedicated workers, so the GPU work, weight loading and tokenizing all
 * stay off the UI thread.
 */
import { WebWorkerMLCEngineHandler } from '@mlc-ai/web-llm';
import { countWorkerRequests, type CountableScope } from '../src/providers/requestCounter';

// Model downloads (config, model library, weight shards) show in the Privacy panel (docs/security.md).
countWorkerRequests(self as unknown as CountableScope, 'llm-worker');

const handler = new WebWorkerMLCEngineHandler();

self.onmessage = (event: MessageEvent) => {
  handler.onmessage(event);
};
