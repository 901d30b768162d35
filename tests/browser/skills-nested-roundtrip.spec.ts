import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { unzipSync } from 'fflate';
import { readCentralDirectory } from '../../src/skills/zipArchive';
import { nestedRepoFiles, nestedRepoZip, nestedSkillZip } from '../fixtures/nestedSkillRepo';

// Nothing lost on a round trip (docs/skill-tools.md, "Nested skills on import"), through the
// Skills view of the production build on the real OPFS and IndexedDB: a repository-root skill
// whose folders hold nested skills with repeated names is imported, then exported, and every
// file comes back byte for byte with its mode, although one nested skill was imported on its own first.

async function importArchive(page: Page, name: string, bytes: Uint8Array): Promise<void> {
  await page.getByLabel('Skill archive to import').setInputFiles({ name, mimeType: 'application/zip', buffer: Buffer.from(bytes) });
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByRole('heading', { name: `Import skills from ${name}` })).toBeVisible();
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  // A clean import closes the dialog and says what it did.
  await expect(page.getByRole('status').filter({ hasText: `${name}: Imported 1, skipped 0.` })).toBeVisible();
  await expect(dialog).toBeHidden();
}

test('a repository-root skill with nested skills exports every file it was imported with, bytes and modes', async ({ page }) => {
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();

  await importArchive(page, 'lint.zip', nestedSkillZip('skills/python/lint', 'lint'));
  await importArchive(page, 'toolkit-main.zip', nestedRepoZip(''));

  await page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /^toolkit\b/ }).click();
  await expect(page.getByRole('heading', { level: 2, name: 'toolkit' })).toBeVisible();
  // The export checks say what other agents think of nested SKILL.md files; the user downloads anyway.
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page.getByRole('region', { name: 'Export checks found problems' })).toContainText('More than one SKILL.md');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download toolkit.zip anyway' }).click()]);
  expect(download.suggestedFilename()).toBe('toolkit.zip');
  const bytes = new Uint8Array(await readFile((await download.path())!));
  const directory = readCentralDirectory(bytes);
  if ('error' in directory) throw new Error(directory.error);
  const contents = unzipSync(bytes);
  const modes = Object.fromEntries(directory.entries.filter((e) => !e.isDirectory).map((e) => [e.name, e.unixMode]));

  const original = nestedRepoFiles();
  expect(Object.keys(modes).sort()).toEqual(original.map((file) => `toolkit/${file.path}`).sort());
  for (const file of original) {
    expect(modes[`toolkit/${file.path}`], file.path).toBe(0o100000 | file.mode);
    expect([...contents[`toolkit/${file.path}`]!], file.path).toEqual([...file.bytes]);
  }
});
