/**
 * The open chat's provider and model (the header's **Chat model** select): what it is, what
 * else can be chosen, and whether it still exists. A new chat starts with the last used model
 * (or the default provider's); a stored chat with its own; a chat stored before chats had one
 * with the default. A choice that no longer resolves is reported, never replaced silently
 * (docs/providers.md). The rules live in src/app/chatModels.ts.
 */
import { ProviderError } from '../../providers/provider';
import type { ProviderSettings } from '../../providers/createProvider';
import { appServices } from '../../app/services';
import type { SessionStore } from '../../sessions/sessionStore';
import {
  asChatModelChoice,
  chatModelGroups,
  defaultChatModel,
  newChatModel,
  resolveChatModel,
  sameChoice,
  sessionChatModel,
  type ChatModelChoice,
  type ChatModelGroup,
  type ChatModelResolution,
} from '../../app/chatModels';
import { fetchModelList, withModels } from '../../app/providerModels';
import { networkRequests } from './network.svelte';
import { settings } from './settings.svelte';
import { webllm } from './webllm.svelte';

/** How the open chat's choice is decided: its own, or following the new-chat / default rule. */
type ChoiceSource = { kind: 'own'; choice: ChatModelChoice } | { kind: 'new-chat' } | { kind: 'default' };

/** Where chat sessions are stored: the app's session store (a memory one in unit tests). */
export type ChatModelSessions = () => Promise<Pick<SessionStore, 'get' | 'setChatModel'>>;

const appSessions: ChatModelSessions = async () => (await (await appServices()).chat()).store;

export class ChatModelState {
  constructor(private readonly sessions: ChatModelSessions = appSessions) {}

  #source = $state<ChoiceSource>({ kind: 'new-chat' });
  #sessionId: string | null = null;

  /** Models known outside the settings: the downloaded web-llm models, for in-browser providers. */
  get #extra(): Record<string, readonly string[]> {
    const cached = webllm.cached?.map((model) => model.id) ?? [];
    if (cached.length === 0) return {};
    return Object.fromEntries(settings.current.providers.filter((entry) => entry.kind === 'webgpu').map((entry) => [entry.id, cached]));
  }

  /** The open chat's choice (null: no provider has a model yet). */
  get choice(): ChatModelChoice | null {
    const source = this.#source;
    if (source.kind === 'own') return source.choice;
    return source.kind === 'new-chat' ? newChatModel(settings.current, this.#extra) : defaultChatModel(settings.current);
  }

  get groups(): ChatModelGroup[] {
    return chatModelGroups(settings.current, this.#extra);
  }

  get resolution(): ChatModelResolution {
    return resolveChatModel(settings.current, this.choice, this.#extra);
  }

  /** The chat's model was set and has since gone: sending waits until another is chosen. */
  get unavailable(): boolean {
    if (!settings.loaded) return false; // the defaults know none of the saved providers yet
    const resolution = this.resolution;
    return !resolution.ok && resolution.reason !== 'no-model';
  }

  /** A new chat (no session yet). */
  startNewChat(): void {
    this.#sessionId = null;
    this.#source = { kind: 'new-chat' };
  }

  /** A stored chat was opened: its own choice, or the default for chats stored before they had one. */
  async openedSession(sessionId: string): Promise<void> {
    this.#sessionId = sessionId;
    this.#source = { kind: 'default' };
    try {
      const session = await (await this.sessions()).get(sessionId);
      if (this.#sessionId !== sessionId) return;
      const own = session?.chatModel ? sessionChatModel(session, settings.current) : null;
      this.#source = own ? { kind: 'own', choice: own } : { kind: 'default' };
    } catch {
      // Unreadable: the chat itself reports it; the header shows the default.
    }
  }

  /** The first message created the session, already stored with `choice` (chatSession.ts). */
  sessionCreated(sessionId: string, stored: unknown): void {
    this.#sessionId = sessionId;
    const own = stored && typeof stored === 'object' ? asChatModelChoice((stored as { chatModel?: unknown }).chatModel) : null;
    // Stored without one (no model resolved, e.g. a console responder answered): the default's, as for older chats.
    this.#source = own ? { kind: 'own', choice: own } : { kind: 'default' };
  }

  /** The user picked a model in the header: stored with the chat, and remembered for new chats. */
  async choose(choice: ChatModelChoice): Promise<void> {
    if (this.#source.kind === 'own' && sameChoice(this.#source.choice, choice)) return;
    this.#source = { kind: 'own', choice };
    const sessionId = this.#sessionId;
    if (sessionId) await (await this.sessions()).setChatModel(sessionId, choice);
    await settings.save({ lastChatModel: choice });
  }

  /** The choice for a new session's record (chatSession.ts `chatModel`). */
  forNewSession(): ChatModelChoice | null {
    return this.resolution.ok ? this.choice : null;
  }

  /** The provider settings for the next turn, or the reason there are none in the user's words. */
  async providerSettings(): Promise<ProviderSettings> {
    await settings.load();
    const resolution = this.resolution;
    if (resolution.ok) return resolution.provider;
    if (resolution.reason === 'no-model') {
      throw new ProviderError('model', 'No model is chosen yet.', 'Open Settings, pick a provider and enter the Model to use, then Save.');
    }
    throw new ProviderError('model', resolution.message, 'Choose another model in the Chat model menu above the conversation.');
  }
}

export const chatModel = new ChatModelState();

/**
 * Fetches a saved provider's model list and caches it in the settings. Counted by the network
 * panel like every provider request. Resolves to the list, or rejects with the provider's error.
 */
export async function refreshProviderModels(providerId: string): Promise<string[]> {
  await settings.load();
  const provider = settings.current.providers.find((entry) => entry.id === providerId);
  if (!provider) return [];
  const models = await fetchModelList(provider, { fetch: networkRequests.countingFetch });
  const current = settings.current.providers;
  // Applied to the stored list: a provider another tab added meanwhile stays (docs/storage.md).
  if (withModels(current, providerId, models) !== current) await settings.save((stored) => ({ providers: withModels(stored.providers, providerId, models) }));
  return models;
}
