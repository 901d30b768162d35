import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { bundleForPage } from '../fixtures/pageBundle.mjs';
import { test, expect } from './githubStandInFixture';
import type { SyncHarness } from './syncTransportHarness';
import type { GitHubPlace } from '../../src/sync/githubTransport';

// The GitHub transport (src/sync/githubTransport.ts) in Chromium from the app's origin: real
// cross-origin requests to https://api.github.com, which Chromium resolves to the one GitHub
// stand-in (tests/fixtures/githubStandIn.ts). Two browser contexts are two devices.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let bundle: string;

test.beforeAll(async () => {
  bundle = await bundleForPage({ root, entry: path.join(root, 'tests/browser/syncTransportHarness.ts'), name: 'knackSyncHarnessBundle' });
});

async function device(page: Page): Promise<Page> {
  await page.goto('/');
  await page.evaluate(bundle);
  return page;
}

function github<K extends keyof SyncHarness['github']>(page: Page, method: K, ...args: Parameters<SyncHarness['github'][K]>) {
  return page.evaluate(
    ({ method, args }) => {
      const harness = (globalThis as unknown as { knackSyncHarness: SyncHarness }).knackSyncHarness;
      return (harness.github[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    },
    { method, args: args as unknown[] },
  ) as Promise<Awaited<ReturnType<SyncHarness['github'][K]>>>;
}

test('two devices: the first starts an empty repository, the second reads it, and a stale push is refused', async ({ page, browser, github: standIn }) => {
  const place: GitHubPlace = { owner: standIn.owner, repo: standIn.repo, branch: 'main', folder: 'skills', token: standIn.token };
  const laptop = await device(page);
  const phoneContext = await browser.newContext({ ignoreHTTPSErrors: true });
  const phone = await device(await phoneContext.newPage());

  expect(await github(laptop, 'readHead', place)).toBeNull();
  const started = await github(laptop, 'commit', place, null, { 'notes/SKILL.md': '---\nname: notes\n---\nBody é\n', 'notes/icon.bin': [0, 1, 2, 255] });
  expect(started.ok).toBe(true);
  // Every request went to api.github.com with its token; the preflights went first.
  expect(standIn.requests.filter((request) => request.method !== 'OPTIONS').every((request) => request.host === 'api.github.com' && request.authorized)).toBe(true);
  expect(standIn.requests.some((request) => request.method === 'OPTIONS')).toBe(true);

  const seen = await github(phone, 'snapshot', place);
  expect(seen).toMatchObject({ head: started.ok && started.head, files: { 'notes/SKILL.md': '---\nname: notes\n---\nBody é\n', 'notes/icon.bin': [0, 1, 2, 255] } });

  const base = started.ok ? started.head : '';
  const [fromLaptop, fromPhone] = await Promise.all([
    github(laptop, 'commit', place, base, { 'notes/SKILL.md': 'laptop' }),
    github(phone, 'commit', place, base, { 'other/SKILL.md': 'phone' }),
  ]);
  const outcomes = [fromLaptop, fromPhone];
  expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1);
  expect(outcomes.find((outcome) => !outcome.ok)).toMatchObject({ ok: false, name: 'RemoteMovedError', actualHead: await standIn.head('main') });
  await phoneContext.close();
});

test('the errors a user meets say what to do', async ({ page, context, github: standIn }) => {
  const place: GitHubPlace = { owner: standIn.owner, repo: standIn.repo, branch: 'main', folder: '', token: standIn.readOnlyToken };
  const laptop = await device(page);
  const head = await standIn.push('main', { 'a/SKILL.md': 'a' });

  expect(await github(laptop, 'readHead', place)).toBe(head);
  expect(await github(laptop, 'commit', place, head, { 'a/SKILL.md': 'b' })).toMatchObject({ ok: false, problem: 'auth', message: expect.stringContaining('Contents: Read and write') });

  standIn.rateLimited = true;
  expect(await github(laptop, 'readHead', place)).toMatchObject({ ok: false, problem: 'rate-limit', resetAt: new Date(standIn.rateLimitReset * 1000).toISOString() });
  standIn.rateLimited = false;

  await context.setOffline(true);
  expect(await github(laptop, 'readHead', place)).toMatchObject({ ok: false, problem: 'offline' });
  await context.setOffline(false);
  expect(await github(laptop, 'readHead', place)).toBe(head);
});
