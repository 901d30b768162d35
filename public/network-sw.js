/*
 * Loaded by the generated service worker before Workbox (vite.config.ts, `workbox.importScripts`).
 * Counts the requests the service worker makes on its own, above all precaching a new version
 * while it installs, and posts each on the `knack-network` channel for the Privacy panel of every
 * open tab (docs/security.md, "Privacy panel"; the message shape is NetworkRequestMessage in
 * src/providers/requestCounter.ts). A fetch it makes to answer a page's request is not counted
 * here: the page's own timeline already counts that request.
 *
 * Plain JavaScript: it is served as it is from public/, not bundled.
 */
(() => {
  if (typeof BroadcastChannel === 'undefined') return;
  const channel = new BroadcastChannel('knack-network');
  /**
   * URLs pages have asked this worker for. Kept for the worker's life: Workbox fetches a URL for
   * a page only after the page asked for it, and this worker's own requests (the precache) run
   * while it installs, before any page request reaches it; a new version starts with an empty set.
   */
  const forPages = new Set();
  const realFetch = self.fetch.bind(self);

  const absolute = (input) => {
    const raw = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    try {
      return new URL(raw, self.location.href).href;
    } catch {
      return raw;
    }
  };

  // Registered before Workbox's own listener, so it sees each page request first; it never answers.
  self.addEventListener('fetch', (event) => {
    forPages.add(event.request.url);
  });

  /*
   * The forged-tool sandbox worker's content security policy (docs/forged-tools.md): a worker
   * takes its policy from its script's response, so when this service worker serves that script
   * it adds the same header the preview server sends (vite.config.ts, FORGED_WORKER_CSP).
   */
  const FORGED_WORKER_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'";
  self.addEventListener('fetch', (event) => {
    const url = new URL(event.request.url);
    if (url.origin !== self.location.origin || !/\/forgedTool\.worker-[^/]*\.js$/.test(url.pathname)) return;
    event.respondWith(
      (async () => {
        const response = (await caches.match(event.request, { ignoreSearch: true })) ?? (await realFetch(event.request));
        const headers = new Headers(response.headers);
        headers.set('Content-Security-Policy', FORGED_WORKER_CSP);
        return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
      })(),
    );
    // Answered here: Workbox's own listener, registered after this one, must not answer it again.
    event.stopImmediatePropagation();
  });

  const post = (url) => {
    if (/^https?:/.test(url)) channel.postMessage({ type: 'network-request', tab: null, context: 'service-worker', url });
  };
  /** URLs this wrapper counted whose timing entry has not arrived yet (as RequestTally does). */
  const awaitingEntry = new Map();

  self.fetch = (input, init) => {
    const url = absolute(input);
    if (!forPages.has(url)) {
      awaitingEntry.set(url, (awaitingEntry.get(url) ?? 0) + 1);
      post(url);
    }
    return realFetch(input, init);
  };

  // The worker's timeline adds what no fetch call shows: the scripts it imported as it started.
  if (typeof PerformanceObserver !== 'undefined') {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const url = absolute(entry.name);
        const waiting = awaitingEntry.get(url) ?? 0;
        if (waiting > 0) {
          if (waiting === 1) awaitingEntry.delete(url);
          else awaitingEntry.set(url, waiting - 1);
        } else if (!forPages.has(url)) {
          post(url);
        }
      }
    }).observe({ type: 'resource', buffered: true });
  }
})();
