/**
 * The open chat's model as UI state, on the in-memory services: a new chat follows the last
 * used model, a choice is stored with the chat's session and remembered for new chats, an older
 * session without one shows the default, and a removed provider makes the chat wait.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createSettingsService } from '../../../src/app/settings';
import { MemorySessionBackend } from '../../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../../src/sessions/sessionStore';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import { ChatModelState } from '../../../src/ui/state/chatModel.svelte';
import { settings, useSettingsService } from '../../../src/ui/state/settings.svelte';

const PROVIDERS = [
  { id: 'local', label: 'Local', kind: 'openai-compatible', baseUrl: 'http://localhost:8080/v1', apiKey: '', model: 'small', models: ['small', 'medium'] },
  { id: 'hosted', label: 'Hosted', kind: 'openai-compatible', baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'big', models: [] },
] as const;

// Fresh sessions, settings and state for every test: none depends on another's leftovers.
let sessions: SessionStore;
let chatModel: ChatModelState;
const store = async () => sessions;

beforeEach(async () => {
  sessions = new SessionStore(new MemorySessionBackend());
  chatModel = new ChatModelState(store);
  const service = createSettingsService(new MemoryRecordStore<unknown>(), null);
  await service.update('app', { providers: structuredClone(PROVIDERS) as never, defaultProviderId: 'local' });
  await useSettingsService(service);
});

describe('chat model state', () => {
  it('a new chat starts on the default; a choice is remembered for the next new chat', async () => {
    chatModel.startNewChat();
    expect(chatModel.choice).toEqual({ providerId: 'local', model: 'small' });
    await chatModel.choose({ providerId: 'hosted', model: 'big' });
    expect(settings.current.lastChatModel).toEqual({ providerId: 'hosted', model: 'big' });
    chatModel.startNewChat();
    expect(chatModel.choice).toEqual({ providerId: 'hosted', model: 'big' });
    await expect(chatModel.providerSettings()).resolves.toMatchObject({ baseUrl: 'https://api.example.com/v1', apiKey: 'sk-hosted', model: 'big' });
  });

  it('a choice in an open chat is stored with its session; an older session shows the default', async () => {
    const sessions = await store();
    const older = await sessions.create({ title: 'older' });
    await chatModel.openedSession(older.id);
    expect(chatModel.choice).toEqual({ providerId: 'local', model: 'small' });
    await chatModel.choose({ providerId: 'local', model: 'medium' });
    expect((await sessions.get(older.id))?.chatModel).toEqual({ providerId: 'local', model: 'medium' });

    const other = await sessions.create({ title: 'other', chatModel: { providerId: 'hosted', model: 'big' } });
    await chatModel.openedSession(other.id);
    expect(chatModel.choice).toEqual({ providerId: 'hosted', model: 'big' });
    await chatModel.openedSession(older.id);
    expect(chatModel.choice).toEqual({ providerId: 'local', model: 'medium' });
  });

  it('a chat on a removed provider is unavailable and its turn refuses to start', async () => {
    chatModel.startNewChat();
    await chatModel.choose({ providerId: 'local', model: 'medium' });
    const sessions = await store();
    const chat = await sessions.create({ title: 'on hosted', chatModel: { providerId: 'hosted', model: 'big' } });
    await settings.save({ providers: settings.current.providers.filter((entry) => entry.id !== 'hosted') });
    await chatModel.openedSession(chat.id);
    expect(chatModel.unavailable).toBe(true);
    expect(chatModel.choice).toEqual({ providerId: 'hosted', model: 'big' }); // never switched silently
    await expect(chatModel.providerSettings()).rejects.toThrow(/This chat's model big is no longer available/);
    expect(chatModel.forNewSession()).toBeNull();
    // A new chat takes the last used model, which still exists; once that is gone too, the default.
    chatModel.startNewChat();
    expect(chatModel.choice).toEqual({ providerId: 'local', model: 'medium' });
    expect(chatModel.unavailable).toBe(false);
    await settings.save({ providers: settings.current.providers.map((entry) => ({ ...entry, models: [] })) });
    expect(chatModel.choice).toEqual({ providerId: 'local', model: 'small' });
  });
});
