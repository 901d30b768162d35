/**
 * The URL of an open chat is `#/chat/<session id>`: a reload or a shared link reopens that
 * chat at its last message, back/forward move between chats, and a link to a chat that is
 * gone lands on the list with a short notice.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { messageItems, openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';
import { connectHeldResponder } from './replyControl';

const CHAT_URL = /#\/chat\/([0-9a-f-]{36})$/;

async function openChatId(page: Page): Promise<string> {
  await expect(page).toHaveURL(CHAT_URL);
  return CHAT_URL.exec(page.url())![1]!;
}

/** Reloads and waits for the services, as a person reopening the tab would. */
async function reloadApp(page: Page): Promise<void> {
  await page.reload();
  await page.waitForFunction(() => globalThis.knack?.sessions !== undefined);
}

test('a reload after a reply and mid-reply reopens the chat at its last message', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Knead for ten minutes.' });
  await sendMessage(page, 'How long do I knead dough?');
  await waitForReplyEnd(page);
  const id = await openChatId(page);

  // After a reply.
  await reloadApp(page);
  await expect(page).toHaveURL(new RegExp(`#/chat/${id}$`));
  await expect(messageItems(page)).toHaveCount(2);
  await expect(messageItems(page).nth(1)).toContainText('Knead for ten minutes.');
  await expect(messageItems(page).last()).toBeInViewport();
  await expect(page.getByRole('complementary', { name: 'Chat history' }).locator('[aria-current="true"]')).toContainText('How long do I knead dough?');

  // A longer conversation, reloaded while the next reply is still streaming.
  for (let turn = 0; turn < 6; turn++) {
    scripted.script({ text: `Answer ${turn}: ${'more detail about dough. '.repeat(12)}` });
    await sendMessage(page, `Follow-up ${turn}`);
    await waitForReplyEnd(page);
  }
  await connectHeldResponder(page);
  await sendMessage(page, 'And the proofing?');
  await expect(messageItems(page).last()).toContainText('Working on it');
  await reloadApp(page);
  await expect(page).toHaveURL(new RegExp(`#/chat/${id}$`));
  await expect(messageItems(page).first()).toContainText('How long do I knead dough?');
  await expect(messageItems(page).filter({ hasText: 'And the proofing?' })).toHaveCount(1);
  await expect(messageItems(page).last()).toBeInViewport();
  await expect(messageItems(page).first()).not.toBeInViewport();

  // It goes on from there with the configured provider.
  scripted.script({ text: 'Proof for an hour.' });
  await sendMessage(page, 'Proofing, again?');
  await expect(messageItems(page).last()).toContainText('Proof for an hour.');
  await expect(page).toHaveURL(new RegExp(`#/chat/${id}$`));
});

test('back and forward move between chats; a shared link opens its chat', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Reply about tea.' });
  await sendMessage(page, 'Tea question');
  await waitForReplyEnd(page);
  const tea = await openChatId(page);

  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(page).toHaveURL(/#\/chat$/);
  await expect(messageItems(page)).toHaveCount(0);
  scripted.script({ text: 'Reply about coffee.' });
  await sendMessage(page, 'Coffee question');
  await waitForReplyEnd(page);
  const coffee = await openChatId(page);
  expect(coffee).not.toBe(tea);

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`#/chat/${tea}$`));
  await expect(messageItems(page).first()).toContainText('Tea question');
  await page.goForward();
  await expect(page).toHaveURL(new RegExp(`#/chat/${coffee}$`));
  await expect(messageItems(page).first()).toContainText('Coffee question');

  // Choosing from the list is a step in the history too.
  const history = page.getByRole('complementary', { name: 'Chat history' });
  await history.getByRole('button', { name: /^Tea question/ }).click();
  await expect(page).toHaveURL(new RegExp(`#/chat/${tea}$`));
  await expect(messageItems(page).first()).toContainText('Tea question');
  await page.goBack();
  await expect(messageItems(page).first()).toContainText('Coffee question');

  // Another view and back by its tab keeps the open chat, and names it in the URL.
  const nav = page.getByRole('navigation', { name: 'Views' });
  await nav.getByRole('link', { name: 'Skills', exact: true }).click();
  await nav.getByRole('link', { name: 'Chat', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`#/chat/${coffee}$`));
  await expect(messageItems(page).first()).toContainText('Coffee question');

  // A link opened fresh (a new tab) lands on that chat.
  const other = await page.context().newPage();
  await openChatApp(other, `/#/chat/${tea}`);
  await expect(messageItems(other)).toHaveCount(2);
  await expect(messageItems(other).last()).toContainText('Reply about tea.');
  await other.close();
});

test('an unknown or deleted chat lands on the list with a short notice', async ({ page, scripted }) => {
  await openChatApp(page, '/#/chat/00000000-0000-4000-8000-000000000000');
  const history = page.getByRole('complementary', { name: 'Chat history' });
  await expect(history).toContainText('That chat no longer exists');
  await expect(page).toHaveURL(/#\/chat$/);
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.locator('[aria-live="polite"]')).toHaveText(/That chat no longer exists/);
  await history.getByRole('button', { name: 'Dismiss notice' }).click();
  await expect(history).not.toContainText('That chat no longer exists');

  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Short-lived.' });
  await sendMessage(page, 'Delete me later');
  await waitForReplyEnd(page);
  const id = await openChatId(page);
  // The row's icons are inline SVG (emoji show as empty boxes without an emoji font), named by their buttons.
  for (const name of ['Rename Delete me later', 'Delete Delete me later']) {
    const button = history.getByRole('button', { name, exact: true });
    await expect(button.locator('svg')).toHaveCount(1);
    await expect(button).toHaveText('');
  }
  await history.getByRole('button', { name: 'Delete Delete me later' }).click();
  await history.getByRole('group', { name: 'Delete Delete me later?' }).getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page).toHaveURL(/#\/chat$/);
  await expect(messageItems(page)).toHaveCount(0);

  // On a phone the list opens over the chat so the notice is seen.
  await page.setViewportSize({ width: 360, height: 740 });
  await openChatApp(page, `/#/chat/${id}`);
  await expect(history).toBeVisible();
  await expect(history).toContainText('That chat no longer exists');
  await expect(page).toHaveURL(/#\/chat$/);
});
