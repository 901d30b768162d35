/**
 * The skill tools end to end on real OPFS and IndexedDB (SPEC §5, §7, §3.3 inv. 3 and 5):
 * every skill_manage action through the tool registry, checked against the files, the
 * ledger and usage records, the catalogue after a reload (from the snapshot, no rescan)
 * and the skill index; then two tabs patching one skill at once.
 */
import { expect, test } from '@playwright/test';
import { INDEX_OPTIONS, callTool, openSkills, skillMd, storeState } from './skillHarness';

const NAME = 'deploy-checklist';
const DIR = `skills/devops/${NAME}`;

const BODY = [
  '# Deploy checklist',
  '',
  '1. Run the tests with `npm test` and read every failure.',
  '2. Build with `npm run build`.',
  '3. Tag the release.',
  '',
].join('\n');

test('create, write_file, view, patch, remove_file and delete land in OPFS, the ledger, usage and the index', async ({ page }) => {
  await openSkills(page);

  const created = await callTool(page, 'skill_manage', {
    action: 'create',
    name: NAME,
    category: 'devops',
    content: skillMd(NAME, 'Use when deploying the web app.', BODY),
  });
  expect(created.result, created.raw).toMatchObject({ success: true, path: `devops/${NAME}`, category: 'devops' });

  const supporting = {
    'references/api.md': '# API\n\nGET /health returns 200.\n',
    'templates/release-notes.md': '## Release {version}\n',
    'scripts/smoke.sh': '#!/bin/sh\ncurl -f http://localhost/health\n',
  };
  for (const [file_path, file_content] of Object.entries(supporting)) {
    const written = await callTool(page, 'skill_manage', { action: 'write_file', name: NAME, file_path, file_content });
    expect(written.result, written.raw).toMatchObject({ success: true, path: `${DIR}/${file_path}` });
  }

  const viewed = await callTool(page, 'skill_view', { name: NAME });
  expect(viewed.result, viewed.raw).toMatchObject({
    success: true,
    name: NAME,
    description: 'Use when deploying the web app.',
    skill_dir: DIR,
    linked_files: {
      references: ['references/api.md'],
      templates: ['templates/release-notes.md'],
      scripts: ['scripts/smoke.sh'],
    },
  });
  expect(viewed.result.content).toContain('3. Tag the release.');
  const viewedFile = await callTool(page, 'skill_view', { name: NAME, file_path: 'references/api.md' });
  expect(viewedFile.result).toMatchObject({ success: true, content: supporting['references/api.md'], file_type: '.md' });

  // The model retyped the line with different spacing: only a whitespace-tolerant strategy matches.
  const patched = await callTool(page, 'skill_manage', {
    action: 'patch',
    name: NAME,
    old_string: '2.  Build   with `npm run build`.',
    new_string: '2. Build with `npm run build` and check the bundle size.',
  });
  expect(patched.result, patched.raw).toMatchObject({ success: true });
  expect(patched.result.strategy).not.toBe('exact');

  const removed = await callTool(page, 'skill_manage', { action: 'remove_file', name: NAME, file_path: 'templates/release-notes.md' });
  expect(removed.result, removed.raw).toMatchObject({ success: true });

  // Files in OPFS.
  const expectedSkillMd = skillMd(NAME, 'Use when deploying the web app.', BODY.replace('2. Build with `npm run build`.', '2. Build with `npm run build` and check the bundle size.'));
  const onDisk = await page.evaluate(async (dir) => {
    const files = globalThis.knack!.files!;
    return { paths: await files.walk('skills'), skillMd: await files.readText(`${dir}/SKILL.md`) };
  }, DIR);
  expect(onDisk.paths).toEqual([`${DIR}/SKILL.md`, `${DIR}/references/api.md`, `${DIR}/scripts/smoke.sh`]);
  expect(onDisk.skillMd).toBe(expectedSkillMd);

  // Ledger: one entry per mutation, in order, whose hashes are the files' hashes.
  const records = await page.evaluate(async (name) => {
    const k = globalThis.knack!;
    const ledger = (await k.records!<{ action: string; actor: string; skill: string; at: number; id: string; before: { path: string; hash: string }[]; after: { path: string; hash: string }[] }>('ledger').getAll())
      .filter((e) => e.skill === name)
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1));
    const usage = await k.records!<Record<string, unknown>>('usage').get(name);
    return { ledger, usage };
  }, NAME);
  expect(records.ledger.map((e) => e.action)).toEqual(['create', 'write_file', 'write_file', 'write_file', 'patch', 'remove_file']);
  expect(new Set(records.ledger.map((e) => e.actor))).toEqual(new Set(['agent']));
  const skillMdHash = await page.evaluate((path) => globalThis.skillProbe!.sha256(path), `${DIR}/SKILL.md`);
  const patchEntry = records.ledger[4]!;
  expect(patchEntry.after).toEqual([{ path: `${DIR}/SKILL.md`, hash: skillMdHash }]);
  expect(patchEntry.before).toHaveLength(1);
  expect(patchEntry.before[0]!.hash).not.toBe(skillMdHash);
  expect(records.ledger[5]!.after).toEqual([]);
  expect(records.ledger[5]!.before.map((v) => v.path)).toEqual([`${DIR}/templates/release-notes.md`]);
  // Usage: three write_files, a patch and a remove_file are patches; two views are views and uses.
  expect(records.usage).toMatchObject({ name: NAME, source: 'foreground', created_by: null, patch_count: 5, view_count: 2, use_count: 2, state: 'active' });

  const before = await storeState(page);
  expect(before.catalog).toEqual(before.rescan);
  expect(before.snapshot).toEqual(before.rescan);
  expect(before.listed).toEqual([NAME]);

  // A new session: the catalogue comes from the IndexedDB snapshot, not from the files. A
  // rescan would start the generation again at 1; the snapshot carries the writer's number.
  await page.reload();
  await openSkills(page);
  const after = await storeState(page);
  expect(before.generation).toBeGreaterThan(1);
  expect(after.generation).toBe(before.generation);
  expect(after.catalog).toEqual(before.catalog);
  expect(after.listed).toEqual([NAME]);
  const index = await page.evaluate((options) => globalThis.knack!.skills!.index.render(options), INDEX_OPTIONS);
  expect(index).toContain('  devops:\n    - deploy-checklist: Use when deploying the web app. [unverified]');

  const deleted = await callTool(page, 'skill_manage', { action: 'delete', name: NAME });
  expect(deleted.result, deleted.raw).toMatchObject({ success: true, message: `Skill '${NAME}' deleted.` });
  const gone = await storeState(page);
  expect(gone.files).toEqual([]);
  expect(gone.catalog).toEqual([]);
  expect(gone.snapshot).toEqual([]);
  expect(gone.listed).toEqual([]);
  const afterDelete = await page.evaluate(async (name) => {
    const k = globalThis.knack!;
    const ledger = (await k.records!<{ action: string; skill: string; before: unknown[]; after: unknown[] }>('ledger').getAll()).filter((e) => e.skill === name);
    return {
      deleteEntry: ledger.find((e) => e.action === 'delete') ?? null,
      usage: (await k.records!('usage').get(name)) ?? null,
      categoryLeft: (await k.files!.list('skills')).map((e) => e.name),
      index: await k.skills!.index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500 }),
    };
  }, NAME);
  expect(afterDelete.deleteEntry?.before).toHaveLength(3); // SKILL.md, references/api.md, scripts/smoke.sh
  expect(afterDelete.deleteEntry?.after).toEqual([]);
  expect(afterDelete.usage).toBeNull();
  expect(afterDelete.categoryLeft).toEqual([]);
  expect(afterDelete.index).not.toContain(NAME);

  await page.reload();
  await openSkills(page);
  const reloaded = await storeState(page);
  expect(reloaded.catalog).toEqual([]);
  expect(reloaded.listed).toEqual([]);
});

const PATCHES_PER_TAB = 50;
const ANCHOR = '<!-- log end -->';

test('two tabs patching one skill 50 times each lose no update', async ({ context }) => {
  test.setTimeout(90_000);
  const [tabA, tabB] = [await context.newPage(), await context.newPage()];
  await openSkills(tabA);
  await openSkills(tabB);

  const created = await callTool(tabA, 'skill_manage', {
    action: 'create',
    name: 'shared-log',
    content: skillMd('shared-log', 'Use when two tabs write the same skill.', `# Shared log\n\n${ANCHOR}\n`),
  });
  expect(created.result, created.raw).toMatchObject({ success: true });
  // Tab B learns of the new skill from the BroadcastChannel `skill-changed` event.
  await tabB.waitForFunction(() => globalThis.knack!.skills!.engine.catalog.findByName('shared-log').length === 1);

  // Each tab runs two loops at once, so patches also queue on the lock within a tab.
  const appendLines = ({ tab, count, anchor }: { tab: string; count: number; anchor: string }) =>
    (async () => {
      const outcomes: { line: string; success: boolean; error: unknown }[] = [];
      const loop = async (lane: number) => {
        for (let i = lane; i < count; i += 2) {
          const line = `- ${tab} ${i}`;
          const { result } = await globalThis.skillProbe!.call('skill_manage', {
            action: 'patch',
            name: 'shared-log',
            old_string: anchor,
            new_string: `${line}\n${anchor}`,
          });
          outcomes.push({ line, success: result.success, error: result.error ?? null });
        }
      };
      await Promise.all([loop(0), loop(1)]);
      return outcomes;
    })();

  const [fromA, fromB] = await Promise.all([
    tabA.evaluate(appendLines, { tab: 'A', count: PATCHES_PER_TAB, anchor: ANCHOR }),
    tabB.evaluate(appendLines, { tab: 'B', count: PATCHES_PER_TAB, anchor: ANCHOR }),
  ]);
  const outcomes = [...fromA, ...fromB];
  expect(outcomes).toHaveLength(2 * PATCHES_PER_TAB);

  const finalText = (await tabA.evaluate(() => globalThis.knack!.files!.readText('skills/shared-log/SKILL.md')))!;
  const linesInFile = finalText.split('\n').filter((line) => /^- [AB] \d+$/.test(line));
  const succeeded = outcomes.filter((o) => o.success);
  for (const failed of outcomes.filter((o) => !o.success)) {
    expect(typeof failed.error, `failed patch ${failed.line} must say why`).toBe('string');
    expect(linesInFile).not.toContain(failed.line);
  }
  // Every successful patch's line is in the file, exactly once, and nothing else was added.
  expect(linesInFile.slice().sort()).toEqual(succeeded.map((o) => o.line).sort());
  expect(succeeded.length).toBeGreaterThan(0);
  expect(finalText.endsWith(`${ANCHOR}\n`)).toBe(true);
  // Lines from both tabs are interleaved: the loops really ran at the same time.
  const firstB = linesInFile.findIndex((l) => l.startsWith('- B'));
  const lastA = linesInFile.map((l) => l.startsWith('- A')).lastIndexOf(true);
  expect(firstB).toBeLessThan(lastA);

  // Ledger and usage saw each successful patch once (both are written under the skill's lock).
  const records = await tabB.evaluate(async () => {
    const k = globalThis.knack!;
    const ledger = (await k.records!<{ action: string; skill: string }>('ledger').getAll()).filter((e) => e.skill === 'shared-log');
    const usage = await k.records!<{ patch_count: number }>('usage').get('shared-log');
    return { patches: ledger.filter((e) => e.action === 'patch').length, patchCount: usage?.patch_count ?? -1 };
  });
  expect(records.patches).toBe(succeeded.length);
  expect(records.patchCount).toBe(succeeded.length);

  for (const tab of [tabA, tabB]) {
    const state = await storeState(tab);
    expect(state.catalog).toEqual(state.rescan);
    expect(state.snapshot).toEqual(state.rescan);
    expect(state.listed).toEqual(['shared-log']);
  }
});
