import { readFile } from 'node:fs/promises';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { strToU8, unzipSync, zipSync } from 'fflate';

// Backup and restore through Settings of the production build, on the real OPFS and IndexedDB:
// a populated profile is backed up, restored into a fresh browser context, and every file byte
// and every record compared (docs/storage.md, "Backup and restore").

const TABLES = ['settings', 'usage', 'ledger', 'blobs', 'verdicts', 'pending', 'activity', 'sessions', 'messages'];
const API_KEY = 'sk-backup-test-0123456789';
const PASSPHRASE = 'correct horse battery staple';

async function openSettings(page: Page): Promise<void> {
  await page.goto('/#/settings');
  await page.waitForFunction(async () => Boolean(globalThis.knack?.app && (await globalThis.knack.ready)));
  await expect(page.getByRole('button', { name: 'Back up' })).toBeVisible();
}

/** A profile with skills (a binary file, an executable script, cases), usage, ledger, a verdict, memory, two chats and an API key. */
async function populate(page: Page): Promise<void> {
  await page.evaluate(async (apiKey) => {
    // Read the handle once it is ready (a page that reloaded after openSettings has a new one).
    await globalThis.knack!.ready;
    const k = globalThis.knack!;
    const files = k.files!;
    await files.write('skills/tools/alpha/SKILL.md', '---\nname: alpha\ndescription: Use when alpha work is asked for.\n---\n\n# Alpha\n\nRun scripts/run.sh.\n');
    await files.write('skills/tools/alpha/scripts/run.sh', '#!/bin/sh\necho alpha\n');
    await files.write('skills/tools/alpha/assets/data.raw', Uint8Array.from({ length: 256 }, (_, i) => 255 - i));
    await files.write('skills/tools/alpha/evals/evals.json', JSON.stringify({ cases: [{ id: 'c1', prompt: 'do alpha', checks: [] }] }));
    await files.write('skills/tools/DESCRIPTION.md', 'Tools for work.\n');
    await files.write('skills/beta/SKILL.md', '---\nname: beta\ndescription: Use for beta.\n---\n\nBeta body.\n');
    await files.write('memories/MEMORY.md', 'Project uses pnpm.\n§\nTests run in Chromium.');
    await files.write('memories/USER.md', 'Name: Ada');
    const records = k.records!;
    await records('usage').put('alpha', { skill: 'alpha', use_count: 4, state: 'promoted', created_by: 'user' });
    await records('ledger').put('0000001', { id: '0000001', ts: '2026-12-01T00:00:00Z', at: 1, actor: 'user', action: 'create', skill: 'alpha', before: [], after: [], evidence: {} });
    await records('blobs').put('deadbeef', { hash: 'deadbeef', bytes: new Uint8Array([1, 2, 3, 250]) });
    await records('verdicts').put('v-1', { id: 'v-1', skill: 'alpha', verdict: 'promoted', evidence: { cases: 3 } });
    const db = k.db!;
    await db.put('sessions', { id: 'chat-1', title: 'First chat', createdAt: 1, updatedAt: 2, messageCount: 2, itersSinceSkill: 0, turnsSinceMemory: 0, snapshot: null });
    await db.put('sessions', { id: 'chat-2', title: 'Second chat', createdAt: 3, updatedAt: 4, messageCount: 1, itersSinceSkill: 0, turnsSinceMemory: 0, snapshot: null });
    await db.put('messages', { id: 'msg-1', sessionId: 'chat-1', seq: 0, role: 'user', content: 'Hello', createdAt: 1 });
    await db.put('messages', { id: 'msg-2', sessionId: 'chat-1', seq: 1, role: 'assistant', content: 'Hi there', createdAt: 2 });
    await db.put('messages', { id: 'msg-3', sessionId: 'chat-2', seq: 0, role: 'user', content: 'Another', createdAt: 3 });
    await k.settings!.update('app', { apiKey, baseUrl: 'https://api.example.test/v1', model: 'test-model' });
  }, API_KEY);
}

interface ProfileDump {
  files: Record<string, number[]>;
  records: Record<string, string>;
}

/** Every profile file's bytes and every record of the backed-up stores, as the app reads them. */
function dump(page: Page): Promise<ProfileDump> {
  return page.evaluate(async (tables) => {
    await globalThis.knack!.ready;
    const k = globalThis.knack!;
    const files: Record<string, number[]> = {};
    for (const root of ['skills', 'memories']) {
      for (const path of await k.files!.walk(root)) files[path] = [...((await k.files!.read(path)) ?? [])];
    }
    const records: Record<string, string> = {};
    const plain = (_key: string, value: unknown) => (value instanceof Uint8Array ? { bytes: [...value] } : value);
    for (const table of tables) {
      const tx = k.db!.transaction(table as 'usage', 'readonly');
      const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
      records[table] = JSON.stringify(keys.map((key, i) => [key, values[i]]), plain);
    }
    return { files, records };
  }, TABLES);
}

async function backUp(page: Page, passphrase?: string): Promise<Buffer> {
  if (passphrase) {
    await page.getByRole('checkbox', { name: 'Include provider keys, encrypted' }).check();
    await page.getByLabel('Passphrase', { exact: true }).fill(passphrase);
  }
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Back up' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^knack-backup-.*\.knackbackup$/);
  await expect(page.getByRole('status').filter({ hasText: /Backed up 2 skills, 2 chats/ })).toBeVisible();
  return readFile((await download.path())!);
}

async function restoreInFreshContext(browser: Browser, backup: Buffer, passphrase?: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
  await openSettings(page);
  await page.getByLabel('Backup file to restore').setInputFiles({ name: 'profile.knackbackup', mimeType: 'application/zip', buffer: backup });
  const preview = page.getByRole('region', { name: 'Restore preview' });
  await expect(preview).toContainText('This profile is empty');
  await expect(preview.getByRole('row', { name: /Skills/ })).toContainText('2');
  if (passphrase) {
    await preview.getByRole('checkbox', { name: 'Restore provider keys' }).check();
    await preview.getByLabel('Backup passphrase').fill(passphrase);
  }
  await preview.getByRole('button', { name: 'Restore now' }).click();
  return { page, close: () => context.close() };
}

test.describe('Backup and restore', () => {
  test('round trip into a fresh profile: every record and file byte, the key left out', async ({ page, browser }) => {
    await openSettings(page);
    await populate(page);
    const original = await dump(page);
    const backup = await backUp(page);
    expect(backup.includes(Buffer.from(API_KEY))).toBe(false);

    const fresh = await restoreInFreshContext(browser, backup);
    await expect(fresh.page.getByRole('status').filter({ hasText: /Restored 2 skills, 2 chats/ })).toBeVisible();
    const restored = await dump(fresh.page);
    expect(restored.files).toEqual(original.files);
    for (const table of TABLES.filter((t) => t !== 'settings')) expect(restored.records[table], table).toEqual(original.records[table]);
    const app = await fresh.page.evaluate(() => globalThis.knack!.records!('settings').get('app'));
    expect(app).toMatchObject({ apiKey: '', baseUrl: 'https://api.example.test/v1', model: 'test-model' });
    // The catalogue follows: the restored skills are found without a reload.
    await fresh.page.waitForFunction(async () => (await globalThis.knack!.app!.skills()).engine.catalog.findByName('alpha').length === 1);
    await fresh.close();
  });

  test('with keys: restored with the right passphrase, a wrong one is refused and changes nothing', async ({ page, browser }) => {
    await openSettings(page);
    await populate(page);
    const original = await dump(page);
    const backup = await backUp(page, PASSPHRASE);
    expect(backup.includes(Buffer.from(API_KEY))).toBe(false);

    const wrong = await restoreInFreshContext(browser, backup, 'not the passphrase');
    await expect(wrong.page.getByRole('alert')).toContainText('passphrase does not open the API keys');
    expect(await wrong.page.evaluate(() => globalThis.knack!.files!.walk('skills'))).toEqual([]);
    await wrong.close();

    const right = await restoreInFreshContext(browser, backup, PASSPHRASE);
    await expect(right.page.getByRole('status').filter({ hasText: /with the API keys/ })).toBeVisible();
    const restored = await dump(right.page);
    expect(restored).toEqual(original);
    await right.close();
  });

  test('a damaged backup is refused before anything is written', async ({ page }) => {
    await openSettings(page);
    await populate(page);
    const backup = await backUp(page);
    // One file's bytes changed after the backup was made: its hash no longer matches the manifest.
    const entries = unzipSync(new Uint8Array(backup));
    entries['files/memories/USER.md'] = strToU8('Name: Mallory');
    const damaged = Buffer.from(zipSync(entries));
    await page.evaluate(() => globalThis.knack!.files!.deleteTree('skills'));
    await page.getByLabel('Backup file to restore').setInputFiles({ name: 'bad.knackbackup', mimeType: 'application/zip', buffer: damaged });
    await expect(page.getByRole('alert')).toContainText('does not match the hash in the manifest');
    await expect(page.getByRole('region', { name: 'Restore preview' })).toHaveCount(0);
    expect(await page.evaluate(() => globalThis.knack!.files!.walk('skills'))).toEqual([]);
  });

  test('Wipe all data asks for the word, then leaves a fresh profile', async ({ page }) => {
    await openSettings(page);
    await populate(page);
    await page.getByRole('button', { name: 'Wipe all data…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Wipe all data?' });
    const confirm = dialog.getByRole('button', { name: 'Wipe everything' });
    await expect(confirm).toBeDisabled();
    await dialog.getByLabel('Type wipe to confirm').fill('wipe');
    const reloaded = page.waitForEvent('load');
    await confirm.click();
    await reloaded;
    await page.waitForFunction(async () => Boolean(globalThis.knack?.app && (await globalThis.knack.ready)));
    const left = await dump(page);
    expect(left.files).toEqual({});
    for (const table of TABLES) expect(left.records[table], table).toBe('[]');
  });
});
