/**
 * Network requests this session, by host (docs/security.md): the user's proof that a
 * local setup contacts nothing else. Two sources, so nothing slips through:
 * - `countingFetch` wraps the provider's fetch and counts a request the moment it starts
 *   (a streaming reply only shows in Resource Timing once it has finished);
 * - a PerformanceObserver sees every other request of the page (scripts, the web-llm
 *   catalogue, anything a library fetches), including those made before it started.
 * A request counted by the wrapper is skipped when its timing entry arrives.
 * Requests made inside workers have their own timelines and are not seen here.
 */
export interface HostCount {
  host: string;
  count: number;
}

function hostOf(url: string): string | null {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.host : null;
  } catch {
    return null;
  }
}

function urlOf(input: RequestInfo | URL): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.href;
  return input.url;
}

class NetworkRequests {
  #counts = $state.raw<ReadonlyMap<string, number>>(new Map());
  /** Absolute URLs counted by the wrapper whose timing entry has not arrived yet. */
  #awaitingEntry = new Map<string, number>();
  #started = false;

  /** Hosts, busiest first. */
  get byHost(): HostCount[] {
    return [...this.#counts].map(([host, count]) => ({ host, count })).sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
  }

  get total(): number {
    let total = 0;
    for (const count of this.#counts.values()) total += count;
    return total;
  }

  /** Begins observing; call once at start-up. Earlier requests come from the buffer. */
  start(): void {
    if (this.#started || typeof PerformanceObserver === 'undefined') return;
    this.#started = true;
    for (const entry of performance.getEntriesByType('navigation')) this.#add(entry.name);
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.#observed(entry.name);
    });
    observer.observe({ type: 'resource', buffered: true });
  }

  /** A fetch that counts its requests; hand it to the provider. */
  countingFetch: typeof fetch = (input, init) => {
    const url = new URL(urlOf(input), location.href).href;
    this.#awaitingEntry.set(url, (this.#awaitingEntry.get(url) ?? 0) + 1);
    this.#add(url);
    return globalThis.fetch(input, init);
  };

  #observed(url: string): void {
    const waiting = this.#awaitingEntry.get(url) ?? 0;
    if (waiting > 0) {
      if (waiting === 1) this.#awaitingEntry.delete(url);
      else this.#awaitingEntry.set(url, waiting - 1);
      return;
    }
    this.#add(url);
  }

  #add(url: string): void {
    const host = hostOf(url);
    if (!host) return;
    const next = new Map(this.#counts);
    next.set(host, (next.get(host) ?? 0) + 1);
    this.#counts = next;
  }
}

export const networkRequests = new NetworkRequests();
