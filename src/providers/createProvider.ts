import type { ChatProvider } from './provider';
import { OpenAICompatibleProvider } from './openaiCompatible';
import { withTextToolProtocol } from './textToolProtocol';
import type { EngineAccess, LoadProgress } from './webllm/engine';

/**
 * Settings → a ChatProvider, the one place that knows which providers exist. The agent loops
 * get the result and never ask what is behind it. Works on the UI thread and in workers: the
 * in-browser engine is reached through `engineAccess` (the tab's engine host, or a remote
 * port in a worker).
 */
export type ToolProtocol = 'auto' | 'native' | 'text';

export interface ProviderSettings {
  kind: 'openai-compatible' | 'webgpu';
  baseUrl: string;
  apiKey: string;
  model: string;
  /** auto = native tool calls where the provider supports them, else the text protocol (docs/providers.md). */
  toolProtocol: ToolProtocol;
}

export interface ProviderDeps {
  /** The in-browser engine; loaded lazily, only when that provider is chosen. */
  engineAccess?: () => EngineAccess | Promise<EngineAccess>;
  onLoadProgress?: (progress: LoadProgress) => void;
  /** e.g. the network-request counter's fetch. */
  fetch?: typeof fetch;
}

export async function createProvider(settings: ProviderSettings, deps: ProviderDeps = {}): Promise<ChatProvider> {
  let provider: ChatProvider;
  if (settings.kind === 'webgpu') {
    if (!deps.engineAccess) throw new Error('The in-browser engine is not available in this context.');
    const { createWebLlmProvider } = await import('./webllm/webllmProvider');
    provider = await createWebLlmProvider(settings.model, await deps.engineAccess(), deps.onLoadProgress);
  } else {
    provider = new OpenAICompatibleProvider({
      baseUrl: settings.baseUrl,
      model: settings.model,
      apiKey: settings.apiKey || undefined,
      nativeTools: settings.toolProtocol !== 'text',
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
    });
  }
  const useText = settings.toolProtocol === 'text' || (settings.toolProtocol === 'auto' && !provider.nativeTools);
  return useText ? withTextToolProtocol(provider) : provider;
}
