/**
 * The Privacy panel counts every request the app makes, from any context (docs/security.md,
 * "Privacy panel"): a chat turn on the page and a background review in the review worker, both
 * against the scripted server, add up to exactly the requests the server logged.
 */
import { test, expect } from './fixtures';
import { busyTurn, finishedActivity, isReviewRequest, openLearningApp, sendMessage, waitForReply } from './learningSupport';

test('the count for the provider host includes the review worker’s requests, each once', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  scripted.script(
    ...busyTurn(10),
    { toolCalls: [{ id: 'rev_1', name: 'skills_list', arguments: {} }] },
    { text: 'Nothing worth saving.' },
  );
  await sendMessage(page, 'Clean up this CSV export, the header row is broken.');
  await waitForReply(page);
  const review = await finishedActivity(page, (record) => record.kind === 'review');
  expect(review.status).toBe('done');
  await scripted.waitForIdle();

  // What the server saw; CORS preflights are the browser's, not a fetch of the app, and no timeline shows them.
  const fetched = scripted.requests.filter((request) => request.method !== 'OPTIONS');
  const fromReview = fetched.filter(isReviewRequest);
  expect(fromReview).toHaveLength(2);
  expect(fetched.length).toBeGreaterThan(fromReview.length);

  await page.getByRole('button', { name: 'Settings' }).click();
  const table = page.getByRole('table', { name: 'Network requests this session by host' });
  const providerHost = new URL(scripted.baseUrl).host;
  await expect(table.locator(`tr[data-host="${providerHost}"] td`).nth(1)).toHaveText(String(fetched.length));
  await expect(page.getByTestId('network-total')).toContainText('background workers:');

  // The same split from the state behind the panel: the review worker made at least its two chat requests.
  const workerCount = await page.evaluate(() => globalThis.knackUi!.network.countOf('review-worker'));
  expect(workerCount).toBeGreaterThanOrEqual(fromReview.length);
});

test.describe('with the service worker', () => {
  test.use({ serviceWorkers: 'allow' });

  test('the first install’s precache downloads are counted, and a page request the worker passes on is counted once', async ({ page, context }) => {
    const fromWorker: string[] = [];
    const fromPage: string[] = [];
    context.on('request', (request) => {
      if (request.serviceWorker()) fromWorker.push(request.url());
      else fromPage.push(request.url());
    });
    const swCount = () => page.evaluate(() => globalThis.knackUi!.network.countOf('service-worker'));
    await page.goto('/');
    await page.waitForFunction(() => globalThis.knackUi !== undefined);
    // Active means installed: every precache download has finished.
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    // Every request the worker made, except its own script, which the browser fetches to start it.
    const own = () => fromWorker.filter((url) => new URL(url).pathname !== '/sw.js').length;
    expect(own()).toBeGreaterThan(10);
    await expect.poll(async () => (await swCount()) - own()).toBe(0);

    // Controlled now: a precached file missing from the cache is fetched by the worker for the page.
    await page.reload();
    await page.waitForFunction(() => globalThis.knackUi !== undefined && navigator.serviceWorker.controller !== null);
    // The app loads lazy chunks after start-up (the learning loop, the skill engine): let them
    // land, then compare the counter's growth with the page requests the browser reports.
    await page.waitForLoadState('networkidle');
    const pageCount = () => page.evaluate(() => globalThis.knackUi!.network.countOf('page'));
    const before = await pageCount();
    const mark = fromPage.length;
    const passedOn = fromWorker.length;
    await page.evaluate(async () => {
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const request of await cache.keys()) if (new URL(request.url).pathname === '/icons/icon.svg') await cache.delete(request);
      }
      await (await fetch('/icons/icon.svg')).text();
    });
    await expect.poll(() => fromWorker.slice(passedOn).some((url) => new URL(url).pathname === '/icons/icon.svg')).toBe(true);
    expect(fromPage.slice(mark).some((url) => new URL(url).pathname === '/icons/icon.svg')).toBe(true);
    // Counted once, by the page: its growth equals the page's own requests since the mark.
    await expect.poll(async () => (await pageCount()) - before - (fromPage.length - mark)).toBe(0);
    expect(fromPage.length - mark).toBeGreaterThanOrEqual(1);
    expect(await swCount()).toBe(0);
  });
});
