// SPEC §17 "offline cold start to usable chat input": how long a reload takes, with the network
// gone, until the Message textbox can take input. It needs what an in-page bench can't have: a
// browser context that lets the service worker run (the bench page blocks it), control over
// the network (`context.setOffline`) and reloads of the page itself.
//
// The time is read in the page: an init script watches the DOM from the first moment of each
// load and notes `performance.now()` (milliseconds since navigation start) when the textbox is
// first present, visible, enabled and writable. Polling from Node would add its own latency.

const USABLE_AT = '__knackBenchMessageUsableAt';

/** Runs in the page before its own scripts, at every load. */
function watchForUsableMessageBox(usableAtKey) {
  const usable = () => {
    const label = [...document.querySelectorAll('label')].find((candidate) => candidate.textContent?.trim() === 'Message');
    const box = label?.control ?? null;
    return !!box && box.isConnected && !box.disabled && !box.readOnly && box.getClientRects().length > 0;
  };
  const check = () => {
    if (globalThis[usableAtKey] !== undefined || !usable()) return false;
    globalThis[usableAtKey] = performance.now();
    return true;
  };
  const observer = new MutationObserver(() => {
    if (check()) observer.disconnect();
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true });
}

/** Same shape and nearest-rank percentiles as bench/browser/stats.ts (which Node can't import). */
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
  const round = (value) => Math.round(value * 1000) / 1000;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return { p50: round(at(0.5)), p95: round(at(0.95)), mean: round(mean), min: round(sorted[0]), max: round(sorted[sorted.length - 1]), n: sorted.length };
}

/**
 * @param {import('@playwright/test').Browser} browser
 * @param {string} baseUrl
 * @param {{ runs?: number, timeoutMs?: number }} options
 */
export async function offlineColdStart(browser, baseUrl, { runs = 7, timeoutMs = 30_000 } = {}) {
  const context = await browser.newContext({ serviceWorkers: 'allow' });
  try {
    await context.addInitScript(watchForUsableMessageBox, USABLE_AT);
    const page = await context.newPage();
    // First visit installs the worker (and precaches the shell); a reload puts the page under
    // its control, as in tests/browser/pwa-offline.spec.ts.
    await page.goto(baseUrl, { waitUntil: 'load' });
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload({ waitUntil: 'load' });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: timeoutMs });

    await context.setOffline(true);
    const reachable = await page.evaluate(() => fetch(`/manifest.webmanifest?bypass=${Date.now()}`, { cache: 'no-store' }).then(() => true, () => false));
    if (reachable) throw new Error('the network is still reachable after setOffline(true)');

    const samples = [];
    // One untimed reload first: the first offline load also warms the cache storage reads.
    for (let i = -1; i < runs; i++) {
      await page.reload({ waitUntil: 'commit' });
      const handle = await page.waitForFunction((key) => globalThis[key], USABLE_AT, { timeout: timeoutMs, polling: 50 });
      const usableAt = await handle.jsonValue();
      if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) throw new Error('the offline reload was not served by the service worker');
      if (i >= 0) samples.push(usableAt);
    }
    return { ...summarize(samples), runs, from: 'navigation start of an offline reload (service worker)', to: 'Message textbox present, visible, enabled' };
  } finally {
    await context.close();
  }
}
