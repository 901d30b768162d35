/**
 * Install of a 100-skill repository from the local GitHub stand-in (tests/fixtures/installRig.ts,
 * a repository built with real git), through the production build's Skills view: paste the link,
 * Look up, Import everything. Figures: requests per host, bytes the stand-in served, the lookup's
 * time (listing and downloads until the review shows) and the import's time (until the Skills
 * view says all 100 were imported). docs/install.md, "Testing".
 */
import { chromium } from '@playwright/test';
import { chromiumLaunch } from '../../playwright.config';
import { FIXTURE_OWNER, FIXTURE_REPO, startInstallRig } from '../../tests/fixtures/installRig';

/** pdf-tools and parent (with its nested child) are always there: 98 more make 100 skills. */
const EXTRA_SKILLS = 98;

export async function runInstallBench(baseUrl: string): Promise<Record<string, unknown>> {
  const rig = await startInstallRig({ https: true, repo: { extraSkills: EXTRA_SKILLS } });
  const browser = await chromium.launch({ ...chromiumLaunch, headless: true, args: [...chromiumLaunch.args, `--host-resolver-rules=${rig.resolverRules}`] });
  try {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, serviceWorkers: 'block' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}#/skills`);
    await page.waitForFunction(() => Boolean(globalThis.knack?.files));
    await page.getByRole('button', { name: 'New skill' }).waitFor();
    await page.getByRole('button', { name: 'Install from a link' }).click();
    await page.getByRole('textbox', { name: 'Link' }).fill(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`);
    const lookupStart = Date.now();
    await page.getByRole('button', { name: 'Look up' }).click();
    const review = page.getByRole('dialog').filter({ has: page.getByRole('heading', { name: /^Import skills from/ }) });
    await review.getByTestId('import-summary').waitFor({ timeout: 120_000 });
    const lookupMs = Date.now() - lookupStart;
    const requestsAtReview = rig.requests.length;
    const bytesAtReview = rig.bytesSent();
    // pdf-tools ships a script: confirm the caution the review asks about, as a user would.
    for (const box of await review.getByRole('checkbox', { name: /^I have read/ }).all()) await box.check();
    const importStart = Date.now();
    await review.getByRole('button', { name: 'Import', exact: true }).click();
    // Done when applyImport has returned: the Skills view's notice says what it imported.
    await page.getByRole('status').filter({ hasText: 'Imported 100, skipped 0.' }).waitFor({ timeout: 120_000 });
    const importMs = Date.now() - importStart;
    // What is on disk when the records say done: every skill's folder.
    const foldersWritten = await page.evaluate(async () => (await globalThis.knack!.files!.list('skills')).length);
    const recordsWithSource = await page.evaluate(async () => ((await globalThis.knack!.records!('usage').getAll()) as Array<{ installed_from?: unknown }>).filter((record) => record?.installed_from).length);
    const byHost: Record<string, number> = {};
    for (const request of rig.requests) byHost[request.host] = (byHost[request.host] ?? 0) + 1;
    await context.close();
    return { skills: 100, foldersWritten, recordsWithSource, files: rig.repo.tree.filter((entry) => entry.type === 'blob' && entry.path.startsWith('skills/')).length, requests: requestsAtReview, requestsByHost: byHost, bytes: bytesAtReview, lookupMs, importMs, totalMs: lookupMs + importMs };
  } finally {
    await browser.close();
    await rig.close();
  }
}
