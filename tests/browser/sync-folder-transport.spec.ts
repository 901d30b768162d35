import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { bundleForPage } from '../fixtures/pageBundle.mjs';
import { test, expect } from './fixtures';
import type { SyncHarness } from './syncTransportHarness';

// The folder transport (src/sync/folderTransport.ts) in Chromium, with a real OPFS directory
// standing in for the folder the user picks: it is the same FileSystemDirectoryHandle interface
// showDirectoryPicker returns (docs/sync.md, "Folder on this computer").

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let bundle: string;

test.beforeAll(async () => {
  bundle = await bundleForPage({ root, entry: path.join(root, 'tests/browser/syncTransportHarness.ts'), name: 'knackSyncHarnessBundle' });
});

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  await page.evaluate(bundle);
});

function folder<K extends keyof SyncHarness['folder']>(page: Page, method: K, ...args: Parameters<SyncHarness['folder'][K]>) {
  return page.evaluate(
    ({ method, args }) => {
      const harness = (globalThis as unknown as { knackSyncHarness: SyncHarness }).knackSyncHarness;
      return (harness.folder[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    },
    { method, args: args as unknown[] },
  ) as Promise<Awaited<ReturnType<SyncHarness['folder'][K]>>>;
}

const SKILL = '\uFEFF---\r\nname: notes\r\ndescription: Keeps notes\r\n---\r\nUse é and CRLF.\r\n';
const BINARY = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255];

test("Knack's writes appear in the folder byte-identical, and deletions leave no empty folders", async ({ page }) => {
  expect((await folder(page, 'snapshot', 'picked')).head).toBeNull();
  const first = await folder(page, 'commit', 'picked', null, { 'notes/SKILL.md': SKILL, 'notes/assets/logo.png': BINARY, '.knack/notes.json': '{"modes":{}}\n' });
  expect(first.ok).toBe(true);
  expect(await folder(page, 'contents', 'picked')).toEqual({ 'notes/SKILL.md': SKILL, 'notes/assets/logo.png': BINARY, '.knack/notes.json': '{"modes":{}}\n' });

  const read = await folder(page, 'snapshot', 'picked');
  expect(read.head).toBe(first.ok && first.head);
  expect(read.files['notes/SKILL.md']).toBe(SKILL);
  // The id is git's blob id of the bytes, as GitHub's trees give it.
  expect(read.ids['notes/assets/logo.png']).toMatch(/^[0-9a-f]{40}$/);

  const second = await folder(page, 'commit', 'picked', read.head, {}, ['notes/assets/logo.png']);
  expect(second.ok).toBe(true);
  expect(Object.keys(await folder(page, 'contents', 'picked')).sort()).toEqual(['.knack/notes.json', 'notes/SKILL.md']);
  const entries = await page.evaluate(async () => {
    const picked = await (await navigator.storage.getDirectory()).getDirectoryHandle('picked');
    const notes = await picked.getDirectoryHandle('notes');
    const names: string[] = [];
    for await (const [name] of (notes as unknown as { entries(): AsyncIterable<[string, unknown]> }).entries()) names.push(name);
    return names;
  });
  expect(entries).toEqual(['SKILL.md']);
});

test('an edit made in the folder comes in, and a commit based on the old listing writes nothing', async ({ page }) => {
  const first = await folder(page, 'commit', 'picked', null, { 'notes/SKILL.md': SKILL });
  expect(first.ok).toBe(true);
  const before = await folder(page, 'snapshot', 'picked');

  await folder(page, 'writeAsOtherAgent', 'picked', 'notes/SKILL.md', SKILL.replace('Keeps notes', 'Keeps notes, edited in an editor'));
  await folder(page, 'writeAsOtherAgent', 'picked', 'added-by-claude/SKILL.md', '---\nname: added-by-claude\ndescription: From another agent\n---\nBody\n');
  const after = await folder(page, 'snapshot', 'picked');
  expect(after.head).not.toBe(before.head);
  expect(after.files['notes/SKILL.md']).toContain('edited in an editor');
  expect(after.ids['notes/SKILL.md']).not.toBe(before.ids['notes/SKILL.md']);
  expect(after.files['added-by-claude/SKILL.md']).toContain('From another agent');

  const stale = await folder(page, 'commit', 'picked', before.head, { 'notes/SKILL.md': 'mine' });
  expect(stale).toMatchObject({ ok: false, name: 'RemoteMovedError', actualHead: after.head });
  expect((await folder(page, 'contents', 'picked'))['notes/SKILL.md']).toContain('edited in an editor');
});

test('paths that would leave the folder are refused before anything is written', async ({ page }) => {
  for (const bad of ['../outside/SKILL.md', 'notes/../../x', '/abs/SKILL.md', 'a\\b/SKILL.md', 'notes//SKILL.md']) {
    const outcome = await folder(page, 'commit', 'picked', null, { 'ok/SKILL.md': 'fine', [bad]: 'escape' });
    expect(outcome).toMatchObject({ ok: false, name: 'SyncPlaceError', problem: 'refused' });
  }
  expect(await folder(page, 'contents', 'picked')).toEqual({});
});

test('the chosen folder is remembered across a reload', async ({ page }) => {
  await folder(page, 'remember', 'picked');
  await page.reload();
  await page.evaluate(bundle);
  expect(await folder(page, 'recall')).toEqual({ name: 'picked', permitted: true });
});
