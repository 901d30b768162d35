/**
 * Known OpenAI-compatible servers (docs/providers.md): where they listen by default and what to
 * change when the browser blocks them. The CORS advice is per server because each has its
 * own switch (docs/providers.md); `origin` is the page's origin, which is exactly the
 * value those switches want.
 */
export type PresetId = 'ollama' | 'lm-studio' | 'llama-cpp' | 'openai' | 'openrouter' | 'custom';

export interface ProviderPreset {
  id: PresetId;
  label: string;
  /** Default base URL; empty for custom. */
  baseUrl: string;
  /** Runs on the user's machine (so "is it running?" is a fair question). */
  local: boolean;
  /** What to do so the server accepts requests from `origin`. */
  corsFix(origin: string): string;
  /** How to start it, for "could not reach" messages; empty for hosted services. */
  startHint: string;
}

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    id: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://localhost:11434/v1',
    local: true,
    corsFix: (origin) =>
      `Ollama accepts only localhost pages by default. Set OLLAMA_ORIGINS=${origin} in Ollama's environment ` +
      `(for example \`OLLAMA_ORIGINS=${origin} ollama serve\`; for the background service, ` +
      '`systemctl edit ollama` on Linux, `launchctl setenv OLLAMA_ORIGINS …` on macOS, or a user environment variable on Windows), ' +
      'then restart Ollama.',
    startHint: 'Start Ollama (`ollama serve` or the Ollama app).',
  },
  {
    id: 'lm-studio',
    label: 'LM Studio',
    baseUrl: 'http://localhost:1234/v1',
    local: true,
    corsFix: () =>
      'LM Studio blocks browser pages until CORS is on: in the Developer tab open Server Settings and turn on ' +
      '"Enable CORS", or start the server with `lms server start --cors`.',
    startHint: 'Start the LM Studio server (Developer tab → Start Server, or `lms server start --cors`).',
  },
  {
    id: 'llama-cpp',
    label: 'llama.cpp server',
    baseUrl: 'http://localhost:8080/v1',
    local: true,
    corsFix: (origin) =>
      'llama-server allows every origin unless told otherwise. If you started it with --cors-origins, ' +
      `add this page: \`llama-server … --cors-origins ${origin}\` (or leave the flag out), then restart it.`,
    startHint: 'Start it with `llama-server -m <model.gguf> --port 8080 --jinja`.',
  },
  {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    local: false,
    corsFix: () =>
      'OpenAI accepts browser requests, so this is most likely the network: check your connection, and any ' +
      'proxy, firewall or content blocker that may stop requests to api.openai.com.',
    startHint: '',
  },
  {
    id: 'openrouter',
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    local: false,
    corsFix: () =>
      'OpenRouter accepts browser requests, so this is most likely the network: check your connection, and any ' +
      'proxy, firewall or content blocker that may stop requests to openrouter.ai.',
    startHint: '',
  },
  {
    id: 'custom',
    label: 'Custom',
    baseUrl: '',
    local: false,
    corsFix: (origin) =>
      `The server must allow requests from ${origin}: its responses need the header ` +
      `\`Access-Control-Allow-Origin: ${origin}\` (or \`*\`), and it must answer OPTIONS preflight requests. ` +
      'Look for a CORS or "allowed origins" setting in the server.',
    startHint: 'Check that the server is running and listening at that address.',
  },
];

export const CUSTOM_PRESET_ID = 'custom' satisfies PresetId;

function normalizeBaseUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

export function presetById(id: string | undefined): ProviderPreset | undefined {
  return PROVIDER_PRESETS.find((preset) => preset.id === id);
}

/**
 * The preset a base URL belongs to. An exact default URL matches first; otherwise the
 * host and port decide (Ollama on another machine is still Ollama), then custom.
 */
export function presetForBaseUrl(baseUrl: string): ProviderPreset {
  const wanted = normalizeBaseUrl(baseUrl);
  const exact = PROVIDER_PRESETS.find((preset) => preset.baseUrl !== '' && preset.baseUrl === wanted);
  if (exact) return exact;
  let url: URL | undefined;
  try {
    url = new URL(wanted);
  } catch {
    url = undefined;
  }
  if (url) {
    if (url.hostname === 'api.openai.com') return presetById('openai')!;
    if (url.hostname === 'openrouter.ai') return presetById('openrouter')!;
    const byPort: Record<string, PresetId> = { '11434': 'ollama', '1234': 'lm-studio' };
    const id = byPort[url.port];
    if (id) return presetById(id)!;
  }
  return presetById(CUSTOM_PRESET_ID)!;
}
