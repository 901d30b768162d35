/**
 * Entry of the in-page provider test bundle. tests/browser/provider.spec.ts bundles this
 * file with Vite (IIFE, like bench/run.mjs does for the benches) and evaluates it in the
 * app's page, so the real src/providers code runs in Chromium under the page's origin,
 * where CORS applies. It publishes `globalThis.knackProviderHarness`; the app gains nothing.
 */
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from '../../src/providers/openaiCompatible';
import { ProviderError, type ChatProvider, type StreamPart, type ToolSpec } from '../../src/providers/provider';
import { withTextToolProtocol } from '../../src/providers/textToolProtocol';

export interface HarnessRun {
  provider: OpenAICompatibleOptions;
  /** Wrap the provider in the text tool protocol. */
  textTools?: boolean;
  tools?: ToolSpec[];
  prompt?: string;
  /** Press Stop (abort the signal) once this many parts have arrived. */
  abortAfterParts?: number;
}

export interface HarnessResult {
  parts: StreamPart[];
  error?: { name: string; kind?: string; message: string; hint?: string };
}

async function run(options: HarnessRun): Promise<HarnessResult> {
  const base = new OpenAICompatibleProvider(options.provider);
  const provider: ChatProvider = options.textTools ? withTextToolProtocol(base) : base;
  const controller = new AbortController();
  const parts: StreamPart[] = [];
  try {
    const stream = provider.stream({
      messages: [{ role: 'user', content: options.prompt ?? 'hi' }],
      tools: options.tools,
      signal: controller.signal,
    });
    for await (const part of stream) {
      parts.push(part);
      if (options.abortAfterParts !== undefined && parts.length === options.abortAfterParts) controller.abort();
    }
    return { parts };
  } catch (error) {
    if (error instanceof ProviderError) return { parts, error: { name: error.name, kind: error.kind, message: error.message, hint: error.hint } };
    return { parts, error: { name: error instanceof Error ? error.name : 'unknown', message: String(error) } };
  }
}

async function listModels(options: OpenAICompatibleOptions): Promise<string[]> {
  return (await new OpenAICompatibleProvider(options).listModels()).map((model) => model.id);
}

(globalThis as unknown as { knackProviderHarness: unknown }).knackProviderHarness = { run, listModels };
