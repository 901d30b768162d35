import { announcer } from './announcer.svelte';
import { chat } from './chat.svelte';
import { IdleGate } from './idleGate';

/** How often a long-lived tab asks the server whether a new version exists. */
const UPDATE_CHECK_MS = 60 * 60 * 1000;
/** How long the informational "works offline" notice stays before it goes by itself. */
const OFFLINE_NOTICE_MS = 10_000;

/**
 * The update prompt's state. A new service worker waits until the user accepts; then it is
 * activated and the page reloads — but never while a reply is being generated: both steps
 * go through an IdleGate that holds them until `chat.isGenerating` is false.
 */
class UpdateState {
  #available = $state(false);
  #dismissed = $state(false);
  #offlineReady = $state(false);
  #waitingForReply = $state(false);
  #activate: (() => Promise<void>) | null = null;
  #gate = new IdleGate(() => chat.isGenerating);
  #offlineTimer: ReturnType<typeof setTimeout> | undefined;
  #offlineHeld = false;

  constructor() {
    $effect.root(() => {
      $effect(() => {
        if (!chat.isGenerating && this.#gate.flush() > 0) this.#waitingForReply = false;
      });
    });
  }

  /** True while the "new version" prompt should show. */
  get promptVisible(): boolean {
    return this.#available && !this.#dismissed;
  }

  get offlineReady(): boolean {
    return this.#offlineReady;
  }

  /** The user accepted, but a reply is still running; the reload follows when it ends. */
  get waitingForReply(): boolean {
    return this.#waitingForReply;
  }

  /** A new version is installed and waiting; `activate` tells it to take over. */
  offer(activate: () => Promise<void>): void {
    this.#activate = activate;
    this.#available = true;
    this.#dismissed = false;
    announcer.say('A new version of Knack is ready.');
  }

  /** The Reload button. */
  accept = (): void => {
    const activate = this.#activate;
    if (!activate) return;
    const outcome = this.#gate.run('activate', () => void activate());
    this.#waitingForReply = outcome === 'deferred';
  };

  /** The Later button: the new version then starts the next time Knack is opened. */
  later = (): void => {
    this.#gate.cancel('activate');
    this.#waitingForReply = false;
    this.#dismissed = true;
  };

  dismissOfflineReady = (): void => {
    clearTimeout(this.#offlineTimer);
    this.#offlineReady = false;
  };

  /** Shows the offline notice; it is only information, so it goes by itself. */
  showOfflineReady = (): void => {
    this.#offlineReady = true;
    announcer.say('Knack now works offline.');
    this.#armOfflineTimer();
  };

  /**
   * While the pointer or focus is on the notice it stays (someone is reading it or about to
   * press OK); when they leave, the countdown starts again.
   */
  holdOfflineReady = (held: boolean): void => {
    this.#offlineHeld = held;
    if (held) clearTimeout(this.#offlineTimer);
    else this.#armOfflineTimer();
  };

  #armOfflineTimer(): void {
    clearTimeout(this.#offlineTimer);
    if (!this.#offlineReady || this.#offlineHeld) return;
    this.#offlineTimer = setTimeout(this.dismissOfflineReady, OFFLINE_NOTICE_MS);
  }

  /**
   * The new service worker took control (after Reload here, or in another tab) and the page
   * should reload to match it.
   */
  reloadRequested = (): void => {
    const outcome = this.#gate.run('reload', () => location.reload());
    if (outcome === 'deferred') this.#waitingForReply = true;
  };

  /** Registers the service worker, in production builds only (dev serves no worker). */
  async start(): Promise<void> {
    if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
    const { useRegisterSW } = await import('virtual:pwa-register/svelte');
    const { needRefresh, offlineReady, updateServiceWorker } = useRegisterSW({
      onNeedReload: this.reloadRequested,
      onRegisteredSW: (_url, registration) => {
        if (registration) setInterval(() => void registration.update().catch(() => {}), UPDATE_CHECK_MS);
      },
      onRegisterError: (error: unknown) => console.warn('Knack: service worker registration failed', error),
    });
    needRefresh.subscribe((ready) => {
      if (ready) this.offer(() => updateServiceWorker());
    });
    offlineReady.subscribe((ready) => {
      if (ready) this.showOfflineReady();
    });
  }
}

export const updates = new UpdateState();
