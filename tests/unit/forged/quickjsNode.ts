import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync';

/** QuickJS in Node with the .wasm read from disk (the browser build the test resolves to would fetch it). */
export function loadQuickjsInNode(): Promise<QuickJSWASMModule> {
  const path = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const bytes = readFileSync(path);
  const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return newQuickJSWASMModuleFromVariant(newVariant(releaseSyncVariant, { wasmBinary }));
}
