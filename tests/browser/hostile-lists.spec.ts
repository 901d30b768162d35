/**
 * Lists fed repeatable data, on the production build: a skill named like a built-in command in
 * the slash menu, two tool calls with one id in a reply (live, after a reload, and as stored
 * before ids were made unique), a zip holding one file three times; and the error boundary
 * around each view, forced with a conversation the chat cannot draw.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { messageItems, openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';
import { zipWithRepeats } from '../fixtures/repeatedZip';

const skillMd = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n1. Do the thing.\n`;
const BOUNDARY_TEXT = /This view hit an error/;

/** Collects errors nothing caught (a crashed list throws one) and what the boundaries reported. */
function watchErrors(page: Page): { uncaught: string[]; reported: string[] } {
  const seen = { uncaught: [] as string[], reported: [] as string[] };
  page.on('pageerror', (error) => seen.uncaught.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('view hit an error')) seen.reported.push(message.text());
  });
  return seen;
}

async function createSkill(page: Page, name: string, description: string): Promise<void> {
  await page.evaluate(
    async ({ name, content }) => {
      const result = JSON.parse(await globalThis.knack!.skills!.registry.dispatch('skill_manage', { action: 'create', name, content }, { origin: 'user', readPaths: new Set() }));
      if (!result.success) throw new Error(result.error);
    },
    { name, content: skillMd(name, description) },
  );
}

const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name, exact: true });

test('a skill named like a built-in command: the slash menu lists /memory once and keeps working', async ({ page }) => {
  const errors = watchErrors(page);
  await openChatApp(page);
  await createSkill(page, 'memory', 'Use when the user asks about a skill called memory.');
  await createSkill(page, 'meal-plan', 'Use when planning meals.');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/');
  const menu = page.getByRole('listbox', { name: 'Commands and skills' });
  await expect(menu.getByRole('option', { name: /\/meal-plan/ })).toBeVisible();
  await box.pressSequentially('m');
  await expect(menu.getByRole('option')).toHaveText([/^\/memory\s*Open memory$/, /^\/meal-plan\s*Use when planning meals\.$/]);
  await box.press('ArrowDown');
  await expect(menu.getByRole('option', { name: /\/meal-plan/ })).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  await expect(box).toHaveValue('/meal-plan ');
  await expect(menu).toHaveCount(0);

  // The built-in keeps its meaning: /memory opens the Memory view.
  await box.fill('/memory');
  await expect(menu.getByRole('option')).toHaveCount(1);
  await box.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();
  await expect(page.getByText(BOUNDARY_TEXT)).toHaveCount(0);
  expect(errors).toEqual({ uncaught: [], reported: [] });
});

test('two tool calls with the same id in one reply: each gets its own result, the turn ends, the chat reopens after a reload', async ({ page, scripted }) => {
  const errors = watchErrors(page);
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script(
    {
      toolCalls: [
        { id: 'dup', name: 'skills_list', arguments: {} },
        { id: 'dup', name: 'session_search', arguments: { query: 'kettle' } },
      ],
    },
    { text: 'Both calls answered.' },
  );
  await sendMessage(page, 'List my skills and search my chats');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('Both calls answered.');
  await waitForReplyEnd(page);
  await expect(reply.locator('details')).toHaveCount(2);
  await expect(reply.locator('details').nth(0).locator('summary')).toContainText('skills_list');
  await expect(reply.locator('details').nth(1).locator('summary')).toContainText('session_search');

  // The model got back one result per call, paired by distinct ids.
  const sent = scripted.chatRequests()[1]!.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  const assistant = sent.find((message) => message.tool_calls)!;
  expect(assistant.tool_calls!.map((call) => call.id)).toEqual(['dup', 'dup_2']);
  expect(sent.filter((message) => message.role === 'tool').map((message) => message.tool_call_id)).toEqual(['dup', 'dup_2']);

  await page.reload();
  await openChatApp(page);
  await page.getByRole('complementary', { name: 'Chat history' }).getByRole('button', { name: /^List my skills and search my chats/ }).click();
  await expect(messageItems(page).nth(1)).toContainText('Both calls answered.');
  await expect(messageItems(page).nth(1).locator('details')).toHaveCount(2);

  await page.getByRole('button', { name: 'New chat' }).click();
  scripted.script({ text: 'A fresh chat answers.' });
  await sendMessage(page, 'Hello again');
  await expect(messageItems(page).nth(1)).toContainText('A fresh chat answers.');
  await waitForReplyEnd(page);
  expect(errors).toEqual({ uncaught: [], reported: [] });
});

test('a chat stored with repeated tool-call ids (before they were made unique) opens, each call with its own result', async ({ page }) => {
  const errors = watchErrors(page);
  await openChatApp(page);
  await page.evaluate(async () => {
    const { store } = globalThis.knack!.sessions!;
    const session = await store.create({ title: 'Stored with repeated ids' });
    await store.append(session.id, { role: 'user', content: 'Stored with repeated ids' });
    await store.append(session.id, {
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: 'dup', name: 'skills_list', arguments: '{}' },
        { id: 'dup', name: 'session_search', arguments: '{"query":"kettle"}' },
      ],
    });
    await store.append(session.id, { role: 'tool', content: '{"success":true,"which":"first-result"}', toolCallId: 'dup', name: 'skills_list' });
    await store.append(session.id, { role: 'tool', content: '{"success":false,"error":"second-result"}', toolCallId: 'dup', name: 'session_search' });
    await store.append(session.id, { role: 'assistant', content: 'Stored answer.' });
  });
  await page.reload();
  await openChatApp(page);
  await page.getByRole('complementary', { name: 'Chat history' }).getByRole('button', { name: /^Stored with repeated ids/ }).click();
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('Stored answer.');
  const details = reply.locator('details');
  await expect(details).toHaveCount(2);
  await details.nth(0).locator('summary').click();
  await details.nth(1).locator('summary').click();
  await expect(details.nth(0)).toContainText('first-result');
  await expect(details.nth(1)).toContainText('second-result');
  await expect(details.nth(0)).not.toContainText('second-result');
  expect(errors).toEqual({ uncaught: [], reported: [] });
});

test('a zip holding the same file three times opens the import review, imports the first copy and lists the repeats', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
  const archive = zipWithRepeats([
    ['tea/SKILL.md', skillMd('tea', 'Use for the first tea.')],
    ['tea/SKILL.md', skillMd('tea', 'Use for the second tea.')],
    ['tea/SKILL.md', skillMd('tea', 'Use for the third tea.')],
  ]);
  await page.getByLabel('Skill archive to import').setInputFiles({ name: 'repeats.zip', mimeType: 'application/zip', buffer: Buffer.from(archive) });
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: 'Import skills from repeats.zip' })).toBeVisible();
  const refused = dialog.getByRole('list', { name: 'Refused entries' }).getByRole('listitem');
  await expect(refused).toHaveCount(2);
  await expect(refused.first()).toContainText('only the first copy is imported');
  await expect(dialog.getByRole('list', { name: 'Warnings for tea' }).getByRole('listitem')).toHaveText([/\(2 times\)$/]);
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /^tea\b/ })).toContainText('Use for the first tea.');
  expect(errors).toEqual({ uncaught: [], reported: [] });
});

test('a render error in one view shows the boundary message; the other views keep working and Try again recovers', async ({ page }) => {
  const errors = watchErrors(page);
  await openChatApp(page);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  // A conversation line the chat list cannot draw (tool calls that are not a list).
  await page.evaluate(() => {
    const chat = (globalThis as unknown as { knackUi: { chat: { lines: unknown[] } } }).knackUi.chat;
    chat.lines = [{ id: 'bad', seq: 0, role: 'assistant', content: 'x', toolCalls: 42 }];
  });
  const alert = page.getByRole('alert').filter({ hasText: BOUNDARY_TEXT });
  await expect(alert).toContainText('Reload or go to another view.');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveCount(0);
  await expect.poll(() => errors.reported.length).toBeGreaterThan(0);

  // Navigation and the other views still work.
  await navLink(page, 'Skills').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Skills' })).toBeVisible();
  await expect(page.getByText(BOUNDARY_TEXT)).toHaveCount(0);
  await navLink(page, 'Memory').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Memory' })).toBeVisible();

  // Back in the chat the bad line is still there, so the message is too; once it is gone, Try again draws the view.
  await navLink(page, 'Chat').click();
  await expect(alert).toBeVisible();
  await page.evaluate(() => {
    (globalThis as unknown as { knackUi: { chat: { lines: unknown[] } } }).knackUi.chat.lines = [];
  });
  await alert.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect(page.getByText(BOUNDARY_TEXT)).toHaveCount(0);
  expect(errors.uncaught).toEqual([]);
});
