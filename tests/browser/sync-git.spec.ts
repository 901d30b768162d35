/**
 * Sync through a real git server (git http-backend on 127.0.0.1, tests/fixtures/gitServer.ts):
 * two browser contexts are two devices with their own storage, connected to one repository in
 * Settings → Sync (docs/sync.md). Every assertion waits for the state to arrive (expect.poll).
 */
import { test, expect } from './fixtures';
import { connectGit, manage, openDevice, readSkillFile, skillMd, skillNames, syncNow, syncStatus, TEN_STEPS } from './syncHarness';

test.describe('Sync with a git server', () => {
  test('merges edits to different skills and files; the same lines conflict, both versions survive until Resolve', async ({ browser, gitServer }) => {
    const repo = await gitServer.createRepo('library');
    const a = await openDevice(browser);
    const b = await openDevice(browser);
    await manage(a.page, { action: 'create', name: 'tea', content: skillMd('tea', TEN_STEPS) });
    await manage(a.page, { action: 'create', name: 'coffee', content: skillMd('coffee', ['Step 1: grind.']) });
    // A verdict a measured travels with the content hash it was measured on, and on b it counts
    // for b's gate model: that import queues no automatic run (docs/sync.md, "Proof travels").
    // 'proofread', with cases and a verdict of another model only, is queued as any import.
    const gateModel = 'http://127.0.0.1:9/v1 small-model';
    await b.page.evaluate(() => globalThis.knack!.settings!.update('gate', { provider: { baseUrl: 'http://127.0.0.1:9/v1', model: 'small-model' } }));
    for (const [name, model] of [['proof', gateModel], ['proofread', 'openai qwen3-8b']]) {
      await manage(a.page, { action: 'create', name, content: skillMd(name, ['Step 1: prove.']) });
      await manage(a.page, { action: 'write_file', name, file_path: 'evals/evals.json', file_content: JSON.stringify({ evals: [{ id: 1, prompt: 'Prove it.', checks: [{ type: 'contains', value: 'proof' }] }] }) });
      await a.page.evaluate(([skill, key]) => globalThis.knack!.skills!.engine.usage.applyVerdict(skill, 'promoted', 'bench-v1', key), [name, model] as const);
    }
    await connectGit(a.page, repo.url);
    const sent = (await gitServer.git(repo, 'ls-tree', '-r', '--name-only', 'main')).trim().split('\n');
    expect(sent.filter((path) => !path.startsWith('.knack/'))).toEqual(['coffee/SKILL.md', 'proof/SKILL.md', 'proof/evals/evals.json', 'proofread/SKILL.md', 'proofread/evals/evals.json', 'tea/SKILL.md']);
    expect(sent).toContain('.knack/skills/proof.json');
    await connectGit(b.page, repo.url);
    expect(await readSkillFile(b.page, 'tea/SKILL.md')).toBe(skillMd('tea', TEN_STEPS));
    // 'proofread' is written after 'proof' (names in order): once it is queued, 'proof' was decided.
    await b.page.waitForFunction(() => globalThis.knackUi?.learning.isGatePending('proofread') === true);
    expect(await b.page.evaluate(() => globalThis.knackUi!.learning.isGatePending('proof'))).toBe(false);
    expect(await b.page.evaluate(() => globalThis.knack!.skills!.engine.usage.find('proof').then((usage) => usage?.model_verdicts))).toEqual({
      [gateModel]: { verification: 'promoted', verdict_id: 'another-device', stale: false, measured_on: 'another-device' },
    });

    // Different skills, and different files and lines of one skill.
    await manage(a.page, { action: 'patch', name: 'coffee', old_string: 'Step 1: grind.', new_string: 'Step 1: grind fine.' });
    await manage(a.page, { action: 'patch', name: 'tea', old_string: 'Step 1: do thing 1.', new_string: 'Step 1: boil.' });
    await manage(b.page, { action: 'patch', name: 'tea', old_string: 'Step 9: do thing 9.', new_string: 'Step 9: steep.' });
    await manage(b.page, { action: 'write_file', name: 'tea', file_path: 'references/cups.md', file_content: 'Two cups.\n' });
    await syncNow(a.page);
    await syncNow(b.page);
    await syncNow(a.page);
    for (const device of [a, b]) {
      await expect.poll(() => readSkillFile(device.page, 'tea/SKILL.md')).toBe(skillMd('tea', TEN_STEPS.map((line, i) => (i === 0 ? 'Step 1: boil.' : i === 8 ? 'Step 9: steep.' : line))));
      await expect.poll(() => readSkillFile(device.page, 'tea/references/cups.md')).toBe('Two cups.\n');
      await expect.poll(() => readSkillFile(device.page, 'coffee/SKILL.md')).toContain('grind fine');
    }

    // The same line on both devices: a conflict; each keeps its own, the server keeps a's.
    await manage(a.page, { action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from a.' });
    await syncNow(a.page);
    await expect.poll(() => gitServer.git(repo, 'show', 'main:tea/SKILL.md')).toContain('Step 5: from a.');
    await manage(b.page, { action: 'patch', name: 'tea', old_string: 'Step 5: do thing 5.', new_string: 'Step 5: from b.' });
    await syncNow(b.page);
    await expect(syncStatus(b.page)).toHaveText('1 conflict');
    expect(await readSkillFile(b.page, 'tea/SKILL.md')).toContain('Step 5: from b.');
    expect(await gitServer.git(repo, 'show', 'main:tea/SKILL.md')).toContain('Step 5: from a.');

    // Resolve in the skill's view: the Merge update dialog, Take theirs, Apply.
    await b.page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Skills' }).click();
    await b.page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /^tea\b/ }).click();
    await expect(b.page.getByText('Sync: conflict')).toBeVisible();
    await b.page.getByRole('button', { name: 'Resolve' }).click();
    const dialog = b.page.getByRole('dialog', { name: 'Merge update' });
    await dialog.getByRole('button', { name: 'Take theirs' }).first().click();
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => readSkillFile(b.page, 'tea/SKILL.md')).toContain('Step 5: from a.');
    await expect(b.page.getByText('Sync: synced')).toBeVisible({ timeout: 15_000 });

    await b.page.getByRole('button', { name: 'Back to skills' }).click();
    await b.page.getByRole('list', { name: 'Skills' }).getByRole('button', { name: /^proof\b/ }).click();
    await expect(b.page.getByText(`verified on ${gateModel} on another device`)).toBeVisible();
    await a.context.close();
    await b.context.close();
  });

  test('a push race loses nothing over 20 rounds; an offline edit goes out on reconnect; deletion against edit keeps the edit', async ({ browser, gitServer }) => {
    test.setTimeout(120_000);
    const repo = await gitServer.createRepo('race');
    const a = await openDevice(browser);
    const b = await openDevice(browser);
    await connectGit(a.page, repo.url);
    await connectGit(b.page, repo.url);
    for (let round = 1; round <= 20; round++) {
      await Promise.all([
        manage(a.page, { action: 'create', name: `a-${round}`, content: skillMd(`a-${round}`, ['Step 1: a.']) }),
        manage(b.page, { action: 'create', name: `b-${round}`, content: skillMd(`b-${round}`, ['Step 1: b.']) }),
      ]);
      await Promise.all([syncNow(a.page), syncNow(b.page)]);
    }
    const all = Array.from({ length: 20 }, (_, i) => [`a-${i + 1}`, `b-${i + 1}`]).flat().sort();
    await syncNow(a.page);
    await syncNow(b.page);
    // Skill folders only: `.knack/` holds records (a verdict the gate measured meanwhile).
    await expect.poll(async () => (await gitServer.git(repo, 'ls-tree', '--name-only', 'main')).trim().split('\n').filter((name) => name !== '.knack').sort()).toEqual(all);
    await expect.poll(() => skillNames(a.page)).toEqual(all);
    await expect.poll(() => skillNames(b.page)).toEqual(all);

    // Offline, b edits two skills; meanwhile a deletes one of them. Back online, b's edits go
    // out, and the deleted-there, edited-here skill is kept everywhere, with a notice.
    await b.context.setOffline(true);
    await manage(b.page, { action: 'patch', name: 'b-1', old_string: 'Step 1: b.', new_string: 'Step 1: written offline.' });
    await manage(b.page, { action: 'patch', name: 'a-1', old_string: 'Step 1: a.', new_string: 'Step 1: still needed.' });
    await expect(syncStatus(b.page)).toHaveText(/^2 changes waiting/, { timeout: 15_000 });
    await manage(a.page, { action: 'delete', name: 'a-1' });
    await syncNow(a.page);
    await expect.poll(async () => (await gitServer.git(repo, 'ls-tree', '--name-only', 'main')).includes('a-1\n')).toBe(false);
    await b.context.setOffline(false);
    await expect.poll(() => gitServer.git(repo, 'show', 'main:b-1/SKILL.md'), { timeout: 20_000 }).toContain('written offline');
    await expect(b.page.getByRole('list', { name: 'Sync notices' })).toContainText("'a-1' was deleted on another device and edited here");
    await expect.poll(() => gitServer.git(repo, 'show', 'main:a-1/SKILL.md')).toContain('still needed');
    await syncNow(a.page);
    await expect.poll(() => readSkillFile(a.page, 'a-1/SKILL.md')).toContain('still needed');
    await a.context.close();
    await b.context.close();
  });

  test('a server that does not allow the app says which setting to add', async ({ browser, gitServer, baseURL }) => {
    const repo = await gitServer.createRepo('closed');
    gitServer.setCors('refuse');
    const a = await openDevice(browser);
    await a.page.getByRole('button', { name: 'Settings' }).click();
    const region = a.page.getByRole('region', { name: 'Sync' });
    await region.getByLabel('Sync with').selectOption({ label: 'Git server' });
    await region.getByLabel('Repository URL').fill(repo.url);
    await region.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect(syncStatus(a.page)).toContainText(`[repository] ACCESS_CONTROL_ALLOW_ORIGIN = ${new URL(baseURL!).origin}`);
    await a.context.close();
  });
});
