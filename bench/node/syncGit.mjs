// Sync with a real git server (docs/sync.md, "Figures"): the first sync of a 1,423-skill library
// and a sync with nothing changed, through Settings → Sync as a user does it. The server is
// tests/fixtures/gitServer.ts (git http-backend), so requests and bytes are what went over the wire.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SYNC_BENCH_SKILLS = 1423;

/** Writes `count` skills straight into the library's files, then rescans the catalogue. */
function writeLibrary(count) {
  return (async () => {
    const knack = globalThis.knack;
    const encoder = new TextEncoder();
    for (let i = 0; i < count; i++) {
      const name = `bench-skill-${String(i).padStart(4, '0')}`;
      const body = Array.from({ length: 12 }, (_, line) => `Step ${line + 1}: do part ${line + 1} of ${name}.`).join('\n');
      await knack.files.write(`skills/${name}/SKILL.md`, encoder.encode(`---\nname: ${name}\ndescription: Use when benchmarking sync (${i}).\n---\n\n# ${name}\n\n${body}\n`));
      if (i % 5 === 0) await knack.files.write(`skills/${name}/references/notes.md`, encoder.encode(`Notes for ${name}.\n`.repeat(20)));
    }
    await knack.skills.engine.catalog.rescan();
    return knack.skills.engine.catalog.entries().length;
  })();
}

const totals = (requests) => ({
  requests: requests.length,
  bytesUp: requests.reduce((sum, r) => sum + r.bytesIn, 0),
  bytesDown: requests.reduce((sum, r) => sum + r.bytesOut, 0),
});

/**
 * @param {import('@playwright/test').Browser} browser
 * @param {string} baseUrl
 */
export async function syncGit(browser, baseUrl) {
  const { module } = await runnerImport(path.join(root, 'tests/fixtures/gitServer.ts'), { configFile: false, logLevel: 'silent' });
  const server = await module.startGitServer();
  const context = await browser.newContext();
  try {
    const repo = await server.createRepo('bench-library');
    const page = await context.newPage();
    await page.goto(`${baseUrl}#/settings`);
    await page.waitForFunction(() => Boolean(globalThis.knack?.skills), undefined, { timeout: 60_000 });
    const skills = await page.evaluate(writeLibrary, SYNC_BENCH_SKILLS);
    await page.getByRole('button', { name: 'Settings' }).click();
    const region = page.getByRole('region', { name: 'Sync' });
    await region.getByLabel('Sync with').selectOption({ label: 'Git server' });
    await region.getByLabel('Repository URL').fill(repo.url);
    const status = region.getByRole('status');

    const firstFrom = server.requests.length;
    const started = performance.now();
    await region.getByRole('button', { name: 'Connect', exact: true }).click();
    await status.filter({ hasText: /^Synced / }).waitFor({ timeout: 600_000 });
    const firstMs = performance.now() - started;
    const first = totals(server.requests.slice(firstFrom));
    const files = (await server.git(repo, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n').length;

    // Nothing changed: Sync now reads the head once and stops.
    await status.filter({ hasText: /^Synced / }).waitFor();
    const idleFrom = server.requests.length;
    const idleStarted = performance.now();
    await page.evaluate(() => globalThis.knackUi.sync.syncNow());
    await status.filter({ hasText: /^Synced / }).waitFor();
    const idleMs = performance.now() - idleStarted;
    const idle = totals(server.requests.slice(idleFrom));
    return {
      skills,
      filesInRepository: files,
      firstSync: { ms: Math.round(firstMs), ...first },
      nothingChanged: { ms: Math.round(idleMs), ...idle },
    };
  } finally {
    await context.close();
    await server.close();
  }
}
