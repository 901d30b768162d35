/**
 * Settings the chat depends on: the IndexedDB home (with the one-time move from
 * localStorage), the tool protocol per model, learning intervals, and the chat at 360 px.
 */
import { test, expect } from './fixtures';
import { MODEL, messageItems, openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';

test('settings move once from localStorage into IndexedDB and stay there', async ({ page }) => {
  await page.addInitScript(() => {
    if (sessionStorage.getItem('seeded')) return;
    sessionStorage.setItem('seeded', '1');
    localStorage.setItem('knack.settings', JSON.stringify({ provider: 'openai-compatible', baseUrl: 'http://gpu-box.local:8080/v1', apiKey: 'sk-old', model: 'qwen3:4b', theme: 'dark' }));
  });
  await openChatApp(page, '/#/settings');
  await expect(page.getByLabel('Base URL')).toHaveValue('http://gpu-box.local:8080/v1');
  await expect(page.getByLabel('Model')).toHaveValue('qwen3:4b');
  await expect(page.getByLabel('API key')).toHaveValue('sk-old');
  const stored = await page.evaluate(async () => ({
    record: await globalThis.knack!.records!<Record<string, unknown>>('settings').get('app'),
    legacy: localStorage.getItem('knack.settings'),
  }));
  expect(stored.legacy).toBeNull();
  expect(stored.record).toMatchObject({ baseUrl: 'http://gpu-box.local:8080/v1', apiKey: 'sk-old', model: 'qwen3:4b', theme: 'dark' });

  // A change saved now lands in IndexedDB and survives a reload (localStorage stays empty).
  await page.getByLabel('Model').fill('llama3.2');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel('Model')).toHaveValue('llama3.2');
  expect(await page.evaluate(() => localStorage.getItem('knack.settings'))).toBeNull();
});

test('Tool calls: the text protocol for one model sends no native tools; intervals are kept', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  await page.getByRole('button', { name: 'Settings' }).click();
  const toolCalls = page.getByRole('combobox', { name: 'Tool calls' });
  await expect(toolCalls).toHaveValue('auto');
  await toolCalls.selectOption('text');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();

  const skillInterval = page.getByRole('spinbutton', { name: /Skill review after/ });
  await skillInterval.fill('0');
  await skillInterval.blur();
  await expect(page.getByText('Learning settings updated.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Tool calls' })).toHaveValue('text');
  await expect(page.getByRole('spinbutton', { name: /Skill review after/ })).toHaveValue('0');
  // Another model has its own choice.
  await page.getByLabel('Model').fill('another-model');
  await expect(page.getByRole('combobox', { name: 'Tool calls' })).toHaveValue('auto');
  await page.getByLabel('Model').fill(MODEL);
  await expect(page.getByRole('combobox', { name: 'Tool calls' })).toHaveValue('text');

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
  scripted.script({ text: 'Plain answer.' });
  await sendMessage(page, 'hello');
  await expect(messageItems(page).nth(1)).toContainText('Plain answer.');
  await waitForReplyEnd(page);
  const body = scripted.lastChat().body;
  expect(body.tools).toBeUndefined();
  expect(body.messages[0].content).toContain('<tool_call>');
});

test('at 360 px the chat with tool calls and code fits, and the chat list opens over it', async ({ page, scripted }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script(
    { toolCalls: [{ name: 'skills_list', arguments: {} }] },
    { text: 'Here:\n\n```sh\n' + 'echo a-very-long-line-that-would-overflow-a-narrow-screen '.repeat(4) + '\n```\n\n| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |' },
  );
  await sendMessage(page, 'A long line of code please');
  await expect(messageItems(page).nth(1).locator('.code pre')).toBeVisible();
  await waitForReplyEnd(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  const history = page.getByRole('complementary', { name: 'Chat history' });
  await expect(history).toBeHidden();
  await page.getByRole('button', { name: 'Chats' }).click();
  await expect(history.getByRole('button', { name: /^A long line of code please/ })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await history.getByRole('button', { name: /^A long line of code please/ }).click();
  await expect(history).toBeHidden();
});
