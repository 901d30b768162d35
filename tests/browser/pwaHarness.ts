/** Service-worker helpers for the PWA specs (they run with `serviceWorkers: 'allow'`). */
import { expect, type BrowserContext, type Page } from '@playwright/test';

/**
 * Installs a service worker whose script differs from the one on the server by one comment,
 * then stops rewriting it: the next update check sees different bytes, exactly as when a new
 * build is deployed, and the new worker installs and waits.
 */
export async function installOldVersion(page: Page, context: BrowserContext, url = '/'): Promise<void> {
  await context.route('**/sw.js', async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: `${await response.text()}\n// the previous release\n` });
  });
  await page.goto(url);
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // An uncontrolled page would let the new worker take over at once; real users have a controlled one.
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  await context.unrouteAll({ behavior: 'wait' });
}

export async function checkForUpdate(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    await registration?.update();
  });
}
