/**
 * The chat header's Chat model select with two saved providers (two scripted servers): the
 * request goes to the chosen server with its model and only its own key, each chat keeps its
 * choice across a reload, and a chat whose provider was removed says so and waits for a choice.
 */
import { test, expect } from './fixtures';
import type { Page } from '@playwright/test';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { messageItems, openChatApp, sendMessage, waitForReplyEnd } from './chatHarness';

const KEY_B = 'sk-hosted-b';

async function openSettings(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('combobox', { name: 'Provider' })).toBeVisible();
}

async function openChat(page: Page): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

/**
 * Fills the provider form as a user does, saves, and waits for the server's model list: a
 * provider just added, or pointed at a new server, asks for it on Save (docs/providers.md).
 */
async function saveProvider(page: Page, fields: { name?: string; baseUrl: string; apiKey?: string; model: string; models: number }): Promise<void> {
  if (fields.name) await page.getByLabel('Name').fill(fields.name);
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'OpenAI-compatible' });
  await page.getByLabel('Base URL').fill(fields.baseUrl);
  await page.getByLabel('API key').fill(fields.apiKey ?? '');
  await page.getByLabel('Model').fill(fields.model);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await expect(page.getByText(`The server lists ${fields.models} ${fields.models === 1 ? 'model' : 'models'}.`)).toBeVisible();
}

const chatModel = (page: Page) => page.getByRole('combobox', { name: 'Chat model' });
const chosenModel = (page: Page) => chatModel(page).locator('option:checked');
const sessionIdOf = (page: Page) => new URL(page.url()).hash.replace('#/chat/', '');

let hosted: ScriptedServer;

test.beforeEach(async () => {
  hosted = await startScriptedServer({ models: ['beta-1', 'beta-2'], requireApiKey: KEY_B });
});

test.afterEach(async () => {
  await hosted.close();
});

test('each chat talks to its own provider and model, with that provider key only', async ({ page, scripted }) => {
  scripted.setModels(['alpha', 'scripted-model']);
  await openChatApp(page, '/#/settings');
  await saveProvider(page, { baseUrl: scripted.baseUrl, model: 'scripted-model', models: 2 });
  await page.getByRole('button', { name: 'Add provider' }).click();
  await saveProvider(page, { name: 'Hosted B', baseUrl: hosted.baseUrl, apiKey: KEY_B, model: 'beta-1', models: 2 });

  // The header lists both providers' models, grouped; a new chat starts on the default.
  await openChat(page);
  await expect(chosenModel(page)).toHaveText('scripted-model');
  await expect(chatModel(page).locator('optgroup')).toHaveCount(2);
  await expect(chatModel(page).locator('optgroup[label="Hosted B"] option')).toHaveText(['beta-1', 'beta-2']);

  // First chat: switched to B's second model before the first message.
  await chatModel(page).selectOption({ label: 'beta-2' });
  hosted.script({ text: 'Hello from B.' });
  await sendMessage(page, 'Hi B');
  await waitForReplyEnd(page);
  await expect(messageItems(page).last()).toContainText('Hello from B.');
  const [toB] = hosted.chatRequests();
  expect(toB!.body.model).toBe('beta-2');
  expect(toB!.headers.authorization).toBe(`Bearer ${KEY_B}`);
  await expect(page).toHaveURL(/#\/chat\/.+/);
  const chatB = sessionIdOf(page);

  // Second chat: starts on the last used model, switched to A's.
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(chosenModel(page)).toHaveText('beta-2');
  await chatModel(page).selectOption({ label: 'scripted-model' });
  scripted.script({ text: 'Hello from A.' });
  await sendMessage(page, 'Hi A');
  await waitForReplyEnd(page);
  await expect(messageItems(page).last()).toContainText('Hello from A.');
  expect(scripted.chatRequests().map((request) => request.body.model)).toEqual(['scripted-model']);
  await expect(page).not.toHaveURL(new RegExp(chatB));
  const chatA = sessionIdOf(page);

  // B's key never went to A (model lists included), and A's chat did not reach B.
  expect(scripted.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
  expect(hosted.chatRequests()).toHaveLength(1);

  // Each chat keeps its choice across a reload; a switch in one chat is stored with it.
  await page.goto(`/#/chat/${chatB}`);
  await page.reload();
  await expect(messageItems(page).first()).toContainText('Hi B');
  await expect(chosenModel(page)).toHaveText('beta-2');
  await chatModel(page).selectOption({ label: 'beta-1' });
  await page.goto(`/#/chat/${chatA}`);
  await expect(messageItems(page).first()).toContainText('Hi A');
  await expect(chosenModel(page)).toHaveText('scripted-model');
  await page.goto(`/#/chat/${chatB}`);
  await page.reload();
  await expect(messageItems(page).first()).toContainText('Hi B');
  await expect(chosenModel(page)).toHaveText('beta-1');
  const stored = await page.evaluate(async (id) => (await globalThis.knack!.sessions!.store.get(id))?.chatModel, chatB);
  expect(stored).toMatchObject({ model: 'beta-1' });
});

test('the provider pointed at a new server and saved lists that server\'s models, without Refresh list', async ({ page, scripted }) => {
  scripted.setModels(['alpha', 'gamma', 'scripted-model']);
  await openChatApp(page, '/#/settings');
  await saveProvider(page, { baseUrl: scripted.baseUrl, model: 'scripted-model', models: 3 });
  await openChat(page);
  await expect(chatModel(page).locator('option')).toHaveText(['scripted-model', 'alpha', 'gamma']);

  // The same provider, now on the second server: its list replaces the first server's.
  await openSettings(page);
  await saveProvider(page, { baseUrl: hosted.baseUrl, apiKey: KEY_B, model: 'beta-1', models: 2 });
  await openChat(page);
  await expect(chatModel(page).locator('option')).toHaveText(['beta-1', 'beta-2']);
  await expect(chosenModel(page)).toHaveText('beta-1');
});

test('a chat whose provider was removed says so, waits, and never switches by itself', async ({ page, scripted }) => {
  await openChatApp(page, '/#/settings');
  await saveProvider(page, { baseUrl: scripted.baseUrl, model: 'scripted-model', models: 1 });
  await page.getByRole('button', { name: 'Add provider' }).click();
  await saveProvider(page, { name: 'Hosted B', baseUrl: hosted.baseUrl, apiKey: KEY_B, model: 'beta-1', models: 2 });

  await openChat(page);
  await chatModel(page).selectOption({ label: 'beta-1' });
  hosted.script({ text: 'From B.' });
  await sendMessage(page, 'On B');
  await waitForReplyEnd(page);
  await expect(page).toHaveURL(/#\/chat\/.+/);
  const chatB = sessionIdOf(page);

  await openSettings(page);
  await page.getByRole('button', { name: 'Hosted B' }).click();
  await expect(page.getByLabel('Base URL')).toHaveValue(hosted.baseUrl);
  await page.getByRole('button', { name: 'Remove this server' }).click();
  await page.getByRole('dialog', { name: 'Remove Hosted B?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByText(/^Removed\./)).toBeVisible();

  await page.goto(`/#/chat/${chatB}`);
  await page.reload();
  await expect(messageItems(page).first()).toContainText('On B');
  await expect(page.getByRole('alert').filter({ hasText: "This chat's model beta-1 is no longer available" })).toBeVisible();
  await expect(chosenModel(page)).toHaveText('beta-1 (unavailable)');
  await page.getByRole('textbox', { name: 'Message' }).fill('Still there?');
  await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();

  // Choosing another model lifts the notice; the next turn goes to that server.
  await chatModel(page).selectOption({ label: 'scripted-model' });
  await expect(page.getByText("This chat's model beta-1 is no longer available")).toHaveCount(0);
  scripted.script({ text: 'From A now.' });
  await page.getByRole('button', { name: 'Send' }).click();
  await waitForReplyEnd(page);
  await expect(messageItems(page).last()).toContainText('From A now.');
  expect(scripted.chatRequests()).toHaveLength(1);
  expect(hosted.chatRequests()).toHaveLength(1);
});
