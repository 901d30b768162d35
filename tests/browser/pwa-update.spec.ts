import { expect, test, type Page } from '@playwright/test';
import { checkForUpdate, installOldVersion } from './pwaHarness';
import { connectHeldResponder, finishReply } from './replyControl';

// The update prompt needs the real service worker (the config blocks it by default).
test.use({ serviceWorkers: 'allow' });

/** A value that only survives as long as the page is not reloaded. */
async function markPage(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { knackTestMark?: string }).knackTestMark = 'still here';
  });
}

const pageMark = (page: Page) => page.evaluate(() => (window as unknown as { knackTestMark?: string }).knackTestMark ?? null);

test('a new version waits for the user: Later keeps the page, Reload switches to it', async ({ page, context }) => {
  await installOldVersion(page, context);
  await markPage(page);
  await checkForUpdate(page);

  const prompt = page.getByRole('region', { name: 'Update' });
  await expect(prompt).toContainText('A new version of Knack is ready');
  // Nothing happens behind the user's back: the old worker still controls the page.
  const waiting = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting?.state ?? null);
  expect(waiting).toBe('installed');
  expect(await pageMark(page)).toBe('still here');

  await prompt.getByRole('button', { name: 'Later' }).click();
  await expect(prompt).toHaveCount(0);
  expect(await pageMark(page)).toBe('still here');

  // The waiting version is offered again on the next start, and Reload applies it.
  await page.reload();
  await expect(prompt).toContainText('A new version of Knack is ready');
  await markPage(page);
  const reloaded = page.waitForEvent('load');
  await prompt.getByRole('button', { name: 'Reload' }).click();
  await reloaded;
  expect(await pageMark(page)).toBeNull();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect(prompt).toHaveCount(0);
  const state = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    return { waiting: registration?.waiting ?? null, controlled: navigator.serviceWorker.controller !== null };
  });
  expect(state).toEqual({ waiting: null, controlled: true });
});

test('Reload chosen during a reply waits until the reply has finished', async ({ page, context }) => {
  await installOldVersion(page, context);
  await connectHeldResponder(page);
  await page.getByRole('textbox', { name: 'Message' }).fill('a long question');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeEnabled();

  await markPage(page);
  await checkForUpdate(page);
  const prompt = page.getByRole('region', { name: 'Update' });
  await expect(prompt).toContainText('A new version of Knack is ready');
  await prompt.getByRole('button', { name: 'Reload' }).click();
  await expect(prompt).toContainText('It will load as soon as the current reply finishes.');
  await expect(prompt.getByRole('button', { name: 'Reload' })).toBeDisabled();

  // The new worker must not even be activated yet: the reply keeps the old one.
  const waitingState = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting?.state ?? null);
  expect(waitingState).toBe('installed');
  expect(await pageMark(page)).toBe('still here');
  await expect(page.getByRole('list', { name: 'Messages' }).getByRole('listitem').nth(1)).toContainText('Working on it');

  // The reply ends: now the update applies and the page reloads.
  const reloaded = page.waitForEvent('load');
  await finishReply(page);
  await reloaded;
  expect(await pageMark(page)).toBeNull();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  const waitingAfter = await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.waiting ?? null);
  expect(waitingAfter).toBeNull();
});
