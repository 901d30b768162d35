import { describe, expect, it } from 'vitest';
import { defaultWindow, discoverWindow, isLocalHost, ollamaNumCtx, serverRoot } from '../../src/providers/windowDiscovery';
import { startScriptedServer } from '../fixtures/scriptedServer';

type Route = { status?: number; body?: unknown; throws?: boolean };

/** A fetch that answers from a table of "METHOD url" routes and logs what was asked. */
function fakeFetch(routes: Record<string, Route>) {
  const asked: Array<{ method: string; url: string; body?: string; auth?: string }> = [];
  const fetchImpl = (async (input: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const headers = (init.headers ?? {}) as Record<string, string>;
    asked.push({ method, url: input, body: init.body as string | undefined, auth: headers.Authorization });
    const route = routes[`${method} ${input}`];
    if (!route) return new Response('not found', { status: 404 });
    if (route.throws) throw new TypeError('Failed to fetch');
    return new Response(JSON.stringify(route.body), { status: route.status ?? 200 });
  }) as unknown as typeof fetch;
  return { fetchImpl, asked };
}

describe('discoverWindow', () => {
  it('llama.cpp: reads n_ctx from /props at the server root', async () => {
    const { fetchImpl, asked } = fakeFetch({ 'GET http://localhost:8080/props': { body: { default_generation_settings: { n_ctx: 8192 }, total_slots: 1 } } });
    const window = await discoverWindow({ baseUrl: 'http://localhost:8080/v1', model: 'qwen' }, { fetch: fetchImpl });
    expect(window).toEqual({ tokens: 8192, source: 'reported', detail: 'llama.cpp' });
    expect(asked[0].url).toBe('http://localhost:8080/props');
  });

  it('LM Studio: the loaded context length, else the maximum capped at its default load', async () => {
    const models = {
      data: [
        { id: 'qwen3-4b', state: 'loaded', loaded_context_length: 16384, max_context_length: 32768 },
        { id: 'gemma-3', state: 'not-loaded', max_context_length: 131072 },
      ],
    };
    const { fetchImpl } = fakeFetch({ 'GET http://localhost:1234/api/v0/models': { body: models } });
    expect(await discoverWindow({ baseUrl: 'http://localhost:1234/v1', model: 'qwen3-4b' }, { fetch: fetchImpl })).toMatchObject({ tokens: 16384, source: 'reported' });
    const notLoaded = await discoverWindow({ baseUrl: 'http://localhost:1234/v1', model: 'gemma-3' }, { fetch: fetchImpl });
    expect(notLoaded.tokens).toBe(4096);
    expect(notLoaded.detail).toMatch(/131,072/);
  });

  it("Ollama: the loaded model's context_length from /api/ps first", async () => {
    const { fetchImpl, asked } = fakeFetch({
      'GET http://localhost:11434/api/ps': { body: { models: [{ name: 'qwen3:8b', model: 'qwen3:8b', context_length: 32768 }] } },
      'POST http://localhost:11434/api/show': { body: { parameters: 'num_ctx 2048' } },
    });
    expect(await discoverWindow({ baseUrl: 'http://localhost:11434/v1', model: 'qwen3:8b' }, { fetch: fetchImpl })).toMatchObject({ tokens: 32768, source: 'reported' });
    expect(asked.map((request) => request.url)).toEqual(['http://localhost:11434/api/ps']);
  });

  it("Ollama: num_ctx from /api/show's parameters when the model is not loaded", async () => {
    const { fetchImpl, asked } = fakeFetch({
      'GET http://localhost:11434/api/ps': { body: { models: [] } },
      'POST http://localhost:11434/api/show': { body: { parameters: 'stop "<|im_end|>"\nnum_ctx                        8192', model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 } } },
    });
    const window = await discoverWindow({ baseUrl: 'http://localhost:11434/v1', model: 'qwen3:8b' }, { fetch: fetchImpl });
    expect(window).toMatchObject({ tokens: 8192, source: 'reported' });
    expect(JSON.parse(asked[1].body!)).toEqual({ model: 'qwen3:8b' });
  });

  it("Ollama: without num_ctx, Ollama's default 4,096 (never more than the trained length), saying what the model could take", async () => {
    const show = (trained: number) => fakeFetch({ 'POST http://localhost:11434/api/show': { body: { parameters: 'stop "x"', model_info: { 'general.architecture': 'llama', 'llama.context_length': trained } } } });
    const large = await discoverWindow({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.2' }, { fetch: show(131072).fetchImpl });
    expect(large.tokens).toBe(4096);
    expect(large.detail).toMatch(/131,072/);
    const small = await discoverWindow({ baseUrl: 'http://localhost:11434/v1', model: 'tiny' }, { fetch: show(2048).fetchImpl });
    expect(small.tokens).toBe(2048);
  });

  it("OpenRouter's and vLLM's model lists, with the key sent to the server's own list", async () => {
    const openrouter = fakeFetch({
      'GET https://openrouter.ai/api/v1/models': { body: { data: [{ id: 'qwen/qwen3-8b', context_length: 40960, top_provider: { context_length: 32768 } }] } },
    });
    expect(await discoverWindow({ baseUrl: 'https://openrouter.ai/api/v1', model: 'qwen/qwen3-8b', apiKey: 'sk-or' }, { fetch: openrouter.fetchImpl })).toMatchObject({
      tokens: 32768,
      source: 'reported',
    });
    expect(openrouter.asked[0].auth).toBe('Bearer sk-or');
    const vllm = fakeFetch({ 'GET http://10.0.0.5:8000/v1/models': { body: { data: [{ id: 'Qwen/Qwen3-8B', max_model_len: 16384 }] } } });
    expect(await discoverWindow({ baseUrl: 'http://10.0.0.5:8000/v1', model: 'Qwen/Qwen3-8B' }, { fetch: vllm.fetchImpl })).toMatchObject({ tokens: 16384, detail: 'vLLM (max_model_len)' });
  });

  it('a custom server is asked every way in turn; failures (CORS, 404, not JSON) are quiet', async () => {
    const { fetchImpl, asked } = fakeFetch({
      'GET http://192.168.1.20:9000/v1/models': { throws: true },
      'GET http://192.168.1.20:9000/props': { body: { n_ctx: 2048 } },
    });
    const window = await discoverWindow({ baseUrl: 'http://192.168.1.20:9000/v1', model: 'm' }, { fetch: fetchImpl });
    expect(window).toMatchObject({ tokens: 2048, source: 'reported' });
    expect(asked.map((request) => request.url)).toEqual(['http://192.168.1.20:9000/v1/models', 'http://192.168.1.20:9000/props']);
  });

  it('nothing answers → 4,096 for a local host, 8,192 for a hosted one (source "default")', async () => {
    const { fetchImpl } = fakeFetch({});
    expect(await discoverWindow({ baseUrl: 'http://127.0.0.1:5000/v1', model: 'm' }, { fetch: fetchImpl })).toMatchObject({ tokens: 4096, source: 'default' });
    expect(await discoverWindow({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' }, { fetch: fetchImpl })).toMatchObject({ tokens: 8192, source: 'default' });
  });

  it('an aborted signal ends with the default', async () => {
    const controller = new AbortController();
    controller.abort();
    const { fetchImpl, asked } = fakeFetch({ 'GET http://localhost:8080/props': { body: { n_ctx: 8192 } } });
    expect(await discoverWindow({ baseUrl: 'http://localhost:8080/v1', model: 'm' }, { fetch: fetchImpl, signal: controller.signal })).toMatchObject({ source: 'default' });
    expect(asked).toEqual([]);
  });

  it("reads the scripted server's /props in llama.cpp mode and its /api/show in Ollama mode, over real HTTP", async () => {
    const llama = await startScriptedServer({ context: { nCtx: 2048, mode: 'llamacpp' } });
    const ollama = await startScriptedServer({ context: { nCtx: 3072, mode: 'ollama' }, models: ['qwen3:0.6b'] });
    try {
      expect(await discoverWindow({ baseUrl: llama.baseUrl, model: 'scripted-model' })).toMatchObject({ tokens: 2048, source: 'reported', detail: 'llama.cpp' });
      expect(await discoverWindow({ baseUrl: ollama.baseUrl, model: 'qwen3:0.6b', presetId: 'ollama' })).toMatchObject({ tokens: 3072, source: 'reported' });
    } finally {
      await Promise.all([llama.close(), ollama.close()]);
    }
  });
});

describe('helpers', () => {
  it.each([
    ['http://localhost:11434/v1', true],
    ['http://127.0.0.1:8080/v1', true],
    ['http://[::1]:8080/v1', true],
    ['http://gpu-box.local:8080/v1', true],
    ['http://10.1.2.3/v1', true],
    ['http://172.20.0.2/v1', true],
    ['http://192.168.0.9/v1', true],
    ['http://172.32.0.1/v1', false],
    ['https://api.openai.com/v1', false],
    ['not a url', false],
  ])('isLocalHost(%s) → %s', (url, local) => {
    expect(isLocalHost(url)).toBe(local);
  });

  it('serverRoot strips the API path', () => {
    expect(serverRoot('http://localhost:8080/v1/')).toBe('http://localhost:8080');
    expect(serverRoot('https://openrouter.ai/api/v1')).toBe('https://openrouter.ai');
  });

  it('ollamaNumCtx reads the parameters text', () => {
    expect(ollamaNumCtx('num_ctx 8192\nstop "x"')).toBe(8192);
    expect(ollamaNumCtx('stop "x"')).toBeUndefined();
    expect(ollamaNumCtx(undefined)).toBeUndefined();
  });

  it('defaultWindow says why', () => {
    expect(defaultWindow('http://localhost:1/v1').detail).toMatch(/4,096/);
  });
});
