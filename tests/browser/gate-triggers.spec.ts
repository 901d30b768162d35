/**
 * Automatic gate runs are queued from the first write after the app opens (docs/gate.md,
 * "Triggers"): the tab's learning loop exists from start-up, not from its first review or
 * curator check. The write goes through the real skill tools into OPFS; the queue is read
 * through the console handle, with no clock involved.
 */
import { expect, test } from './fixtures';
import { callTool, openSkills, skillMd } from './skillHarness';

test('a skill written right after start-up queues its automatic gate run', async ({ page }) => {
  await openSkills(page);
  const created = await callTool(page, 'skill_manage', { action: 'create', name: 'early-write', content: skillMd('early-write') });
  expect(created.result.success).toBe(true);
  await page.waitForFunction(() => globalThis.knackUi?.learning.isGatePending('early-write') === true);
  expect(await page.evaluate(() => globalThis.knackUi!.learning.isGatePending('never-written'))).toBe(false);
});
