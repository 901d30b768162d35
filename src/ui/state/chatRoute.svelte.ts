/**
 * Keeps the URL and the open conversation in step (`#/chat/<session id>`): loading or
 * going back to such a URL opens that chat; opening, starting or deleting a chat updates
 * the URL. An id that names no stored chat lands on the chat list with a short notice.
 */
import { untrack } from 'svelte';
import { chat } from './chat.svelte';
import { navigation } from './navigation.svelte';
import { sessions } from './sessions.svelte';

export const MISSING_CHAT_NOTICE = 'That chat no longer exists: it was deleted, or the link is wrong.';

class ChatRoute {
  /** The id being opened from the URL; the open chat passes through "none" meanwhile. */
  #opening: string | null = null;
  #lastOpen: string | null = null;

  /** Follows the URL and the open chat until the returned function is called. */
  start(): () => void {
    return $effect.root(() => {
      $effect(() => {
        const view = navigation.current;
        const wanted = navigation.chatSession;
        untrack(() => this.#followUrl(view === 'chat', wanted));
      });
      $effect(() => {
        const open = chat.sessionId;
        untrack(() => this.#followChat(open));
      });
    });
  }

  #followUrl(inChat: boolean, wanted: string | null): void {
    if (!inChat) return;
    if (wanted === null) {
      // A bare `#/chat` (the Chat tab) keeps the open conversation and names it in the URL.
      if (chat.sessionId && !this.#opening) navigation.showChat(chat.sessionId, { replace: true });
      return;
    }
    if (wanted !== chat.sessionId && wanted !== this.#opening) void this.#open(wanted);
  }

  #followChat(open: string | null): void {
    const previous = this.#lastOpen;
    this.#lastOpen = open;
    if (this.#opening || navigation.current !== 'chat' || open === navigation.chatSession) return;
    if (open) {
      sessions.notice = null;
      // A new chat got its id with the first message: the same history entry, now named.
      navigation.showChat(open, { replace: navigation.chatSession === null });
    } else if (previous) {
      navigation.showChat(null);
    }
  }

  async #open(id: string): Promise<void> {
    this.#opening = id;
    try {
      if (!(await sessions.exists(id))) {
        chat.newChat();
        navigation.showChat(null, { replace: true });
        sessions.showNotice(MISSING_CHAT_NOTICE);
        return;
      }
      await chat.openSession(id);
      if (chat.sessionId === id) sessions.notice = null;
    } finally {
      if (this.#opening === id) this.#opening = null;
    }
    this.#lastOpen = chat.sessionId;
    // The URL moved on while this chat was loading (a quick second click, back): follow it.
    if (navigation.current === 'chat' && navigation.chatSession && navigation.chatSession !== chat.sessionId) void this.#open(navigation.chatSession);
  }
}

export const chatRoute = new ChatRoute();
