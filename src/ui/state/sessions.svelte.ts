/**
 * The session list beside the chat: newest first, rename, delete, and the search box
 * (session search over every message, matched words highlighted in the snippets).
 */
import { announcer } from './announcer.svelte';
import { appServices } from '../../app/services';
import type { ChatSession } from '../../sessions/sessionStore';
import type { SessionSearchHit } from '../../sessions/sessionSearch';

class SessionsState {
  list = $state.raw<ChatSession[]>([]);
  query = $state('');
  /** Null while the box is empty: the list shows instead of results. */
  results = $state.raw<SessionSearchHit[] | null>(null);
  /** Narrow screens: whether the list is open over the chat. */
  open = $state(false);
  /** Bumped to ask the search box to take focus (Ctrl/Cmd+K, /search). */
  focusRequests = $state(0);
  error = $state<string | null>(null);
  /** A short note above the list, e.g. a link to a chat that no longer exists. */
  notice = $state<string | null>(null);
  #searchRun = 0;
  #subscribed = false;

  refresh = async (): Promise<void> => {
    try {
      const services = await (await appServices()).chat();
      if (!this.#subscribed) {
        this.#subscribed = true;
        // Titles and order change with every message; a microtask batches a turn's burst.
        let queued = false;
        services.store.subscribe((change) => {
          if (change.kind === 'message-updated' || queued) return;
          queued = true;
          queueMicrotask(() => {
            queued = false;
            void this.refresh();
          });
        });
      }
      this.list = await services.store.list();
      this.error = null;
    } catch (error) {
      this.error = `Chats could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
  };

  /** Whether a chat with this id is stored (a URL may name a deleted one). */
  exists = async (id: string): Promise<boolean> => {
    try {
      const services = await (await appServices()).chat();
      return (await services.store.get(id)) !== undefined;
    } catch {
      return false;
    }
  };

  /** Shows a note on the list, opening it on narrow screens, and says it politely. */
  showNotice = (text: string): void => {
    this.notice = text;
    this.open = true;
    announcer.say(text);
  };

  search = async (query: string): Promise<void> => {
    this.query = query;
    const run = ++this.#searchRun;
    if (!query.trim()) {
      this.results = null;
      return;
    }
    const services = await (await appServices()).chat();
    const hits = await services.search.search(query, { limit: 20, prefix: true });
    if (run === this.#searchRun) this.results = hits;
  };

  openSearch = (query = this.query): void => {
    this.open = true;
    this.focusRequests += 1;
    void this.search(query);
  };

  rename = async (id: string, title: string): Promise<void> => {
    const services = await (await appServices()).chat();
    await services.store.rename(id, title);
    await this.refresh();
  };

  remove = async (id: string): Promise<void> => {
    const services = await (await appServices()).chat();
    await services.store.delete(id);
    await this.refresh();
    if (this.results) await this.search(this.query);
  };
}

export const sessions = new SessionsState();
