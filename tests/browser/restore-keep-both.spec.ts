/**
 * Restore's "keep both" does what it says (docs/storage.md, "Backup and restore"): a skill that
 * collides is restored beside the original as `<name>-2` with the backup's history and
 * verification results made its own, while the original keeps this profile's; the choice's hint
 * says that a setting keeps this profile's value. Real OPFS and IndexedDB, through Settings.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';

async function openSettings(page: Page): Promise<void> {
  await page.goto('/#/settings');
  await page.waitForFunction(async () => Boolean(globalThis.knack?.app && (await globalThis.knack.ready)));
  await expect(page.getByRole('button', { name: 'Back up' })).toBeVisible();
}

type Row = { id?: string; name?: string; skill?: string; verdict_id?: string | null; before?: { path: string }[] };
const records = (page: Page, table: string) => page.evaluate((name) => globalThis.knack!.db!.getAll(name as 'usage') as Promise<Row[]>, table);

test('keep both restores a colliding skill as name-2 with its own history and verdicts', async ({ page }) => {
  await openSettings(page);
  await page.evaluate(async () => {
    const k = globalThis.knack!;
    const path = 'skills/tools/alpha/SKILL.md';
    await k.files!.write(path, '---\nname: alpha\ndescription: Use for alpha.\n---\n\nFrom the backup.\n');
    await k.records!('usage').put('alpha', { name: 'alpha', use_count: 4, verdict_id: 'v-1' });
    await k.records!('ledger').put('e-1', { id: 'e-1', ts: '2026-12-01T00:00:00Z', at: 1, actor: 'user', action: 'create', skill: 'alpha', before: [], after: [{ path, hash: 'h' }], evidence: {} });
    await k.records!('verdicts').put('v-1', { id: 'v-1', skill: 'alpha', verdict: { verdict: 'promoted' }, status: 'applied' });
  });
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Back up' }).click();
  const backup = await readFile((await (await downloading).path())!);

  // This profile's alpha changes afterwards, with its own history.
  await page.evaluate(async () => {
    const k = globalThis.knack!;
    await k.files!.write('skills/tools/alpha/SKILL.md', '---\nname: alpha\ndescription: Use for alpha.\n---\n\nChanged here.\n');
    await k.records!('ledger').put('e-2', { id: 'e-2', ts: '2026-12-01T01:00:00Z', at: 2, actor: 'user', action: 'patch', skill: 'alpha', before: [], after: [], evidence: {} });
  });

  await page.getByLabel('Backup file to restore').setInputFiles({ name: 'profile.knackbackup', mimeType: 'application/zip', buffer: backup });
  const preview = page.getByRole('region', { name: 'Restore preview' });
  const choice = preview.getByRole('combobox', { name: 'When something collides' });
  await choice.selectOption({ label: 'Keep both' });
  await expect(choice).toHaveAccessibleDescription(/as name-2 with its own history and verification results.*A setting holds one value: yours stays\./);
  await preview.getByRole('button', { name: 'Restore now' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Restored/ })).toBeVisible();

  const copyText = await page.evaluate(() => globalThis.knack!.files!.readText('skills/tools/alpha-2/SKILL.md'));
  expect(copyText).toContain('From the backup.');
  expect(await page.evaluate(() => globalThis.knack!.files!.readText('skills/tools/alpha/SKILL.md'))).toContain('Changed here.');

  const ledger = await records(page, 'ledger');
  expect(ledger.filter((entry) => entry.skill === 'alpha').map((entry) => entry.id).sort()).toEqual(['e-1', 'e-2']);
  const copied = ledger.filter((entry) => entry.skill === 'alpha-2');
  expect(copied).toHaveLength(1);
  expect(copied[0]!.id).not.toBe('e-1');
  expect(copied[0]).toMatchObject({ after: [{ path: 'skills/tools/alpha-2/SKILL.md' }] });
  const verdicts = await records(page, 'verdicts');
  const copyVerdict = verdicts.find((verdict) => verdict.skill === 'alpha-2');
  expect(copyVerdict?.id).toBeDefined();
  expect(copyVerdict!.id).not.toBe('v-1');
  const usage = await records(page, 'usage');
  expect(usage.find((record) => record.name === 'alpha-2')).toMatchObject({ use_count: 4, verdict_id: copyVerdict!.id });
});
