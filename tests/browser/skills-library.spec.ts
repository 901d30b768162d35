import { expect, test, type Page } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';

// The Skills view on skills as people really ship them, against the production build on the
// real OPFS and IndexedDB of a fresh context per test: files outside the support folders,
// two files of the same name, and a nested skill (its own skill, linked from its parent).

const md = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\nSteps.\n`;

const PDF_FILES: Record<string, string> = {
  'SKILL.md': md('pdf', 'Use when working with PDF files.'),
  'agents/openai.yaml': 'interface:\n  display_name: PDF tools\n',
  'references/notes.md': 'Reference notes.\n',
  'templates/notes.md': 'Template notes.\n',
  'deep/a/b/c.txt': 'Deep file.\n',
  'forms/SKILL.md': md('forms', 'Use when filling PDF forms.'),
  'forms/references/fields.md': 'Form fields.\n',
};

async function openSkills(page: Page): Promise<void> {
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
}

const library = (page: Page) => page.getByRole('list', { name: 'Skills' });
const skillButton = (page: Page, name: string) => library(page).getByRole('button', { name: new RegExp(`^${name}\\b`) });
const fileList = (page: Page) => page.getByRole('list', { name: 'Files of this skill' });

test.describe('Skills library: real paths', () => {
  test('files keep their folders and open; a nested skill is a link to its own detail (rescan with the button)', async ({ page }) => {
    await openSkills(page);
    // Written behind the catalogue's back, as another app or a copy into OPFS would: the
    // Rescan library button finds them.
    await page.evaluate(async (files) => {
      for (const [path, text] of Object.entries(files)) await globalThis.knack!.files!.write(`skills/docs/pdf/${path}`, text);
    }, PDF_FILES);
    await page.getByRole('button', { name: 'Rescan library' }).click();
    await expect(page.getByText('Rescanned the library: 2 skills.')).toBeVisible();
    await expect(page.getByTestId('progress-bar')).toHaveCount(0);

    await skillButton(page, 'pdf').click();
    await expect(page.getByRole('heading', { level: 2, name: 'pdf' })).toBeVisible();
    // The actions render (a duplicate key in the file list used to stop the whole detail).
    await expect(page.getByRole('group', { name: 'Skill actions' }).getByRole('button', { name: 'Edit' })).toBeEnabled();
    await expect(fileList(page).getByRole('button')).toHaveText(['SKILL.md', 'agents/openai.yaml', 'deep/a/b/c.txt', 'references/notes.md', 'templates/notes.md']);

    const figure = page.locator('#skill-file-text');
    await fileList(page).getByRole('button', { name: 'agents/openai.yaml' }).click();
    await expect(figure).toContainText('display_name: PDF tools');
    await fileList(page).getByRole('button', { name: 'templates/notes.md' }).click();
    await expect(figure).toContainText('Template notes.');
    await fileList(page).getByRole('button', { name: 'references/notes.md' }).click();
    await expect(figure).toContainText('Reference notes.');
    await fileList(page).getByRole('button', { name: 'deep/a/b/c.txt' }).click();
    await expect(figure).toContainText('Deep file.');
    await expect(page.getByText('could not be read as text')).toHaveCount(0);

    // The nested skill is not among the parent's files but linked; it opens as its own skill.
    await expect(fileList(page).getByRole('button', { name: /forms/ })).toHaveCount(0);
    await page.getByRole('button', { name: /^forms\/ open forms/ }).click();
    await expect(page.getByRole('heading', { level: 2, name: 'forms' })).toBeVisible();
    await expect(fileList(page).getByRole('button')).toHaveText(['SKILL.md', 'references/fields.md']);
    await fileList(page).getByRole('button', { name: 'references/fields.md' }).click();
    await expect(figure).toContainText('Form fields.');
  });

  test('the history diff of an import shows each file under its real path', async ({ page }) => {
    await openSkills(page);
    const entries: Record<string, Uint8Array> = {};
    for (const [path, text] of Object.entries(PDF_FILES)) if (!path.startsWith('forms/')) entries[`pdf/${path}`] = strToU8(text);
    await page.getByLabel('Skill archive to import').setInputFiles({ name: 'pdf.zip', mimeType: 'application/zip', buffer: Buffer.from(zipSync(entries)) });
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('checkbox', { name: 'Import pdf', exact: true })).toBeChecked();
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(dialog).toBeHidden();

    await skillButton(page, 'pdf').click();
    await expect(page.getByRole('heading', { level: 2, name: 'pdf' })).toBeVisible();
    const history = page.getByRole('list', { name: 'History entries' }).getByRole('listitem');
    await expect(history).toHaveCount(1);
    await expect(history.first().locator('figcaption code')).toHaveText([
      'SKILL.md',
      'agents/openai.yaml',
      'deep/a/b/c.txt',
      'references/notes.md',
      'templates/notes.md',
    ]);
    await fileList(page).getByRole('button', { name: 'agents/openai.yaml' }).click();
    await expect(page.locator('#skill-file-text')).toContainText('display_name: PDF tools');
  });
});
