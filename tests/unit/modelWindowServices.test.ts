import { afterEach, describe, expect, it } from 'vitest';
import type { AppServices } from '../../src/app/appServices';
import { changedProviders, providerSaved, webllmChatOptions, windowProviderFor } from '../../src/app/modelWindowServices';
import type { SavedProvider } from '../../src/app/savedProviders';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { memoryAppServices } from './helpers/memoryAppServices';

const opened: AppServices[] = [];
let server: ScriptedServer | undefined;
afterEach(async () => {
  for (const app of opened.splice(0)) app.changes.close();
  await server?.close();
  server = undefined;
});

async function services(context: 'tab' | 'worker') {
  const built = await memoryAppServices(context);
  opened.push(built.app);
  return built.app;
}

const http = (id: string, baseUrl: string, model: string, apiKey = ''): SavedProvider => ({ id, label: id, kind: 'openai-compatible', baseUrl, apiKey, model, models: [] });

describe('the window book in the app services', () => {
  it('is one book per context, reached as modelWindows()', async () => {
    const app = await services('worker');
    expect(await app.modelWindows()).toBe(await app.modelWindows());
  });

  it('a provider saved with a new server is asked for the window at once, and what refusals taught is forgotten', async () => {
    server = await startScriptedServer({ context: { nCtx: 3072, mode: 'llamacpp' } });
    const app = await services('tab');
    const windows = await app.modelWindows();
    const before = app.settings.get('app').providers;
    const after = [http('local', server.baseUrl, 'scripted-model')];
    await windows.learn({ providerId: 'local', model: 'scripted-model' }, 1024, 'an older server');
    await app.settings.update('app', { providers: after, defaultProviderId: 'local' });
    await providerSaved(windows, before, after);
    expect(server.requests.some((request) => request.path === '/props')).toBe(true);
    expect((await windows.lookup({ providerId: 'local', model: 'scripted-model' })).window).toEqual({ tokens: 3072, source: 'reported', detail: 'llama.cpp' });
  });

  it('settings changed another way (a restore, another tab) ask nothing', async () => {
    server = await startScriptedServer({ context: { nCtx: 3072, mode: 'llamacpp' } });
    const app = await services('tab');
    const windows = await app.modelWindows();
    await app.settings.update('app', { providers: [http('local', server.baseUrl, 'scripted-model')], defaultProviderId: 'local' });
    await providerSaved(windows, [http('local', server.baseUrl, 'scripted-model')], [http('local', server.baseUrl, 'scripted-model')]);
    expect(server.requests).toEqual([]);
    expect((await windows.record({ providerId: 'local', model: 'scripted-model' })).discoveredAt).toBe(0);
  });

  it('the review worker reads what the tab learned (one record per model in the shared settings store)', async () => {
    const app = await services('worker');
    await app.settings.update('app', { providers: [http('local', 'http://127.0.0.1:9/v1', 'm')], defaultProviderId: 'local' });
    const windows = await app.modelWindows();
    await windows.learn({ providerId: 'local', model: 'm' }, 2048, "the server's refusal");
    expect((await windows.lookup({ providerId: 'local', model: 'm' })).window).toMatchObject({ tokens: 2048, source: 'learned' });
  });
});

describe('helpers', () => {
  it('windowProviderFor: a saved provider by id, or a base URL used as the id with its saved key', async () => {
    const app = await services('worker');
    await app.settings.update('app', {
      providers: [http('srv', 'http://10.0.0.2:8000/v1', 'qwen', 'sk-1'), { ...http('gpu', '', 'Qwen3-0.6B-q4f16_1-MLC'), kind: 'webgpu' }],
      defaultProviderId: 'srv',
    });
    expect(windowProviderFor(app.settings, { providerId: 'srv', model: 'other' })).toEqual({ kind: 'openai-compatible', baseUrl: 'http://10.0.0.2:8000/v1', apiKey: 'sk-1', model: 'other' });
    expect(windowProviderFor(app.settings, { providerId: 'gpu', model: 'x' })).toEqual({ kind: 'webgpu', model: 'x' });
    expect(windowProviderFor(app.settings, { providerId: 'http://10.0.0.2:8000/v1', model: 'qwen' })).toMatchObject({ baseUrl: 'http://10.0.0.2:8000/v1', apiKey: 'sk-1' });
    expect(windowProviderFor(app.settings, { providerId: 'gone', model: 'x' })).toBeUndefined();
  });

  it('changedProviders: new ones and those whose server, kind or model changed', () => {
    const before = [http('a', 'http://a/v1', 'm'), http('b', 'http://b/v1', 'm')];
    const after = [http('a', 'http://a/v1', 'm'), http('b', 'http://b2/v1', 'm'), http('c', 'http://c/v1', 'n'), http('d', 'http://d/v1', '')];
    expect(changedProviders(before, after).map((entry) => entry.id)).toEqual(['b', 'c']);
  });

  it("webllmChatOptions: the user's window for the model as context_window_size", async () => {
    const app = await services('worker');
    await app.settings.update('app', { providers: [{ ...http('gpu', '', 'Qwen3-0.6B-q4f16_1-MLC'), kind: 'webgpu' }], defaultProviderId: 'gpu' });
    const windows = await app.modelWindows();
    expect(await webllmChatOptions(windows, app.settings, 'Qwen3-0.6B-q4f16_1-MLC')).toBeUndefined();
    await windows.set({ providerId: 'gpu', model: 'Qwen3-0.6B-q4f16_1-MLC' }, 8192);
    expect(await webllmChatOptions(windows, app.settings, 'Qwen3-0.6B-q4f16_1-MLC')).toEqual({ context_window_size: 8192 });
  });
});
