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
