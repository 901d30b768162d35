/**
 * The forged-tool sandbox worker (docs/forged-tools.md, "The sandbox"): QuickJS in WebAssembly,
 * one call per message, JSON in and JSON out (src/tools/forgedSandbox.ts does the work).
 *
 * It never fetches: the page compiles QuickJS's .wasm and sends the module in the first message,
 * and its content security policy (set on this script's response, vite.config.ts and
 * public/network-sw.js) has `connect-src 'none'` as a second wall behind QuickJS, which has no
 * network API at all. The client (src/tools/forgedSandboxClient.ts) terminates it when a call
 * outlives its watchdog.
 */
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync';
import { answerSandboxRequest } from '../src/tools/forgedSandbox';
import { countWorkerRequests, type CountableScope } from '../src/providers/requestCounter';
import type { SandboxWorkerInit, SandboxWorkerReply, SandboxWorkerRequest } from '../src/tools/forgedSandboxClient';

const scope = self as unknown as DedicatedWorkerGlobalScope;
// It should make none; if it ever does, the Privacy panel shows it (docs/security.md).
countWorkerRequests(self as unknown as CountableScope, 'tool-worker');

let engine: Promise<QuickJSWASMModule> | null = null;

const reply = (message: SandboxWorkerReply) => scope.postMessage(message);

scope.onmessage = (event: MessageEvent<SandboxWorkerInit | SandboxWorkerRequest>) => {
  const data = event.data;
  if (data.kind === 'init') {
    engine = newQuickJSWASMModuleFromVariant(newVariant(releaseSyncVariant, { wasmModule: data.wasmModule }));
    engine.then(
      () => reply({ ready: true }),
      (error: unknown) => reply({ ready: false, error: error instanceof Error ? error.message : String(error) }),
    );
    return;
  }
  const { id } = data;
  if (!engine) return reply({ id, result: { ok: false, failure: 'crashed', error: 'the sandbox was not initialised', ms: 0 } });
  void engine.then((module) => reply({ id, result: answerSandboxRequest(module, data) }));
};
