/**
 * An open Pending view follows writes staged after it opened (SPEC §8.4): a chat skill write
 * that approval holds back publishes `pending-changed` like a memory write does, so the view
 * shows it without a reload or a visit elsewhere. The view opens FIRST, the write is staged
 * SECOND.
 */
import { test, expect } from './fixtures';
import { openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';
import { skillMd } from './skillHarness';

const pendingWrites = (page: import('@playwright/test').Page) => page.getByRole('list', { name: 'Writes waiting for approval' }).getByRole('article');

test('a chat skill write staged while Pending is open appears in that view', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  await page.evaluate(() => globalThis.knack!.skills!.settings.update({ writeApproval: 'all' }));

  // A second tab with the Pending view open before anything is staged.
  const pending = await page.context().newPage();
  await openChatApp(pending, '/#/pending');
  await expect(pending.getByText('Nothing waiting for approval')).toBeVisible();

  scripted.script(
    { toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name: 'tea-brewing', content: skillMd('tea-brewing', 'Use when brewing loose-leaf tea.') } }] },
    { text: 'Staged the tea-brewing skill for your approval.' },
  );
  await sendMessage(page, 'Remember how I brew tea.');
  await waitForReplyEnd(page);
  expect(await page.evaluate(() => globalThis.knack!.files!.exists('skills/tea-brewing/SKILL.md'))).toBe(false);

  // Both tabs' open views list it: the one where the chat ran, and the other tab.
  await expect(pendingWrites(pending)).toHaveCount(1);
  await expect(pendingWrites(pending).getByRole('heading')).toContainText("create 'tea-brewing'");
  await pending.close();
});

test('a foreground skill write staged in this tab appears in its open Pending view', async ({ page }) => {
  await openChatApp(page, '/#/pending');
  await page.evaluate(() => globalThis.knack!.skills!.settings.update({ writeApproval: 'all' }));
  await expect(page.getByText('Nothing waiting for approval')).toBeVisible();

  const staged = await page.evaluate(
    async (content) =>
      JSON.parse(await globalThis.knack!.skills!.registry.dispatch('skill_manage', { action: 'create', name: 'coffee-grinding', content }, { origin: 'foreground', readPaths: new Set() })) as { success: boolean; staged?: boolean },
    skillMd('coffee-grinding', 'Use when grinding coffee beans.'),
  );
  expect(staged).toMatchObject({ success: true, staged: true });
  await expect(pendingWrites(page)).toHaveCount(1);
  await expect(pendingWrites(page).getByRole('heading')).toContainText("create 'coffee-grinding'");
});
