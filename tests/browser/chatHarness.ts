/**
 * Chat browser-test helpers: configure the provider the way a user does (Settings UI), send
 * messages from the composer, and find the conversation's items.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import type { ScriptedServer } from '../fixtures/scriptedServer';

export const MODEL = 'scripted-model';

/** Opens the app with storage and the lazy services up. */
export async function openChatApp(page: Page, url = '/'): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => globalThis.knack?.skills !== undefined && globalThis.knack?.memory !== undefined && globalThis.knack?.sessions !== undefined);
}

/** Settings → Provider OpenAI-compatible, Base URL = the scripted server, Model, Save → back to Chat. */
export async function useScriptedProvider(page: Page, scripted: ScriptedServer, model = MODEL): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'OpenAI-compatible' });
  await page.getByLabel('Base URL').fill(scripted.baseUrl);
  await page.getByLabel('Model').fill(model);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  // Send is off while the app cannot send (a reply still ending, the chat's model not resolved):
  // Enter then does nothing, as the button shows.
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  await box.press('Enter');
}

export function messageItems(page: Page): Locator {
  return page.getByRole('list', { name: 'Messages' }).getByRole('listitem');
}

/** Waits until the reply has ended (Stop disabled again and the end announced). */
export async function waitForReplyEnd(page: Page): Promise<void> {
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await expect(page.locator('[aria-live="polite"]')).toHaveText(/Reply (finished|stopped|failed)\./);
}
