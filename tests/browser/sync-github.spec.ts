/**
 * Sync with a GitHub repository through Settings → Sync (docs/sync.md, "GitHub repository"): two
 * browser contexts are two devices with their own storage. The app addresses https://api.github.com;
 * Chromium resolves it to the one GitHub stand-in (tests/fixtures/githubStandIn.ts: a real git
 * repository behind GitHub's documented rules), see githubStandInFixture.ts.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './githubStandInFixture';
import { manage, openDevice, readSkillFile, skillMd, skillNames, syncNow, syncStatus, TEN_STEPS } from './syncHarness';
import type { GitHubStandIn } from '../fixtures/githubStandIn';

async function connectGitHub(page: Page, standIn: GitHubStandIn): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const region = page.getByRole('region', { name: 'Sync' });
  await region.getByLabel('Sync with').selectOption({ label: 'GitHub repository' });
  await region.getByLabel('Repository URL').fill(`https://github.com/${standIn.owner}/${standIn.repo}`);
  await region.getByLabel('Branch').fill('main');
  await region.getByLabel('Folder in the repository').fill('skills');
  await region.getByLabel('Token').fill(standIn.token);
  await region.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(syncStatus(page)).toHaveText(/^Synced /, { timeout: 30_000 });
}

const remote = async (standIn: GitHubStandIn, path: string) => (await standIn.readFile('main', `skills/${path}`))?.toString('utf8') ?? null;

test.describe('Sync with a GitHub repository', () => {
  test('edits to different skills merge; the same lines conflict and both versions stay', async ({ browser, github }) => {
    const a = await openDevice(browser, { ignoreHTTPSErrors: true });
    const b = await openDevice(browser, { ignoreHTTPSErrors: true });
    await manage(a.page, { action: 'create', name: 'tea', content: skillMd('tea', TEN_STEPS) });
    await manage(a.page, { action: 'create', name: 'coffee', content: skillMd('coffee', ['Step 1: grind.']) });
    await connectGitHub(a.page, github);
    expect(await remote(github, 'tea/SKILL.md')).toBe(skillMd('tea', TEN_STEPS));
    // Only api.github.com was asked, always with the token.
    expect(github.requests.filter((request) => request.method !== 'OPTIONS').every((request) => request.host === 'api.github.com' && request.authorized)).toBe(true);
    await connectGitHub(b.page, github);
    expect(await readSkillFile(b.page, 'tea/SKILL.md')).toBe(skillMd('tea', TEN_STEPS));

    await manage(a.page, { action: 'patch', name: 'coffee', old_string: 'Step 1: grind.', new_string: 'Step 1: grind fine.' });
    await manage(b.page, { action: 'patch', name: 'tea', old_string: 'Step 9: do thing 9.', new_string: 'Step 9: steep.' });
    await syncNow(a.page);
    await syncNow(b.page);
    await syncNow(a.page);
    for (const device of [a, b]) {
      await expect.poll(() => readSkillFile(device.page, 'tea/SKILL.md')).toContain('Step 9: steep.');
      await expect.poll(() => readSkillFile(device.page, 'coffee/SKILL.md')).toContain('grind fine');
    }

    await manage(a.page, { action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from a.' });
    await syncNow(a.page);
    await expect.poll(() => remote(github, 'tea/SKILL.md')).toContain('Step 5: from a.');
    await manage(b.page, { action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from b.' });
    await syncNow(b.page);
    await expect(syncStatus(b.page)).toHaveText('1 conflict');
    expect(await readSkillFile(b.page, 'tea/SKILL.md')).toContain('Step 5: from b.');
    expect(await remote(github, 'tea/SKILL.md')).toContain('Step 5: from a.');
    await a.context.close();
    await b.context.close();
  });

  test('a push race loses nothing; an offline edit goes out on reconnect', async ({ browser, github }) => {
    test.setTimeout(120_000);
    const a = await openDevice(browser, { ignoreHTTPSErrors: true });
    const b = await openDevice(browser, { ignoreHTTPSErrors: true });
    await connectGitHub(a.page, github);
    await connectGitHub(b.page, github);
    const rounds = 8;
    for (let round = 1; round <= rounds; round++) {
      await Promise.all([
        manage(a.page, { action: 'create', name: `a-${round}`, content: skillMd(`a-${round}`, ['Step 1: a.']) }),
        manage(b.page, { action: 'create', name: `b-${round}`, content: skillMd(`b-${round}`, ['Step 1: b.']) }),
      ]);
      await Promise.all([syncNow(a.page), syncNow(b.page)]);
    }
    await syncNow(a.page);
    await syncNow(b.page);
    const all = Array.from({ length: rounds }, (_, i) => [`a-${i + 1}`, `b-${i + 1}`]).flat().sort();
    const onGitHub = async () => (await github.listFiles('main')).filter((path) => /^skills\/[^/.][^/]*\/SKILL\.md$/.test(path)).map((path) => path.split('/')[1]!).sort();
    await expect.poll(onGitHub).toEqual(all);
    await expect.poll(() => skillNames(a.page)).toEqual(all);
    await expect.poll(() => skillNames(b.page)).toEqual(all);

    await b.context.setOffline(true);
    await manage(b.page, { action: 'patch', name: 'b-1', old_string: 'Step 1: b.', new_string: 'Step 1: written offline.' });
    await expect(syncStatus(b.page)).toHaveText(/1 change waiting/, { timeout: 15_000 });
    await b.context.setOffline(false);
    await expect.poll(() => remote(github, 'b-1/SKILL.md'), { timeout: 20_000 }).toContain('written offline');
    await syncNow(a.page);
    await expect.poll(() => readSkillFile(a.page, 'b-1/SKILL.md')).toContain('written offline');
    await a.context.close();
    await b.context.close();
  });
});
