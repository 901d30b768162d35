/**
 * The skill router at Send (docs/gate.md, "Router"): a message sent at once, before the
 * composer's chip could appear, is still loaded with the router's pick for its text; a chip
 * the user removed stays removed, even when the pick is computed at send.
 */
import type { Locator } from '@playwright/test';
import { expect, test } from './fixtures';
import { openLearningApp, waitForReply } from './learningSupport';
import { seedChangelogSkill } from './reachHarness';
import type { ScriptedServer } from '../fixtures/scriptedServer';

const LOADED = '<skill name=\\"changelog-clear\\">';

/** Puts `text` in the Message box and presses Enter in the same task: no timer can run between. */
async function fillAndSendAtOnce(box: Locator, text: string): Promise<void> {
  await box.evaluate((element, value) => {
    const input = element as HTMLTextAreaElement;
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  }, text);
}

/** The messages of the turn's first request, as sent. */
const sentMessages = (scripted: ScriptedServer) => JSON.stringify(scripted.chatRequests()[0]!.body.messages);

test('a message sent at once is loaded with the router\'s pick; a removed chip stays removed', async ({ page, scripted }) => {
  scripted.setFallback({ text: 'Noted.' });
  await openLearningApp(page, scripted);
  await seedChangelogSkill(page, 'changelog-clear', 'Use when drafting a changelog entry for a build.', 2);
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Skill router' }).selectOption('on');
  await expect(page.getByRole('combobox', { name: 'Skill router' })).toHaveValue('on');
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
  const box = page.getByRole('textbox', { name: 'Message' });
  const chip = page.getByRole('status').filter({ hasText: 'Using skill changelog-clear — matched your request' });

  await test.step('filled and sent at once: the request carries the skill', async () => {
    scripted.clearLog();
    await fillAndSendAtOnce(box, 'Please draft the changelog entry for build 301.');
    await waitForReply(page);
    expect(sentMessages(scripted)).toContain(LOADED);
  });

  await test.step('the chip removed, the text changed and sent at once: the request goes without it', async () => {
    await page.getByRole('button', { name: 'New chat' }).click();
    await box.fill('Please draft the changelog entry for build 302.');
    await expect(chip).toBeVisible();
    await page.getByRole('button', { name: 'Remove skill changelog-clear' }).click();
    await expect(chip).toHaveCount(0);
    scripted.clearLog();
    await fillAndSendAtOnce(box, 'Please draft the changelog entry for build 303.');
    await waitForReply(page);
    expect(sentMessages(scripted)).not.toContain('<skill name=');
  });
});
