/**
 * Counting the app's network requests in every context it runs in (docs/security.md, "Privacy
 * panel"): the page, the review worker, the web-llm worker, the regex worker and the service
 * worker. Each context has its own Resource Timing timeline, so each counts its own requests
 * here and the workers tell the page over the `knack-network` BroadcastChannel.
 *
 * Within one context a request is counted once, from whichever source sees it first:
 * - a counting fetch counts a request the moment it starts (a streaming reply only shows in
 *   Resource Timing once it has finished);
 * - a PerformanceObserver sees every other request of that context (module imports, anything a
 *   library fetches); a URL the fetch already counted is skipped when its timing entry arrives.
 * Across contexts there is nothing to merge: a request shows in the timeline of the context that
 * made it only. The service worker counts only requests it makes on its own (see
 * public/network-sw.js), never a page request it passes on.
 *
 * No DOM: the page's UI state (src/ui/state/network.svelte.ts) and the workers share this.
 */

/** The channel every context reports on; the page listens. */
export const NETWORK_CHANNEL = 'knack-network';

/** Who made a request. */
export type RequestContext = 'page' | 'review-worker' | 'llm-worker' | 'regex-worker' | 'tool-worker' | 'service-worker';

/** What a worker posts on the channel for each request it made. */
export interface NetworkRequestMessage {
  type: 'network-request';
  /** The tab whose worker made it; null for the service worker, which works for every tab. */
  tab: string | null;
  context: RequestContext;
  url: string;
}

export function isNetworkRequestMessage(data: unknown): data is NetworkRequestMessage {
  if (data === null || typeof data !== 'object') return false;
  const message = data as Record<string, unknown>;
  return message.type === 'network-request' && typeof message.url === 'string' && typeof message.context === 'string' && (message.tab === null || typeof message.tab === 'string');
}

/** `host:port` of an http(s) URL, else null (data:, blob: and the like are no network request). */
export function hostOf(url: string, base?: string): string | null {
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : null;
  } catch {
    return null;
  }
}

export function urlOf(input: RequestInfo | URL): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

/**
 * One context's de-duplication: `started` for a request a counting fetch saw, `observed` for a
 * timing entry. `count` hears each request once, with its absolute URL.
 */
export class RequestTally {
  /** Absolute URLs counted by the fetch whose timing entry has not arrived yet. */
  readonly #awaitingEntry = new Map<string, number>();

  constructor(
    private readonly base: string,
    private readonly count: (url: string) => void,
  ) {}

  /** A request a counting fetch is starting; returns its absolute URL. */
  started(input: RequestInfo | URL): string {
    const url = this.#absolute(urlOf(input));
    this.#awaitingEntry.set(url, (this.#awaitingEntry.get(url) ?? 0) + 1);
    this.#report(url);
    return url;
  }

  /** A Resource Timing entry (or the navigation): counted unless the fetch already did. */
  observed(name: string): void {
    const url = this.#absolute(name);
    const waiting = this.#awaitingEntry.get(url) ?? 0;
    if (waiting > 0) {
      if (waiting === 1) this.#awaitingEntry.delete(url);
      else this.#awaitingEntry.set(url, waiting - 1);
      return;
    }
    this.#report(url);
  }

  /** A fetch that counts its requests, calling `fetchImpl` (bound at call time). */
  countingFetch(fetchImpl: () => typeof fetch): typeof fetch {
    return (input, init) => {
      this.started(input);
      return fetchImpl()(input, init);
    };
  }

  #absolute(url: string): string {
    try {
      return new URL(url, this.base).href;
    } catch {
      return url;
    }
  }

  #report(url: string): void {
    if (hostOf(url) !== null) this.count(url);
  }
}

/** What a worker context offers that the counting needs (a narrow view of its global scope). */
export interface CountableScope {
  /** Absent only in stand-in scopes (unit tests that load a worker module in Node). */
  fetch?: typeof fetch;
  location?: { href: string };
  PerformanceObserver?: typeof PerformanceObserver;
  performance?: Performance;
  name?: string;
}

const TAB_SEPARATOR = '@tab:';

/**
 * The id of the tab this context belongs to. A page makes one up; a worker reads it from its
 * name (`workerName`), so a worker it starts (the regex worker under the review worker) inherits it.
 */
export function contextTabId(scope: { name?: string } = globalThis as { name?: string }): string | null {
  if (!isWorkerScope()) return pageTabId;
  const name = scope.name ?? '';
  const at = name.lastIndexOf(TAB_SEPARATOR);
  return at >= 0 ? name.slice(at + TAB_SEPARATOR.length) : null;
}

const pageTabId = typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `tab-${Math.random().toString(36).slice(2)}`;

function isWorkerScope(): boolean {
  return typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';
}

/** A worker's name carrying this context's tab id: `knack-review@tab:<id>`. */
export function workerName(base: string): string {
  const tab = contextTabId();
  return tab ? `${base}${TAB_SEPARATOR}${tab}` : base;
}

/**
 * Counts every request of a worker context: its global fetch is wrapped (the provider, web-llm
 * and any library go through it) and a PerformanceObserver watches its timeline. Each request
 * is posted once on `NETWORK_CHANNEL`. Returns the function that stops counting.
 */
export function countWorkerRequests(
  scope: CountableScope,
  context: RequestContext,
  post: (message: NetworkRequestMessage) => void = defaultPost(),
): () => void {
  const tab = contextTabId(scope);
  const tally = new RequestTally(scope.location?.href ?? 'http://localhost/', (url) => post({ type: 'network-request', tab, context, url }));
  const original = scope.fetch;
  if (original) scope.fetch = tally.countingFetch(() => original.bind(scope));
  let observer: PerformanceObserver | undefined;
  if (scope.PerformanceObserver) {
    observer = new scope.PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tally.observed(entry.name);
    });
    observer.observe({ type: 'resource', buffered: true });
  }
  return () => {
    observer?.disconnect();
    if (original) scope.fetch = original;
  };
}

function defaultPost(): (message: NetworkRequestMessage) => void {
  if (typeof BroadcastChannel === 'undefined') return () => {};
  const channel = new BroadcastChannel(NETWORK_CHANNEL);
  return (message) => channel.postMessage(message);
}
