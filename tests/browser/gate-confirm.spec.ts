/**
 * A big manual run against another machine asks first (docs/gate.md, "Triggers"), in the app's one
 * confirmation modal (ConfirmDialog.svelte). The scripted server stands in for a hosted provider:
 * Chromium resolves `gate.example` to it, so Knack sees a host that is not this machine.
 */
import { expect, test } from './fixtures';
import { openApp } from './storageHarness';
import { answerByContent, isGateReplay, openSkillDetail, seedSkill, turnOffAutomaticRuns, verdictWord } from './gateHarness';
import { useScriptedProvider } from './learningSupport';
import { chromiumLaunch } from '../../playwright.config';

const REMOTE_HOST = 'gate.example';

test.use({ launchOptions: { ...chromiumLaunch, args: [...chromiumLaunch.args, `--host-resolver-rules=MAP ${REMOTE_HOST} 127.0.0.1`] } });

test('a big run to another machine asks first: Cancel sends nothing, Verify runs it', async ({ page, scripted }) => {
  const remoteBase = scripted.baseUrl.replace('127.0.0.1', REMOTE_HOST);
  const remoteHost = new URL(remoteBase).host;
  await openApp(page);
  await useScriptedProvider(page, scripted, remoteBase);
  await turnOffAutomaticRuns(page);

  // 24 cases: 48 replays, over the 40 a manual run sends without asking.
  await seedSkill(page, 'notes-remote', 24);
  answerByContent(scripted, { 'notes-remote': 'helps' });
  await openSkillDetail(page, 'notes-remote');
  scripted.clearLog();

  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Verify notes-remote?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(new RegExp(`This run sends ≈ \\d+ requests \\(0 cached\\) to ${remoteHost.replace('.', '\\.')}\\.`));
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  expect(scripted.chatRequests()).toEqual([]);
  await expect(verdictWord(page)).toHaveText('not verified yet');

  // Esc cancels too (the native dialog), and the question comes back on the next Verify.
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  expect(scripted.chatRequests()).toEqual([]);

  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  await dialog.getByRole('button', { name: 'Verify' }).click();
  await expect(dialog).toBeHidden();
  await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
  expect(scripted.chatRequests().filter(isGateReplay).length).toBeGreaterThan(40);
});
