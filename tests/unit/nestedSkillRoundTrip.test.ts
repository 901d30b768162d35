/**
 * Nothing lost on a round trip (docs/skill-tools.md, "Nested skills on import"): a repository-root
 * skill whose folders hold nested skills, some with the same name, is imported as one skill that
 * keeps every file, and its export gives back every file byte for byte and mode for mode (the
 * zip's external attributes), whether or not its nested skills were also imported on their own.
 */
import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { applyImport, planImport, type ImportPlan } from '../../src/skills/zipImport';
import { buildSkillsZip, collectSkill, exportAllSkills } from '../../src/skills/zipExport';
import { readCentralDirectory } from '../../src/skills/zipArchive';
import { createTestEngine } from './helpers/skillTestEngine';
import { nestedRepoFiles, nestedRepoZip, nestedSkillZip } from '../fixtures/nestedSkillRepo';

const NESTED = ['skills/node/lint', 'skills/node/node-setup', 'skills/node/testing', 'skills/python/lint', 'skills/python/python-setup', 'skills/python/testing', 'skills/python/testing/fixtures'];

const includeAll = (plan: ImportPlan) => Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, collision: 'keep-both' as const }]));

/** Every entry of an archive under `folder/`: path → bytes and Unix mode (with the file-type bits). */
function entriesOf(zip: Uint8Array, folder: string): Map<string, { bytes: Uint8Array; unixMode: number | null }> {
  const directory = readCentralDirectory(zip);
  if ('error' in directory) throw new Error(directory.error);
  const contents = unzipSync(zip);
  const out = new Map<string, { bytes: Uint8Array; unixMode: number | null }>();
  for (const entry of directory.entries) {
    if (entry.isDirectory || !entry.name.startsWith(`${folder}/`)) continue;
    out.set(entry.name.slice(folder.length + 1), { bytes: contents[entry.name]!, unixMode: entry.unixMode });
  }
  return out;
}

async function exportedToolkit(engine: ReturnType<typeof createTestEngine>['engine']) {
  const skill = await collectSkill(engine, 'toolkit');
  expect(skill).not.toBeNull();
  return entriesOf(await buildSkillsZip([skill!]), 'toolkit');
}

function expectSameFiles(exported: Map<string, { bytes: Uint8Array; unixMode: number | null }>) {
  const original = nestedRepoFiles();
  expect([...exported.keys()].sort()).toEqual(original.map((file) => file.path).sort());
  for (const file of original) {
    const back = exported.get(file.path)!;
    expect([...back.bytes], file.path).toEqual([...file.bytes]);
    expect(back.unixMode, file.path).toBe(0o100000 | file.mode);
  }
}

describe('planImport: a repository-root skill with nested skills', () => {
  for (const top of ['', 'toolkit']) {
    it(`is one candidate holding every file, its nested skills listed (SKILL.md ${top ? 'in a top folder' : 'at the zip root'})`, () => {
      const plan = planImport(nestedRepoZip(top), { archiveName: 'toolkit-main.zip' });
      expect(plan.error).toBeNull();
      expect(plan.refusedSkills).toEqual([]);
      expect(plan.strays).toEqual([]);
      expect(plan.skills.map((skill) => skill.name)).toEqual(['toolkit']);
      const [toolkit] = plan.skills;
      expect(toolkit.files.map((file) => file.path).sort()).toEqual(nestedRepoFiles().map((file) => file.path).sort());
      expect(toolkit.nestedSkills.sort()).toEqual(NESTED);
      expect(toolkit.warnings.join(' ')).toContain('Holds 7 nested skills');
    });
  }

  it('a plain skill has no nested skills and no note', () => {
    const plan = planImport(nestedSkillZip('skills/python/lint', 'lint'));
    expect(plan.skills.map((skill) => [skill.name, skill.nestedSkills])).toEqual([['lint', []]]);
    expect(plan.skills[0].warnings).toEqual([]);
  });
});

describe('import then export gives back every file, byte for byte and mode for mode', () => {
  for (const top of ['', 'toolkit']) {
    it(`with SKILL.md ${top ? 'in a top folder' : 'at the zip root'}; the nested skills are catalogue entries where they stand`, async () => {
      const t = createTestEngine();
      const plan = planImport(nestedRepoZip(top), { archiveName: 'toolkit-main.zip' });
      const outcomes = await applyImport(t.engine, plan, includeAll(plan));
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['imported']);
      const dirs = () => t.engine.catalog.entries().map((entry) => entry.dir).sort();
      const expectedDirs = ['skills/toolkit', ...NESTED.map((nested) => `skills/toolkit/${nested}`)].sort();
      expect(dirs()).toEqual(expectedDirs);
      await t.engine.catalog.rescan();
      expect(dirs()).toEqual(expectedDirs);
      expectSameFiles(await exportedToolkit(t.engine));
      // The nested skills start as imported skills do: staged until verified here.
      for (const name of ['toolkit', 'testing', 'lint', 'python-setup', 'node-setup', 'fixtures']) {
        const record = await t.engine.usage.find(name);
        expect([name, record?.source, record?.verification]).toEqual([name, 'import', 'staged']);
      }
    });
  }

  it('a nested skill that came in with its parent exports alone with the modes it was imported with', async () => {
    const t = createTestEngine();
    const plan = planImport(nestedRepoZip('toolkit'));
    await applyImport(t.engine, plan, includeAll(plan));
    const entry = t.engine.catalog.byDirectory('skills/toolkit/skills/node/node-setup')!;
    const skill = await collectSkill(t.engine, entry.name);
    const exported = entriesOf(await buildSkillsZip([skill!]), entry.name);
    const original = nestedRepoFiles().filter((file) => file.path.startsWith('skills/node/node-setup/'));
    expect([...exported.keys()].sort()).toEqual(original.map((file) => file.path.slice('skills/node/node-setup/'.length)).sort());
    for (const file of original) expect(exported.get(file.path.slice('skills/node/node-setup/'.length))!.unixMode, file.path).toBe(0o100000 | file.mode);
    // 750, not the 755 Knack gives a #! script it made itself.
    expect(exported.get('scripts/run.py')!.unixMode).toBe(0o100750);
  });

  it('when a nested skill was also imported on its own before', async () => {
    const t = createTestEngine();
    const alone = planImport(nestedSkillZip('skills/python/lint', 'lint'));
    await applyImport(t.engine, alone, includeAll(alone));
    // A state the import must not reset: re-creating the record would make it active again.
    await t.engine.usage.setState('lint', 'stale');
    const lintRecord = await t.engine.usage.find('lint');
    expect(lintRecord?.state).toBe('stale');
    const plan = planImport(nestedRepoZip('toolkit'));
    await applyImport(t.engine, plan, includeAll(plan));
    expectSameFiles(await exportedToolkit(t.engine));
    // The skill imported on its own keeps its own record: the nested copies do not recreate it.
    expect(await t.engine.usage.find('lint')).toEqual(lintRecord);
    expect((await t.engine.ledger.list('lint')).map((e) => e.action)).toEqual(['import']);
    const lint = await collectSkill(t.engine, 'lint');
    expect(lint?.files.map((file) => file.path)).toEqual(['SKILL.md', 'references/guide.md', 'scripts/run.py']);
  });

  it('when the same archive also holds nested skills as folders of their own, repeated names included', async () => {
    const t = createTestEngine();
    const combined = { ...unzipSync(nestedRepoZip('toolkit')), ...unzipSync(nestedSkillZip('skills/node/testing', 'testing')), ...unzipSync(nestedSkillZip('skills/python/testing', 'testing-py')) };
    // Re-zip keeping each entry's mode: read the modes from the archives they came from.
    const modes = new Map<string, number>();
    for (const zip of [nestedRepoZip('toolkit'), nestedSkillZip('skills/node/testing', 'testing'), nestedSkillZip('skills/python/testing', 'testing-py')]) {
      const directory = readCentralDirectory(zip);
      if ('error' in directory) throw new Error(directory.error);
      for (const entry of directory.entries) modes.set(entry.name, entry.unixMode!);
    }
    const { zipSync } = await import('fflate');
    const archive = zipSync(Object.fromEntries(Object.entries(combined).map(([name, bytes]) => [name, [bytes, { os: 3, attrs: (modes.get(name)! << 16) >>> 0 }]])));
    const plan = planImport(archive);
    expect(plan.skills.map((skill) => skill.name).sort()).toEqual(['testing', 'testing-py', 'toolkit']);
    const outcomes = await applyImport(t.engine, plan, includeAll(plan));
    expect(outcomes.every((outcome) => outcome.status === 'imported')).toBe(true);
    expectSameFiles(await exportedToolkit(t.engine));
  });

  it('Export all holds the tree once: a nested skill travels inside its parent, a skill imported on its own beside it', async () => {
    const t = createTestEngine();
    const alone = planImport(nestedSkillZip('skills/python/lint', 'lint'));
    await applyImport(t.engine, alone, includeAll(alone));
    const plan = planImport(nestedRepoZip('toolkit'));
    await applyImport(t.engine, plan, includeAll(plan));
    const { zip, count } = await exportAllSkills(t.engine);
    expect(count).toBe(2);
    expectSameFiles(entriesOf(zip, 'toolkit'));
    expect([...entriesOf(zip, 'lint').keys()].sort()).toEqual(['SKILL.md', 'references/guide.md', 'scripts/run.py']);
    const folders = new Set(Object.keys(unzipSync(zip)).map((path) => path.split('/')[0]));
    expect([...folders].sort()).toEqual(['lint', 'toolkit']);
  });

  it('after an edit of the parent, the untouched files still come back as they went in', async () => {
    const t = createTestEngine();
    const plan = planImport(nestedRepoZip(''), { archiveName: 'toolkit.zip' });
    await applyImport(t.engine, plan, includeAll(plan));
    expect((await t.manage({ action: 'write_file', name: 'toolkit', file_path: 'references/added.md', file_content: '# added\n' })).success).toBe(true);
    const exported = await exportedToolkit(t.engine);
    expect(exported.get('references/added.md')?.unixMode).toBe(0o100644);
    exported.delete('references/added.md');
    expectSameFiles(exported);
  });
});
