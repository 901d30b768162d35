/**
 * The curator (SPEC §11) and the user's side of learning (SPEC §8.4, §13): curator runs in the
 * review worker with a controlled clock, archive and restore and a dry run in the Skills view,
 * every run in the Activity view, and the Pending view approving and rejecting staged writes.
 */
import { expect, test, type Page } from '@playwright/test';
import type { CuratorActivity } from '../../src/review/activity';
import { activity, skillMd } from './learningSupport';
import { openApp } from './storageHarness';

const DAY = 86_400_000;

async function openWithServices(page: Page, url = '/'): Promise<void> {
  await openApp(page, url);
  await page.waitForFunction(() => globalThis.knack?.skills !== undefined && globalThis.knack?.memory !== undefined);
}

async function createSkill(page: Page, name: string, origin: 'review' | 'user', description = `Use when testing the curator with ${name}.`): Promise<void> {
  const result = await page.evaluate(
    async ({ name, origin, content }) =>
      JSON.parse(await globalThis.knack!.skills!.registry.dispatch('skill_manage', { action: 'create', name, content }, { origin, readPaths: new Set() })) as { success: boolean },
    { name, origin, content: skillMd(name, description, 'Step one.') },
  );
  expect(result.success).toBe(true);
}

async function runCurator(page: Page, offsetDays: number): Promise<CuratorActivity> {
  return page.evaluate(
    (at) => globalThis.knackUi!.learning.runCurator({ dryRun: false, now: new Date(at) }),
    Date.now() + offsetDays * DAY,
  );
}

const usageState = (page: Page, name: string) => page.evaluate(async (n) => (await globalThis.knack!.skills!.engine.usage.find(n))?.state ?? null, name);
const inCatalog = (page: Page, name: string) => page.evaluate((n) => globalThis.knack!.skills!.engine.catalog.findByName(n).map((e) => e.dir), name);

test('with a controlled clock the curator marks an agent skill stale, then archives it; Restore in the Skills view brings it back', async ({ page }) => {
  await openWithServices(page);
  await createSkill(page, 'weekly-digest', 'review');
  await createSkill(page, 'my-notes', 'user');

  const stale = await runCurator(page, 31);
  expect(stale).toMatchObject({ kind: 'curator', mode: 'manual', status: 'done', transitions: [{ name: 'weekly-digest', from: 'active', to: 'stale' }] });
  expect(await usageState(page, 'weekly-digest')).toBe('stale');
  expect(await inCatalog(page, 'weekly-digest')).toEqual(['skills/weekly-digest']);

  const archived = await runCurator(page, 91);
  expect(archived).toMatchObject({ status: 'done', transitions: [{ name: 'weekly-digest', from: 'stale', to: 'archived' }] });
  expect(await usageState(page, 'weekly-digest')).toBe('archived');
  // The worker archived it; this tab's catalogue follows from the change event.
  await expect.poll(() => inCatalog(page, 'weekly-digest')).toEqual([]);
  expect(await page.evaluate(() => globalThis.knack!.files!.readText('skills/.archive/weekly-digest/SKILL.md'))).toContain('name: weekly-digest');
  // The user's own skill is never the curator's business.
  expect(await usageState(page, 'my-notes')).toBe('active');
  expect(await inCatalog(page, 'my-notes')).toEqual(['skills/my-notes']);

  await page.goto('/#/skills');
  const archivedList = page.getByRole('list', { name: 'Archived skills' });
  await expect(archivedList.getByText('weekly-digest')).toBeVisible();
  await archivedList.getByRole('button', { name: 'Restore weekly-digest' }).click();
  await expect(page.getByText('Restored weekly-digest.')).toBeVisible();
  await expect(page.getByRole('list', { name: 'Archived skills' })).toHaveCount(0);
  expect(await usageState(page, 'weekly-digest')).toBe('active');
  expect(await inCatalog(page, 'weekly-digest')).toEqual(['skills/weekly-digest']);
  expect(await page.evaluate(() => globalThis.knack!.files!.readText('skills/.archive/weekly-digest/SKILL.md'))).toBeNull();

  // Both runs are in the Activity view, newest first.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Activity' }).click();
  const runs = page.getByRole('article', { name: 'Curator run' });
  await expect(runs).toHaveCount(2);
  await expect(runs.nth(0).getByText('weekly-digest: stale → archived')).toBeVisible();
  await expect(runs.nth(1).getByText('weekly-digest: active → stale')).toBeVisible();
});

test('the Dry run button shows what the curator would change and changes nothing', async ({ page }) => {
  await openWithServices(page);
  await createSkill(page, 'old-export-steps', 'review');
  await createSkill(page, 'fresh-export-steps', 'review');
  // Made 40 days ago and never used since.
  await page.evaluate(async (createdAt) => {
    const usage = globalThis.knack!.records!<Record<string, unknown>>('usage');
    const record = (await usage.get('old-export-steps'))!;
    await usage.put('old-export-steps', { ...record, created_at: createdAt });
  }, new Date(Date.now() - 40 * DAY).toISOString());

  await page.goto('/#/skills');
  await page.getByRole('button', { name: 'Dry run' }).click();
  const changes = page.getByRole('list', { name: 'What the curator would change' });
  await expect(changes).toBeVisible();
  await expect(changes.getByRole('listitem')).toHaveText(['old-export-steps would be marked stale']);
  await expect(page.getByText('Nothing was changed.')).toBeVisible();
  expect(await usageState(page, 'old-export-steps')).toBe('active');
  expect(await usageState(page, 'fresh-export-steps')).toBe('active');
  const dryRuns = (await activity(page)).filter((r): r is CuratorActivity => r.kind === 'curator' && r.mode === 'dry-run' && r.status === 'done');
  expect(dryRuns.map((r) => r.transitions)).toEqual([[{ name: 'old-export-steps', from: 'active', to: 'stale' }]]);
});

test('Archive in the skill detail moves a skill out of the index as the user; the archived detail offers Restore', async ({ page }) => {
  await openWithServices(page);
  await createSkill(page, 'draft-replies', 'user');
  await page.goto('/#/skills');
  await page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /draft-replies/ }).click();
  await page.getByRole('group', { name: 'Skill actions' }).getByRole('button', { name: 'Archive' }).click();
  await expect(page.getByText('Archived draft-replies: it is out of the skill index until you restore it.')).toBeVisible();
  expect(await usageState(page, 'draft-replies')).toBe('archived');
  expect(await inCatalog(page, 'draft-replies')).toEqual([]);
  const ledger = await page.evaluate(async () => (await globalThis.knack!.skills!.engine.ledger.list('draft-replies')).map((e) => [e.action, e.actor]));
  expect(ledger).toContainEqual(['archive', 'user']);

  await page.getByRole('group', { name: 'Skill actions' }).getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByText('Restored draft-replies.')).toBeVisible();
  expect(await usageState(page, 'draft-replies')).toBe('active');
  expect(await inCatalog(page, 'draft-replies')).toEqual(['skills/draft-replies']);
});

test('Pending lists staged writes with gist, reason, origin and diff; Approve replays through the tool, Reject discards', async ({ page }) => {
  await openWithServices(page);
  // Approval on for every memory and skill write.
  await page.evaluate(async () => {
    const k = globalThis.knack!;
    await k.records!('settings').put('memory', { writeApproval: 'all' });
    k.changes!.publish({ type: 'settings-changed', keys: ['memory'] });
    await k.skills!.settings.update({ writeApproval: 'all' });
  });
  await expect
    .poll(() => page.evaluate(() => globalThis.knack!.memory!.settings().writeApproval))
    .toBe('all');
  const staged = await page.evaluate(async (content) => {
    const k = globalThis.knack!;
    const review = () => ({ origin: 'review' as const, readPaths: new Set<string>() });
    const memory = await k.memory!.tool.run({ action: 'add', target: 'user', content: 'Prefers metric units.' }, review());
    const skill = JSON.parse(await k.skills!.registry.dispatch('skill_manage', { action: 'create', name: 'unit-conversion', content }, review()));
    return { memory, skill };
  }, skillMd('unit-conversion', 'Use when converting between unit systems.', 'Convert to metric first.'));
  expect(staged.memory).toMatchObject({ success: true, staged: true });
  expect(staged.skill).toMatchObject({ success: true, staged: true });

  // Reachable from the navigation.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Pending' }).click();
  await expect(page).toHaveURL(/#\/pending$/);
  const writes = page.getByRole('list', { name: 'Writes waiting for approval' }).getByRole('article');
  await expect(writes).toHaveCount(2);
  const memoryWrite = writes.filter({ hasText: 'Prefers metric units.' });
  await expect(memoryWrite.getByRole('heading')).toHaveText('add to USER.md: "Prefers metric units."');
  await expect(memoryWrite.getByText('the background review · memory', { exact: false })).toBeVisible();
  await expect(memoryWrite.locator('pre')).toContainText('+ Prefers metric units.');
  const skillWrite = writes.filter({ hasText: "create 'unit-conversion'" });
  await expect(skillWrite.locator('pre')).toContainText('Convert to metric first.');
  await expect(skillWrite.getByText(/approval/i).first()).toBeVisible();

  await memoryWrite.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Approved: add to USER.md' })).toBeVisible();
  await skillWrite.getByRole('button', { name: 'Reject' }).click();
  await expect(page.getByRole('status').filter({ hasText: "Rejected: create 'unit-conversion'" })).toBeVisible();
  await expect(page.getByText('Nothing waiting for approval')).toBeVisible();

  expect(await page.evaluate(() => globalThis.knack!.files!.readText('memories/USER.md'))).toContain('Prefers metric units.');
  expect(await inCatalog(page, 'unit-conversion')).toEqual([]);
  expect(await page.evaluate(async () => (await globalThis.knack!.skills!.engine.pending.list()).length)).toBe(0);
});

test('the scheduled check never runs in the first interval, then runs after 7 days only when the app has been idle for 2 hours', async ({ page }) => {
  await openWithServices(page);
  await createSkill(page, 'quarterly-close', 'review');
  const check = () => page.evaluate(async () => (await globalThis.knackUi!.learning.checkCurator())?.mode ?? null);
  const state = () => page.evaluate(() => globalThis.knack!.records!<{ lastRunAt: string | null; runCount: number }>('settings').get('curatorState'));
  const setLastInput = (agoMs: number) => page.evaluate((at) => localStorage.setItem('knack.lastInputAt', String(at)), Date.now() - agoMs);

  // First check after install: the clock starts, nothing runs.
  await setLastInput(3 * 3_600_000);
  expect(await check()).toBeNull();
  const seeded = await state();
  expect(seeded).toMatchObject({ runCount: 0 });
  expect(Date.now() - Date.parse(seeded!.lastRunAt!)).toBeLessThan(60_000);
  expect(await check()).toBeNull();

  // Eight days later (the seeded run moved back), but someone typed 10 minutes ago: no run.
  await page.evaluate(async (lastRunAt) => {
    const settings = globalThis.knack!.records!<Record<string, unknown>>('settings');
    await settings.put('curatorState', { ...(await settings.get('curatorState')), lastRunAt });
  }, new Date(Date.now() - 8 * DAY).toISOString());
  await setLastInput(10 * 60_000);
  expect(await check()).toBeNull();

  // Idle for 3 hours: it runs in the worker and is recorded as a scheduled run.
  await setLastInput(3 * 3_600_000);
  expect(await check()).toBe('scheduled');
  expect(await state()).toMatchObject({ runCount: 1 });
  const runs = (await activity(page)).filter((r): r is CuratorActivity => r.kind === 'curator');
  expect(runs.map((r) => [r.mode, r.status, r.outcome])).toEqual([['scheduled', 'done', expect.stringMatching(/^auto: /)]]);
  // Right after a run, the next check waits another week.
  expect(await check()).toBeNull();
});
