/**
 * Network requests this session, by host (docs/security.md, "Privacy panel"): the user's proof
 * that a local setup contacts nothing else. The counting itself is src/providers/requestCounter.ts,
 * shared by every context:
 * - on the page, `countingFetch` wraps the provider's fetch and a PerformanceObserver sees every
 *   other request of the page (scripts, the web-llm catalogue, anything a library fetches);
 * - the workers (background reviews and gate runs, the web-llm engine, the regex checks) count
 *   their own requests the same way and post each one on the `knack-network` channel, tagged
 *   with this tab's id; the service worker posts the requests it makes on its own (precaching a
 *   new version), for every open tab.
 */
import {
  NETWORK_CHANNEL,
  RequestTally,
  contextTabId,
  hostOf,
  isNetworkRequestMessage,
  type RequestContext,
} from '../../providers/requestCounter';

export interface HostCount {
  host: string;
  count: number;
}

/** What relative URLs resolve against: the page (modules that import this run under Vitest too, without one). */
const pageUrl = (): string => globalThis.location?.href ?? 'http://localhost/';

class NetworkRequests {
  // Replaced whole on every request (raw state): plain records, copied with one more count.
  #counts = $state.raw<Readonly<Record<string, number>>>({});
  #byContext = $state.raw<Readonly<Partial<Record<RequestContext, number>>>>({});
  #tally = new RequestTally(pageUrl(), (url) => this.#add(url, 'page'));
  #started = false;

  /** Hosts, busiest first. */
  get byHost(): HostCount[] {
    return Object.entries(this.#counts).map(([host, count]) => ({ host, count })).sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
  }

  get total(): number {
    let total = 0;
    for (const count of Object.values(this.#counts)) total += count;
    return total;
  }

  /** How many of the requests each context made (the page, the workers, the service worker). */
  countOf(context: RequestContext): number {
    return this.#byContext[context] ?? 0;
  }

  /** Begins observing and listening to the workers; call once at start-up. Earlier page requests come from the buffer. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    if (typeof BroadcastChannel !== 'undefined') {
      const tab = contextTabId();
      const channel = new BroadcastChannel(NETWORK_CHANNEL);
      channel.onmessage = (event: MessageEvent) => {
        const message: unknown = event.data;
        // Another tab's workers report on the same channel; the service worker works for all tabs.
        if (isNetworkRequestMessage(message) && (message.tab === tab || message.tab === null)) this.#add(message.url, message.context);
      };
    }
    if (typeof PerformanceObserver === 'undefined') return;
    for (const entry of performance.getEntriesByType('navigation')) this.#tally.observed(entry.name);
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.#tally.observed(entry.name);
    });
    observer.observe({ type: 'resource', buffered: true });
  }

  /** A fetch that counts its requests; hand it to the provider. */
  countingFetch: typeof fetch = this.#tally.countingFetch(() => globalThis.fetch);

  #add(url: string, context: RequestContext): void {
    const host = hostOf(url, pageUrl());
    if (!host) return;
    this.#counts = { ...this.#counts, [host]: (this.#counts[host] ?? 0) + 1 };
    this.#byContext = { ...this.#byContext, [context]: (this.#byContext[context] ?? 0) + 1 };
  }
}

export const networkRequests = new NetworkRequests();
