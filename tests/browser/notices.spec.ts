/**
 * Notices never cover a control: while the offline notice or the update prompt shows, Send
 * and Stop are the topmost element at their centres (what a click there reaches), at
 * desktop width and at 360 px. The informational notice goes by itself.
 */
import { expect, test, type Locator, type Page, type TestInfo } from '@playwright/test';
import { checkForUpdate, installOldVersion } from './pwaHarness';
import { connectHeldResponder, finishReply } from './replyControl';

// Both notices come from the real service worker (the config blocks it by default).
test.use({ serviceWorkers: 'allow' });

const SIZES = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 740 },
] as const;

/** True when a click at the element's centre would reach it, not something on top. */
function reachableAtCentre(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && element.contains(hit);
  });
}

async function expectComposerReachable(page: Page, notice: Locator, testInfo: TestInfo, label: string): Promise<void> {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await expect(notice).toBeVisible();
    for (const name of ['Send', 'Stop']) {
      const button = page.getByRole('button', { name, exact: true });
      await expect(button).toBeInViewport();
      expect(await reachableAtCentre(button), `${name} reachable at ${size.name} with the ${label} shown`).toBe(true);
    }
    for (const button of await notice.getByRole('button').all()) {
      expect(await reachableAtCentre(button), `the ${label}'s own buttons at ${size.name}`).toBe(true);
    }
    await page.screenshot({ path: testInfo.outputPath(`${label}-${size.name}.png`) });
  }
}

async function startHeldReply(page: Page, text: string): Promise<void> {
  await connectHeldResponder(page);
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Stop', exact: true })).toBeEnabled();
}

test('the offline notice leaves Send and Stop clickable, and goes by itself', async ({ page }, testInfo) => {
  await page.goto('/');
  const notice = page.getByRole('region', { name: 'Offline ready' });
  // The notice waits for the whole precache (the web-llm chunks are several MB).
  await expect(notice).toContainText('Knack now works offline.', { timeout: 30_000 });
  // Focus inside holds an informational notice, so it stays while this test looks at it.
  await notice.getByRole('button', { name: 'OK' }).focus();
  await startHeldReply(page, 'A question while the notice shows');
  await notice.getByRole('button', { name: 'OK' }).focus();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('Working on it');
  await expectComposerReachable(page, notice, testInfo, 'offline notice');

  // A real click on Stop, right where the notice used to sit.
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply stopped.');

  // Focus left the notice: it is only information, so it dismisses itself.
  await expect(notice).toHaveCount(0, { timeout: 30_000 });
});

test('the update prompt stays until answered and never covers the composer', async ({ page, context }, testInfo) => {
  await installOldVersion(page, context);
  await startHeldReply(page, 'A question before the update');
  await checkForUpdate(page);
  const prompt = page.getByRole('region', { name: 'Update' });
  await expect(prompt).toContainText('A new version of Knack is ready');
  await expectComposerReachable(page, prompt, testInfo, 'update prompt');

  await finishReply(page);
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply finished.');
  await page.getByRole('textbox', { name: 'Message' }).fill('Another one');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('list', { name: 'Messages' }).getByRole('listitem')).toHaveCount(4);
  // Not information only: it waits for Reload or Later.
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Later' }).click();
  await expect(prompt).toHaveCount(0);
});
