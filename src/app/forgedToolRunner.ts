/**
 * The context's one forged-tool sandbox (docs/forged-tools.md, "The sandbox"): a SandboxClient
 * over browser workers running workers/forgedTool.worker.ts. Nothing here loads until a tool is
 * compiled or run: the worker and QuickJS's .wasm stay out of the initial JavaScript (SPEC §17).
 *
 * The .wasm is compiled here, once per context, and handed to each worker, so the worker itself
 * needs no network access at all and a replaced worker starts without fetching it again.
 */
import wasmUrl from '@jitl/quickjs-wasmfile-release-sync/wasm?url';
import { workerName } from '../providers/requestCounter';
import { SandboxClient, type SandboxPort, type SandboxWorkerInit, type SandboxWorkerReply } from '../tools/forgedSandboxClient';

let compiled: Promise<WebAssembly.Module> | null = null;

function quickjsModule(): Promise<WebAssembly.Module> {
  compiled ??= fetch(wasmUrl)
    .then((response) => {
      if (!response.ok) throw new Error(`the sandbox engine could not be loaded (HTTP ${response.status})`);
      return WebAssembly.compileStreaming(response);
    })
    .catch((error: unknown) => {
      compiled = null; // a later call may retry (offline, then back)
      throw error;
    });
  return compiled;
}

/**
 * A dedicated worker running the sandbox, given the compiled engine first. The worker starts
 * loading its scripts while the engine compiles, so a cold start pays the longer of the two,
 * not their sum.
 */
export function spawnBrowserSandbox(): SandboxPort {
  const worker = new Worker(new URL('../../workers/forgedTool.worker.ts', import.meta.url), { type: 'module', name: workerName('knack-forged-tool') });
  let failed: ((reason: string) => void) | null = null;
  let early: string | null = null;
  quickjsModule().then(
    (wasmModule) => {
      const init: SandboxWorkerInit = { kind: 'init', wasmModule };
      worker.postMessage(init);
    },
    (error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      if (failed) failed(reason);
      else early = reason;
    },
  );
  return {
    post: (request) => worker.postMessage(request),
    listen(onReply, onError) {
      worker.onmessage = (event: MessageEvent<SandboxWorkerReply>) => onReply(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        onError(event.message || 'worker error');
      };
      worker.onmessageerror = () => onError('a message could not be read');
      failed = onError;
      if (early !== null) onError(early);
    },
    terminate: () => worker.terminate(),
  };
}

let client: SandboxClient | null = null;

/** The context's sandbox, created on first use. */
export function forgedToolSandbox(): SandboxClient {
  client ??= new SandboxClient(spawnBrowserSandbox);
  return client;
}

/**
 * skill_manage's syntax check of tools/<tool>.js (gate/toolFileRules.ts). Where there are no
 * workers (unit tests in Node) the check is skipped: the gate's run reports the same error.
 */
export async function compileToolCode(code: string, label: string): Promise<string | null> {
  if (typeof Worker === 'undefined') return null;
  return forgedToolSandbox().compile(code, label);
}
