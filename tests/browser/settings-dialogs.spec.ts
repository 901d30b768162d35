/**
 * What users noticed in Settings (issue 18): removing a saved provider asks first, in the app's
 * own dialog with Cancel; Wipe all data says that the downloaded in-browser models go too; the
 * chat header's Chat model select follows providers added or removed in another tab.
 */
import { test, expect } from './fixtures';
import type { Page } from '@playwright/test';
import { openChatApp } from './chatHarness';

/** Saves the form as a new provider named `name` (Add provider, fill, Save). */
async function addProvider(page: Page, name: string, baseUrl: string, model: string): Promise<void> {
  await page.getByRole('button', { name: 'Add provider' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Model').fill(model);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
}

test('removing a saved provider asks first; Cancel keeps it, Remove removes it', async ({ page, scripted }) => {
  await openChatApp(page, '/#/settings');
  await addProvider(page, 'Second server', scripted.baseUrl, 'scripted-model');
  await page.getByRole('button', { name: 'Second server' }).click();

  await page.getByRole('button', { name: 'Remove this server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove Second server?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('its API key are removed from this browser');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Second server' })).toBeVisible();

  // Esc cancels too, as in every dialog of the app.
  await page.getByRole('button', { name: 'Remove this server' }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('button', { name: 'Second server' })).toBeVisible();

  await page.getByRole('button', { name: 'Remove this server' }).click();
  await dialog.getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText(/^Removed\./)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Second server' })).toHaveCount(0);
  const ids = await page.evaluate(() => (globalThis.knack!.settings!.get('app').providers as { label: string }[]).map((entry) => entry.label));
  expect(ids).not.toContain('Second server');
});

test('Wipe all data says that the downloaded in-browser models go too', async ({ page }) => {
  await openChatApp(page, '/#/settings');
  await page.getByRole('button', { name: 'Wipe all data…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Wipe all data?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAccessibleDescription(/The in-browser models you downloaded are deleted too/);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('the Chat model select follows providers added and removed in another tab', async ({ context, scripted }) => {
  const [chatTab, settingsTab] = [await context.newPage(), await context.newPage()];
  await openChatApp(chatTab, '/');
  await openChatApp(settingsTab, '/#/settings');
  const select = chatTab.getByRole('combobox', { name: 'Chat model' });
  await expect(select).toBeVisible();
  await expect(select.locator('option', { hasText: 'other-tab-model' })).toHaveCount(0);

  await addProvider(settingsTab, 'Other tab server', scripted.baseUrl, 'other-tab-model');
  await expect(select.locator('optgroup[label="Other tab server"] option', { hasText: 'other-tab-model' })).toHaveCount(1);
  // Choosing it here saves this tab's choice without writing away the other tab's provider.
  await select.selectOption({ label: 'other-tab-model' });
  await expect(select.locator('option:checked')).toHaveText('other-tab-model');
  await expect(settingsTab.getByRole('button', { name: 'Other tab server' })).toBeVisible();
  await expect
    .poll(() => chatTab.evaluate(() => globalThis.knack!.db!.get('settings', 'app')))
    .toMatchObject({ lastChatModel: { model: 'other-tab-model' }, providers: expect.arrayContaining([expect.objectContaining({ label: 'Other tab server' })]) });

  await settingsTab.getByRole('button', { name: 'Other tab server' }).click();
  await settingsTab.getByRole('button', { name: 'Remove this server' }).click();
  await settingsTab.getByRole('dialog', { name: 'Remove Other tab server?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(settingsTab.getByText(/^Removed\./)).toBeVisible();
  // The server is no longer offered; this chat's choice says it is gone rather than switching.
  await expect(select.locator('optgroup[label="Other tab server"]')).toHaveCount(0);
  await expect(select.locator('option:checked')).toHaveText('other-tab-model (unavailable)');
});
