/**
 * Write approval from Settings (SPEC §8.4): with "Ask for every write" a model's skill write
 * is staged, nothing reaches OPFS until the user approves it in Pending, and the setting
 * survives a reload.
 */
import { expect, test } from '@playwright/test';
import { callTool, openSkills, skillMd } from './skillHarness';

test('skill write approval set in Settings stages writes until approved in Pending', async ({ page }) => {
  await openSkills(page);
  await page.getByRole('button', { name: 'Settings' }).click();
  const approval = page.getByLabel('Approve skill writes');
  await approval.selectOption('all');
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();

  const staged = await callTool(page, 'skill_manage', { action: 'create', name: 'tea-brewing', content: skillMd('tea-brewing', 'Use when brewing tea.') });
  expect(staged.result).toMatchObject({ success: true, staged: true });
  expect(await page.evaluate(() => globalThis.knack!.files!.exists('skills/tea-brewing/SKILL.md'))).toBe(false);

  await page.goto('/#/pending');
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect.poll(() => page.evaluate(() => globalThis.knack!.files!.exists('skills/tea-brewing/SKILL.md'))).toBe(true);

  await page.reload();
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByLabel('Approve skill writes')).toHaveValue('all');
  await expect(page.getByLabel('Approve memory writes')).toHaveValue('off');
  await expect(page.getByRole('checkbox', { name: /Scan every skill the agent writes/ })).toBeChecked();
});
