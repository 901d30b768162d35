/**
 * Exporting a chat from the session list (docs/chat.md, "Export a chat"): the row's Export
 * button offers Markdown and JSON, and each download holds the chat read from IndexedDB.
 */
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { openChatApp } from './chatHarness';

async function downloaded(page: Page, buttonName: string): Promise<{ name: string; text: string }> {
  const history = page.getByRole('complementary', { name: 'Chat history' });
  await history.getByRole('button', { name: 'Export Packing: the list?', exact: true }).click();
  const choices = history.getByRole('group', { name: 'Export Packing: the list?' });
  const [download] = await Promise.all([page.waitForEvent('download'), choices.getByRole('button', { name: buttonName }).click()]);
  const path = await download.path();
  return { name: download.suggestedFilename(), text: await readFile(path, 'utf8') };
}

test('a chat exports as Markdown and as versioned JSON from its row in the list', async ({ page }) => {
  await openChatApp(page);
  const sessionId = await page.evaluate(async () => {
    const { store } = globalThis.knack!.sessions!;
    const session = await store.create({ title: 'Packing: the list?', snapshot: 'private memory snapshot' });
    await store.append(session.id, { role: 'user', content: 'What should I pack?' });
    await store.append(session.id, {
      role: 'assistant',
      content: 'Checking your skills.',
      toolCalls: [{ id: 'call_1', name: 'skill_view', arguments: '{"name":"packing-list"}' }],
    });
    await store.append(session.id, { role: 'tool', toolCallId: 'call_1', name: 'skill_view', content: '{"success":true,"content":"socks"}' });
    await store.append(session.id, { role: 'assistant', content: 'Pack **socks**.' });
    return session.id;
  });
  const history = page.getByRole('complementary', { name: 'Chat history' });
  await expect(history.getByRole('button', { name: /^Packing: the list\?/ })).toBeVisible();
  const exportButton = history.getByRole('button', { name: 'Export Packing: the list?', exact: true });
  await expect(exportButton.locator('svg')).toHaveCount(1);

  const markdown = await downloaded(page, 'Export as Markdown');
  expect(markdown.name).toBe('Packing-the-list.md');
  expect(markdown.text.startsWith('# Packing: the list?\n')).toBe(true);
  expect(markdown.text).toContain('## You\n\nWhat should I pack?');
  expect(markdown.text).toContain('**Tool call:** `skill_view` with name: “packing-list”');
  expect(markdown.text).toContain('## Tool result: `skill_view`\n\n**Succeeded**');
  expect(markdown.text).toContain('## Assistant\n\nPack **socks**.');
  expect(markdown.text).not.toContain('private memory snapshot');

  const json = await downloaded(page, 'Export as JSON');
  expect(json.name).toBe('Packing-the-list.json');
  const data = JSON.parse(json.text);
  expect(data).toMatchObject({ format: 'knack-chat', version: 1, session: { id: sessionId, title: 'Packing: the list?', messageCount: 4 } });
  expect(data.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  expect(data.messages[1].toolCalls).toEqual([{ id: 'call_1', name: 'skill_view', arguments: '{"name":"packing-list"}' }]);
  expect(json.text).not.toContain('private memory snapshot');
});
