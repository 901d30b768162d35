/**
 * Per-chat provider and model: the header's groups, what a new chat and an old session use,
 * choices whose provider or model is gone, and that a request for one saved provider never
 * carries another's key (through the real provider factory, with a recording fetch).
 */
import { describe, expect, it } from 'vitest';
import { normalizeSettings, type KnackSettings } from '../../src/app/appSettings';
import {
  chatModelGroups,
  choiceFromValue,
  choiceLabel,
  choiceValue,
  defaultChatModel,
  newChatModel,
  resolveChatModel,
  sessionChatModel,
} from '../../src/app/chatModels';
import { fetchModelList, withModels } from '../../src/app/providerModels';
import { createProvider } from '../../src/providers/createProvider';

const settings = (change: Record<string, unknown> = {}): KnackSettings =>
  normalizeSettings({
    providers: [
      { id: 'a', label: 'Server A', kind: 'openai-compatible', baseUrl: 'http://a.test/v1', apiKey: 'key-A', model: 'alpha', models: ['alpha', 'alpha-mini'] },
      { id: 'b', label: 'Server B', kind: 'openai-compatible', baseUrl: 'http://b.test/v1', apiKey: 'key-B', model: 'beta', models: [] },
      { id: 'c', label: 'No key', kind: 'openai-compatible', baseUrl: 'http://c.test/v1', apiKey: '', model: 'gamma', models: [] },
    ],
    defaultProviderId: 'a',
    toolProtocols: { beta: 'text' },
    ...change,
  });

interface Seen {
  url: string;
  authorization: string | null;
  model?: string;
}

/** A fetch that records each request and answers one short streamed reply (or a model list). */
function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { model?: string }) : {};
    seen.push({ url, authorization: headers.get('authorization'), ...(body.model ? { model: body.model } : {}) });
    if (url.endsWith('/models')) return new Response(JSON.stringify({ data: [{ id: 'z-model' }, { id: 'alpha' }, { id: 'alpha' }] }), { headers: { 'content-type': 'application/json' } });
    const sse = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
    return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
  };
}

async function sendOnce(choice: { providerId: string; model: string }, seen: Seen[]): Promise<void> {
  const resolved = resolveChatModel(settings(), choice);
  if (!resolved.ok) throw new Error(resolved.message);
  const provider = await createProvider(resolved.provider, { fetch: recordingFetch(seen) });
  for await (const part of provider.stream({ messages: [{ role: 'user', content: 'hi' }] })) void part;
}

describe('chat models', () => {
  it('groups every provider with its configured model first and its listed models', () => {
    expect(chatModelGroups(settings())).toEqual([
      { providerId: 'a', label: 'Server A', models: ['alpha', 'alpha-mini'] },
      { providerId: 'b', label: 'Server B', models: ['beta'] },
      { providerId: 'c', label: 'No key', models: ['gamma'] },
    ]);
    expect(chatModelGroups(settings(), { b: ['beta', 'downloaded'] })[1]!.models).toEqual(['beta', 'downloaded']);
  });

  it('a new chat takes the last used model while it exists, else the default provider model', () => {
    expect(newChatModel(settings())).toEqual({ providerId: 'a', model: 'alpha' });
    expect(newChatModel(settings({ lastChatModel: { providerId: 'b', model: 'beta' } }))).toEqual({ providerId: 'b', model: 'beta' });
    expect(newChatModel(settings({ lastChatModel: { providerId: 'gone', model: 'beta' } }))).toEqual({ providerId: 'a', model: 'alpha' });
    expect(defaultChatModel(normalizeSettings({}))).toBeNull();
  });

  it('a session stored before chats had a model uses the default; one with its own keeps it', () => {
    expect(sessionChatModel({}, settings())).toEqual({ providerId: 'a', model: 'alpha' });
    expect(sessionChatModel({ chatModel: { providerId: 'b', model: 'beta' } }, settings())).toEqual({ providerId: 'b', model: 'beta' });
    expect(sessionChatModel({ chatModel: { providerId: 7 } }, settings())).toEqual({ providerId: 'a', model: 'alpha' });
  });

  it('resolves a choice to that provider, with its tool protocol and label', () => {
    const resolved = resolveChatModel(settings(), { providerId: 'b', model: 'beta' });
    expect(resolved).toMatchObject({ ok: true, label: 'Server B · beta', provider: { kind: 'openai-compatible', baseUrl: 'http://b.test/v1', apiKey: 'key-B', model: 'beta', toolProtocol: 'text' } });
    expect(choiceLabel(settings(), { providerId: 'a', model: 'alpha-mini' })).toBe('Server A · alpha-mini');
  });

  it('says when the provider or the model is gone, and never picks another', () => {
    const noProvider = resolveChatModel(settings(), { providerId: 'deleted', model: 'old' });
    expect(noProvider).toMatchObject({ ok: false, reason: 'provider-gone', choice: { providerId: 'deleted', model: 'old' } });
    expect(noProvider.ok ? '' : noProvider.message).toMatch(/This chat's model old is no longer available.*choose another/);
    expect(resolveChatModel(settings(), { providerId: 'a', model: 'removed-model' })).toMatchObject({ ok: false, reason: 'model-gone' });
    expect(resolveChatModel(settings(), null)).toMatchObject({ ok: false, reason: 'no-model' });
  });

  it('round-trips a choice through the option value, whatever the model id holds', () => {
    const choice = { providerId: 'a', model: 'org/model:7b "q4"\nx' };
    expect(choiceFromValue(choiceValue(choice))).toEqual({ providerId: 'a', model: choice.model.trim() });
    expect(choiceFromValue('garbage')).toBeNull();
  });
});

describe('chat models: a key goes only to its own server', () => {
  it('a request for provider B carries B key, never A key, and reaches B with B model', async () => {
    const seen: Seen[] = [];
    await sendOnce({ providerId: 'b', model: 'beta' }, seen);
    await sendOnce({ providerId: 'a', model: 'alpha-mini' }, seen);
    await sendOnce({ providerId: 'c', model: 'gamma' }, seen);
    expect(seen).toEqual([
      { url: 'http://b.test/v1/chat/completions', authorization: 'Bearer key-B', model: 'beta' },
      { url: 'http://a.test/v1/chat/completions', authorization: 'Bearer key-A', model: 'alpha-mini' },
      { url: 'http://c.test/v1/chat/completions', authorization: null, model: 'gamma' },
    ]);
  });

  it('the model list is fetched with the provider own key and cached sorted, without repeats', async () => {
    const seen: Seen[] = [];
    const s = settings();
    const models = await fetchModelList(s.providers[1]!, { fetch: recordingFetch(seen) });
    expect(seen).toEqual([{ url: 'http://b.test/v1/models', authorization: 'Bearer key-B' }]);
    expect(models).toEqual(['alpha', 'z-model']);
    const cached = withModels(s.providers, 'b', models);
    expect(cached[1]!.models).toEqual(['alpha', 'z-model']);
    expect(withModels(cached, 'b', models)).toBe(cached);
  });
});
