/**
 * requestCounter: one count per request whichever source sees it first (the counting fetch or
 * the timing entry), hosts of http(s) URLs only, the worker installation (its fetch wrapped,
 * its timeline observed, each request posted once with the tab from its name), and the
 * channel message check.
 */
import { describe, expect, it } from 'vitest';
import {
  RequestTally,
  countWorkerRequests,
  hostOf,
  isNetworkRequestMessage,
  workerName,
  contextTabId,
  type CountableScope,
  type NetworkRequestMessage,
} from '../../src/providers/requestCounter';

const BASE = 'http://127.0.0.1:4173/';

describe('hostOf', () => {
  it('gives host:port for http(s) and null for anything else', () => {
    expect(hostOf('http://127.0.0.1:11434/v1/chat/completions')).toBe('127.0.0.1:11434');
    expect(hostOf('/assets/app.js', BASE)).toBe('127.0.0.1:4173');
    expect(hostOf('https://huggingface.co/x')).toBe('huggingface.co');
    expect(hostOf('data:text/plain,hi')).toBeNull();
    expect(hostOf('blob:http://127.0.0.1:4173/abc')).toBeNull();
    expect(hostOf('not a url')).toBeNull();
  });
});

describe('RequestTally', () => {
  it('counts a fetched request once when its timing entry arrives later', () => {
    const counted: string[] = [];
    const tally = new RequestTally(BASE, (url) => counted.push(url));
    tally.started('/v1/chat/completions');
    tally.observed('http://127.0.0.1:4173/v1/chat/completions');
    expect(counted).toEqual(['http://127.0.0.1:4173/v1/chat/completions']);
  });

  it('counts two fetches of one URL twice, and an entry nobody fetched once', () => {
    const counted: string[] = [];
    const tally = new RequestTally(BASE, (url) => counted.push(url));
    tally.started(new URL('http://127.0.0.1:9/a'));
    tally.started(new Request('http://127.0.0.1:9/a'));
    tally.observed('http://127.0.0.1:9/a');
    tally.observed('http://127.0.0.1:9/a');
    tally.observed('http://127.0.0.1:9/a'); // a third request (e.g. a module import) of the same URL
    tally.observed('/assets/chunk.js');
    expect(counted).toEqual(['http://127.0.0.1:9/a', 'http://127.0.0.1:9/a', 'http://127.0.0.1:9/a', 'http://127.0.0.1:4173/assets/chunk.js']);
  });

  it('ignores data: and blob: requests', () => {
    const counted: string[] = [];
    const tally = new RequestTally(BASE, (url) => counted.push(url));
    tally.started('data:application/json,{}');
    tally.observed('blob:http://127.0.0.1:4173/x');
    expect(counted).toEqual([]);
  });
});

/** A stand-in worker scope: a fetch that answers at once and a PerformanceObserver we drive. */
function fakeScope(name?: string) {
  const fetched: string[] = [];
  let deliver: ((names: string[]) => void) | null = null;
  let disconnected = false;
  class FakeObserver {
    constructor(callback: (list: { getEntries(): { name: string }[] }) => void) {
      deliver = (names) => callback({ getEntries: () => names.map((entryName) => ({ name: entryName })) });
    }
    observe(): void {}
    disconnect(): void {
      disconnected = true;
    }
  }
  const scope: CountableScope = {
    location: { href: 'http://127.0.0.1:4173/assets/review.worker.js' },
    fetch: (async (input: RequestInfo | URL) => {
      fetched.push(String(input));
      return new Response('{}');
    }) as typeof fetch,
    PerformanceObserver: FakeObserver as unknown as typeof PerformanceObserver,
    ...(name !== undefined ? { name } : {}),
  };
  return { scope, fetched, entries: (names: string[]) => deliver?.(names), disconnected: () => disconnected };
}

describe('countWorkerRequests', () => {
  it('wraps the scope’s fetch and observes its timeline, posting each request once', async () => {
    const posted: NetworkRequestMessage[] = [];
    const { scope, fetched, entries, disconnected } = fakeScope('knack-review@tab:tab-1');
    const stop = countWorkerRequests(scope, 'review-worker', (message) => posted.push(message));
    await scope.fetch!('http://127.0.0.1:5555/v1/chat/completions', { method: 'POST' });
    entries(['http://127.0.0.1:5555/v1/chat/completions', 'http://127.0.0.1:4173/assets/reviewRun.js']);
    expect(fetched).toEqual(['http://127.0.0.1:5555/v1/chat/completions']);
    expect(posted.map((m) => m.url)).toEqual(['http://127.0.0.1:5555/v1/chat/completions', 'http://127.0.0.1:4173/assets/reviewRun.js']);
    // In Node there is no WorkerGlobalScope, so the tab is this test's "page" id, the same for every message.
    expect(new Set(posted.map((m) => m.tab)).size).toBe(1);
    expect(posted.every((m) => m.context === 'review-worker' && m.type === 'network-request')).toBe(true);
    stop();
    expect(disconnected()).toBe(true);
    await scope.fetch!('http://127.0.0.1:5555/again');
    expect(posted).toHaveLength(2);
  });

  it('reads the tab id from a worker’s name, where a worker is running', () => {
    const global = globalThis as { WorkerGlobalScope?: unknown };
    global.WorkerGlobalScope = class {};
    try {
      expect(contextTabId({ name: 'knack-llm@tab:abc-123' })).toBe('abc-123');
      expect(contextTabId({ name: 'knack-llm' })).toBeNull();
      expect(contextTabId({})).toBeNull();
    } finally {
      delete global.WorkerGlobalScope;
    }
  });

  it('names a worker with the page’s tab id', () => {
    const tab = contextTabId();
    expect(tab).toMatch(/\S/);
    expect(workerName('knack-review')).toBe(`knack-review@tab:${tab}`);
  });
});

describe('isNetworkRequestMessage', () => {
  it('accepts the channel’s message and refuses anything else', () => {
    expect(isNetworkRequestMessage({ type: 'network-request', tab: null, context: 'service-worker', url: 'http://a/' })).toBe(true);
    expect(isNetworkRequestMessage({ type: 'network-request', tab: 't', context: 'llm-worker', url: 'http://a/' })).toBe(true);
    expect(isNetworkRequestMessage({ type: 'network-request', tab: 1, context: 'llm-worker', url: 'http://a/' })).toBe(false);
    expect(isNetworkRequestMessage({ type: 'other', tab: null, context: 'page', url: 'x' })).toBe(false);
    expect(isNetworkRequestMessage(null)).toBe(false);
    expect(isNetworkRequestMessage('network-request')).toBe(false);
  });
});
