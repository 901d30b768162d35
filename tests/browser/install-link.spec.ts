/**
 * Install from a link through the Skills view of the production build, on real OPFS and
 * IndexedDB (docs/install.md). The app keeps the real host names (api.github.com,
 * raw.githubusercontent.com, clawhub.ai, …); Chromium maps each to a port of the install rig
 * (tests/fixtures/installRig.ts) on 127.0.0.1 over https with a certificate made at start. The
 * GitHub hosts are the one stand-in, serving a repository built with real git.
 */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { FIXTURE_OWNER, FIXTURE_REPO, GOOD_TOKEN, type InstallRig } from '../fixtures/installRig';
import { closeRigBrowser, openRigBrowser } from './installRigBrowser';
import { openLearningApp } from './learningSupport';
import { answerByContent, turnOffAutomaticRuns, verdictWord } from './gateHarness';

let rig: InstallRig;
let browser: Browser;
let context: BrowserContext;
let page: Page;

test.beforeEach(async ({ baseURL }) => {
  ({ rig, browser, context, page } = await openRigBrowser(baseURL));
});

test.afterEach(() => closeRigBrowser({ rig, browser }));

async function openSkills(): Promise<void> {
  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.files));
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
}

async function lookUp(link: string): Promise<void> {
  await page.getByRole('button', { name: 'Install from a link' }).click();
  const dialog = page.getByRole('dialog', { name: 'Install from a link' });
  await dialog.getByRole('textbox', { name: 'Link' }).fill(link);
  await dialog.getByRole('button', { name: 'Look up' }).click();
}

const review = () => page.getByRole('dialog').filter({ has: page.getByRole('heading', { name: /^Import skills from/ }) });

async function importAll(): Promise<void> {
  const dialog = review();
  // Scripts and links draw a caution: confirm every verdict the review asks about, as a user would.
  for (const box of await dialog.getByRole('checkbox', { name: /^(I have read|Confirm|Override)/ }).all()) await box.check();
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
}

const usage = (name: string) => page.evaluate(async (n) => (await globalThis.knack!.records!('usage').get(n)) as { installed_from: Record<string, string> | null } | undefined, name);
const exists = (path: string) => page.evaluate((p) => globalThis.knack!.files!.exists(p), path);

test('installs a GitHub repository through the import review, with its source record, and offers to verify a skill with evals', async () => {
  await openSkills();
  await lookUp(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`);
  const dialog = review();
  await expect(dialog.getByRole('heading', { name: `Import skills from ${FIXTURE_OWNER}/${FIXTURE_REPO}` })).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: 'Import pdf-tools', exact: true })).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: 'Import parent', exact: true })).toBeVisible();
  // Nothing is written before Import.
  expect(await exists('skills/pdf-tools/SKILL.md')).toBe(false);
  await importAll();
  await expect.poll(() => exists('skills/pdf-tools/scripts/fill.sh')).toBe(true);
  await expect.poll(() => exists('skills/parent/child/SKILL.md')).toBe(true);
  const record = await usage('pdf-tools');
  expect(record?.installed_from).toMatchObject({ kind: 'github', sourceKey: `github:${FIXTURE_OWNER}/${FIXTURE_REPO}@HEAD`, path: 'skills/pdf-tools', revision: rig.repo.commit });
  expect(record?.installed_from?.installedHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  // Every request went to a host the user named, through the app (privacy counter, Settings → Network).
  const hosts = new Set(rig.requests.map((r) => r.host));
  expect([...hosts].sort()).toEqual(['githubApi', 'githubRaw']);
  // pdf-tools ships evals/evals.json: the library offers to prove it on the user's model.
  await expect(page.getByRole('region', { name: 'Verify installed skills' }).getByRole('listitem', { name: 'pdf-tools' }).getByRole('button', { name: /^Verify on / })).toBeVisible();
  await page.getByRole('button', { name: 'Settings' }).click();
  const installHosts = page.getByTestId('install-hosts');
  await expect(installHosts.locator('[data-host="api.github.com"]')).toHaveText('api.github.com: 2');
  await expect(installHosts.locator('[data-host="raw.githubusercontent.com"]')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Network requests this session by host' }).locator('[data-host="api.github.com"]')).toBeVisible();
});

test('installs from a well-known site (zip, tar.gz, skill-md) and refuses the skill whose digest is wrong, writing nothing of it', async () => {
  await openSkills();
  await lookUp('https://skills.example');
  const dialog = review();
  await expect(dialog.getByRole('checkbox', { name: 'Import log-reader', exact: true })).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: 'Import csv-cleaner', exact: true })).toBeVisible();
  await expect(dialog.getByRole('checkbox', { name: 'Import weather-brief', exact: true })).toBeVisible();
  await expect(dialog.getByText(`the index says sha256:${rig.wellKnown.wrongDigestExpected}, the download is sha256:${rig.wellKnown.wrongDigestActual}`)).toBeVisible();
  await importAll();
  await expect.poll(() => exists('skills/log-reader/scripts/tail.sh')).toBe(true);
  expect(await exists('skills/tampered/SKILL.md')).toBe(false);
  expect((await usage('log-reader'))?.installed_from).toMatchObject({ kind: 'well-known', sourceKey: 'https://skills.example/.well-known/agent-skills/index.json', path: 'log-reader' });
  expect(await usage('tampered')).toBeUndefined();
});

test('installs a ClawHub skill and a raw SKILL.md with its linked files', async () => {
  await openSkills();
  await lookUp('https://clawhub.ai/fixture/todo-triage');
  await expect(review().getByRole('checkbox', { name: 'Import todo-triage', exact: true })).toBeVisible();
  await importAll();
  await expect.poll(() => exists('skills/todo-triage/references/priorities.md')).toBe(true);
  expect((await usage('todo-triage'))?.installed_from).toMatchObject({ kind: 'clawhub', revision: '1.0.0', sourceKey: 'clawhub:todo-triage' });
  await expect(review()).toBeHidden();
  await lookUp('https://rawhost.example/team/markdown-lint/SKILL.md');
  await expect(review().getByRole('checkbox', { name: 'Import markdown-lint', exact: true })).toBeVisible();
  await importAll();
  await expect.poll(() => exists('skills/markdown-lint/templates/report.md')).toBe(true);
  expect((await usage('markdown-lint'))?.installed_from).toMatchObject({ kind: 'raw', url: 'https://rawhost.example/team/markdown-lint/SKILL.md' });
});

test('a rate-limited GitHub says when it resets; a token goes to the API host only', async () => {
  rig.setRateRemaining(0);
  await openSkills();
  await lookUp(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}`);
  const dialog = page.getByRole('dialog', { name: 'Install from a link' });
  await expect(dialog.getByRole('alert')).toContainText(/api\.github\.com rate limit reached: .*It resets at \d\d:\d\d/);
  await expect(dialog.getByRole('alert')).toContainText('fine-grained GitHub token');
  await dialog.getByRole('button', { name: 'Close' }).click();
  // With a token the stand-in's larger budget applies.
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('GitHub token').fill(GOOD_TOKEN);
  await page.getByLabel('GitHub token').blur();
  await expect(page.getByText('Token saved in this browser.')).toBeVisible();
  await page.goto('/#/skills');
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
  await lookUp(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}/tree/main/skills/skill-1`);
  await expect(review().getByRole('checkbox', { name: 'Import skill-1', exact: true })).toBeVisible();
  expect(rig.requests.filter((r) => r.host === 'githubApi' && r.method === 'GET' && r.authorization === `Bearer ${GOOD_TOKEN}`).length).toBe(2);
  expect(rig.requests.filter((r) => r.host === 'githubRaw').every((r) => r.authorization === null)).toBe(true);
});

test('a host without CORS gets a message saying what to do instead; offline says installed skills keep working', async () => {
  await openSkills();
  await lookUp('https://nocors.example');
  const dialog = page.getByRole('dialog', { name: 'Install from a link' });
  await expect(dialog.getByRole('alert')).toContainText('nocors.example does not allow the browser to read it');
  await expect(dialog.getByRole('alert')).toContainText('drop it on Import skills');
  // The request reached the host; the browser refused to hand its answer to the page.
  expect(rig.requests.some((r) => r.host === 'noCors')).toBe(true);
  await context.setOffline(true);
  await dialog.getByRole('button', { name: 'Look up' }).click();
  await expect(dialog.getByRole('alert')).toContainText('needs the network');
  await expect(dialog.getByRole('alert')).toContainText('Installed skills keep working');
  await context.setOffline(false);
  // A codeload link is refused before any request, with what to paste instead.
  const before = rig.requests.length;
  await dialog.getByRole('textbox', { name: 'Link' }).fill('https://codeload.github.com/o/r/zip/refs/heads/main');
  await dialog.getByRole('button', { name: 'Look up' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Paste the repository or folder link instead');
  expect(rig.requests.length).toBe(before);
});

test('a skill that ships its cases is proven on the user\'s own model in one step after install', async ({ scripted }) => {
  await openLearningApp(page, scripted);
  await turnOffAutomaticRuns(page);
  answerByContent(scripted, { 'pdf-tools': 'helps' });
  await page.goto('/#/skills');
  await expect(page.getByRole('button', { name: 'New skill' })).toBeVisible();
  await lookUp(`https://github.com/${FIXTURE_OWNER}/${FIXTURE_REPO}/tree/main/skills/pdf-tools`);
  await expect(review().getByRole('checkbox', { name: 'Import pdf-tools', exact: true })).toBeVisible();
  await importAll();
  const offer = page.getByRole('region', { name: 'Verify installed skills' }).getByRole('listitem', { name: 'pdf-tools' });
  // Named after the model a new chat uses (the scripted server's), not a placeholder.
  await offer.getByRole('button', { name: /^Verify on (?!your model)\S+/ }).click();
  // The gate's own run, on the chat's model, with the cases the skill brought.
  await expect(page.getByRole('heading', { name: 'pdf-tools', exact: true })).toBeVisible();
  await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
  expect(scripted.chatRequests().some((request) => JSON.stringify(request.body).includes('pdf-tools 1: write the release note line'))).toBe(true);
});
