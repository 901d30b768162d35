import { hashForView, viewFromHash, type ViewId } from './routes';

/**
 * The current view, driven by the location hash so browser back/forward and
 * bookmarks work. Components read `navigation.current` and call `go()`.
 */
class Navigation {
  #current = $state<ViewId>(viewFromHash(location.hash));
  // Bumped on every change the user makes after start-up, so the view can move focus
  // to its heading without stealing focus on the first paint.
  #changes = $state(0);

  get current(): ViewId {
    return this.#current;
  }

  get changes(): number {
    return this.#changes;
  }

  go = (view: ViewId): void => {
    if (location.hash !== hashForView(view)) location.hash = hashForView(view);
    else this.#set(view);
  };

  /** Follows hash changes until the returned function is called. */
  start(): () => void {
    const onHashChange = () => this.#set(viewFromHash(location.hash));
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }

  #set(view: ViewId): void {
    if (view === this.#current) return;
    this.#current = view;
    this.#changes += 1;
  }
}

export const navigation = new Navigation();
