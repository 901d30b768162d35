/**
 * Two devices for the sync tests: each a browser context of its own (separate OPFS and
 * IndexedDB) with the app open, connected through Settings → Sync to one repository on the real
 * git server (tests/fixtures/gitServer.ts). Edits go through the running app's skill_manage, as
 * the editor or the agent would make them.
 */
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';

export interface Device {
  context: BrowserContext;
  page: Page;
}

export async function openDevice(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}): Promise<Device> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  return { context, page };
}

export function skillMd(name: string, lines: readonly string[]): string {
  return `---\nname: ${name}\ndescription: Use when testing ${name}.\n---\n\n# ${name}\n\n${lines.join('\n')}\n`;
}

export const TEN_STEPS = Array.from({ length: 10 }, (_, i) => `Step ${i + 1}: do thing ${i + 1}.`);

/** One skill_manage call as the user; fails the test when the tool does. */
export async function manage(page: Page, args: Record<string, unknown>): Promise<void> {
  const result = await page.evaluate(async (input) => {
    const tool = globalThis.knack!.skills!.registry.get('skill_manage')!;
    return tool.run(input, { origin: 'user', readPaths: new Set() });
  }, args);
  expect(result, JSON.stringify(result)).toMatchObject({ success: true });
}

/** A file of the device's library, or null. */
export async function readSkillFile(page: Page, path: string): Promise<string | null> {
  return page.evaluate(async (p) => {
    const bytes = await globalThis.knack!.files!.read(`skills/${p}`);
    return bytes ? new TextDecoder().decode(bytes) : null;
  }, path);
}

export async function skillNames(page: Page): Promise<string[]> {
  return page.evaluate(() => [...new Set(globalThis.knack!.skills!.engine.catalog.entries().map((entry) => entry.name))].sort());
}

const syncRegion = (page: Page) => page.getByRole('region', { name: 'Sync' });
export const syncStatus = (page: Page) => syncRegion(page).getByRole('status');

/** Settings → Sync → Git server → Connect, then waits for the first sync to end. */
export async function connectGit(page: Page, url: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const region = syncRegion(page);
  await region.getByLabel('Sync with').selectOption({ label: 'Git server' });
  await region.getByLabel('Repository URL').fill(url);
  await region.getByLabel('Branch').fill('main');
  await region.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(syncStatus(page)).toHaveText(/^Synced /, { timeout: 30_000 });
}

/** Sync now (what the button does), resolved when that sync has ended. */
export async function syncNow(page: Page): Promise<void> {
  await page.evaluate(() => globalThis.knackUi!.sync.syncNow());
}
