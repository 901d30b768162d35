import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync, type Zippable } from 'fflate';

// Real skills open fast (docs/skill-tools.md, "Opening a large skill"): the text and the actions
// of a skill are usable while the work over its files is still pending. The listing of the
// skill's folder on the real OPFS is held by a signal (an init script makes the directory
// iterator of that one folder wait for a promise the test resolves), never by a sleep.

const FOLDER = 'big-manual';
const FILES = 45;

function bigSkillArchive(): Buffer {
  const tree: Zippable = {
    [`${FOLDER}/SKILL.md`]: strToU8(`---\nname: ${FOLDER}\ndescription: Use when the big manual applies.\n---\n\n# Big manual\n\n1. Read the chapter that matches the question.\n`),
  };
  for (let i = 1; i < FILES; i++) tree[`${FOLDER}/references/chapter-${String(i).padStart(2, '0')}.md`] = strToU8(`# Chapter ${i}\n\n${'A paragraph of the manual.\n'.repeat(50)}`);
  return Buffer.from(zipSync(tree));
}

/** Holds every listing of the folder named `folder` until `release()`; `waiting` counts held listings. */
async function installListingHold(page: Page): Promise<void> {
  await page.addInitScript(() => {
    type Hold = { folder: string | null; waiting: number; release: () => void };
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold: Hold = { folder: null, waiting: 0, release: () => release() };
    (globalThis as unknown as { __listingHold: Hold }).__listingHold = hold;
    const proto = FileSystemDirectoryHandle.prototype as unknown as { entries: (this: FileSystemDirectoryHandle) => AsyncIterableIterator<unknown> };
    const entries = proto.entries;
    proto.entries = function (this: FileSystemDirectoryHandle) {
      const iterator = entries.call(this);
      if (hold.folder !== this.name) return iterator;
      hold.waiting += 1;
      return (async function* () {
        await released;
        yield* iterator;
      })();
    };
  });
}

test('a skill shows its text with its actions enabled while its file listing and history are still pending', async ({ page }) => {
  await installListingHold(page);
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
  await page.getByLabel('Skill archive to import').setInputFiles({ name: 'big.zip', mimeType: 'application/zip', buffer: bigSkillArchive() });
  await page.getByRole('dialog').getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'big.zip: Imported 1, skipped 0.' })).toBeVisible();

  // From now on, listing the skill's folder waits for the test.
  await page.evaluate((folder) => ((globalThis as unknown as { __listingHold: { folder: string } }).__listingHold.folder = folder), FOLDER);
  await page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: new RegExp(`^${FOLDER}\\b`) }).click();
  await page.waitForFunction(() => (globalThis as unknown as { __listingHold: { waiting: number } }).__listingHold.waiting > 0);

  await expect(page.getByTestId('skill-body')).toContainText('Read the chapter that matches the question.');
  const actions = page.getByRole('group', { name: 'Skill actions' });
  for (const action of ['Edit', 'Pin', 'Archive', 'Delete', 'Verify', 'Export']) await expect(actions.getByRole('button', { name: action, exact: true })).toBeEnabled();
  await expect(page.getByText('Listing the files…')).toBeVisible();
  await expect(page.getByText('Reading the history…')).toBeVisible();

  await page.evaluate(() => (globalThis as unknown as { __listingHold: { release: () => void } }).__listingHold.release());
  const files = page.getByRole('list', { name: 'Files of this skill' }).getByRole('button');
  await expect(files).toHaveCount(FILES);
  await expect(page.getByText('Listing the files…')).toBeHidden();
  // The import touched 45 files: its diffs are read on demand, not when the skill opens.
  const entry = page.getByRole('list', { name: 'History entries' }).getByRole('listitem');
  await expect(entry).toHaveCount(1);
  await entry.getByRole('button', { name: `Show changes (${FILES} files)` }).click();
  await expect(entry.locator('figcaption code')).toHaveCount(FILES);
  await expect(entry.locator('figcaption code').first()).toHaveText('SKILL.md');
});
