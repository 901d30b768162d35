import { hashForChat, hashForView, routeFromHash, type Route, type ViewId } from './routes';

/**
 * The current view (and, in the chat, the conversation), driven by the location hash so
 * browser back/forward, reloads and shared links work. Components read `navigation.current`
 * and call `go()`; the chat's conversation follows `chatSession` (see chatRoute.svelte.ts).
 */
class Navigation {
  #route = $state<Route>(routeFromHash(location.hash));
  // Bumped on every change the user makes after start-up, so the view can move focus
  // to its heading without stealing focus on the first paint.
  #changes = $state(0);

  get current(): ViewId {
    return this.#route.view;
  }

  /** The session id in a `#/chat/<id>` URL; null elsewhere and on a bare `#/chat`. */
  get chatSession(): string | null {
    return this.#route.sessionId;
  }

  get changes(): number {
    return this.#changes;
  }

  go = (view: ViewId): void => {
    if (location.hash !== hashForView(view)) location.hash = hashForView(view);
    else this.#set(routeFromHash(location.hash));
  };

  /**
   * Points the URL at a conversation (null: a new chat). A new history entry by default, so
   * back/forward move between chats; `replace` rewrites the current one (a new chat getting
   * its id, a dead link being corrected).
   */
  showChat = (sessionId: string | null, options: { replace?: boolean } = {}): void => {
    const hash = hashForChat(sessionId);
    if (location.hash === hash) return this.#set(routeFromHash(hash));
    if (options.replace) {
      // replaceState fires no hashchange: take the route over directly.
      history.replaceState(history.state, '', hash);
      this.#set(routeFromHash(hash));
    } else {
      location.hash = hash;
    }
  };

  /** Follows hash changes until the returned function is called. */
  start(): () => void {
    const onHashChange = () => this.#set(routeFromHash(location.hash));
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }

  #set(route: Route): void {
    const previous = this.#route;
    if (route.view === previous.view && route.sessionId === previous.sessionId) return;
    this.#route = route;
    if (route.view !== previous.view) this.#changes += 1;
  }
}

export const navigation = new Navigation();
