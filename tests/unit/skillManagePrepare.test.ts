/**
 * The per-action checks of `skill_manage` on their own: each action has one, and none of them
 * writes. The messages and refusals themselves are covered through the tool in
 * skillManage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PREPARE_BY_ACTION, SKILL_ACTIONS, absorbedInto, lookupSkill } from '../../src/skills/tools/skillManagePrepare';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

async function engineWithSkill() {
  const t = createTestEngine();
  expect((await t.manage({ action: 'create', name: 'my-skill', content: skillContent('my-skill') })).success).toBe(true);
  expect((await t.manage({ action: 'write_file', name: 'my-skill', file_path: 'references/a.md', file_content: 'alpha\n' })).success).toBe(true);
  return t;
}

async function snapshot(t: ReturnType<typeof createTestEngine>): Promise<Map<string, string | null>> {
  const paths = await t.files.walk('skills');
  return new Map(await Promise.all(paths.map(async (p) => [p, await t.files.readText(p)] as const)));
}

describe('PREPARE_BY_ACTION', () => {
  it('has one check for every action the tool accepts', () => {
    expect(Object.keys(PREPARE_BY_ACTION).sort()).toEqual([...SKILL_ACTIONS].sort());
  });

  it('builds each change without writing anything', async () => {
    const t = await engineWithSkill();
    const before = await snapshot(t);
    const context = t.context('foreground');
    const requests = {
      create: { content: skillContent('other-skill') },
      edit: { content: skillContent('my-skill', 'Use for edits.') },
      patch: { old_string: 'Do the thing', new_string: 'Do it well' },
      write_file: { file_path: 'references/b.md', file_content: 'beta\n' },
      remove_file: { file_path: 'references/a.md' },
      delete: {},
    } as const;
    for (const action of SKILL_ACTIONS) {
      const name = action === 'create' ? 'other-skill' : 'my-skill';
      const prepared = await PREPARE_BY_ACTION[action]({ engine: t.engine, name, args: { action, name, ...requests[action] }, context });
      expect(prepared.success, action).toBe(true);
    }
    expect(await snapshot(t)).toEqual(before);
  });

  it('reports the path and bytes a patch read, so the capture can reuse them', async () => {
    const t = await engineWithSkill();
    const prepared = await PREPARE_BY_ACTION.patch({
      engine: t.engine,
      name: 'my-skill',
      args: { old_string: 'alpha', new_string: 'omega', file_path: 'references/a.md' },
      context: t.context('foreground'),
    });
    if (!prepared.success) throw new Error(`patch was refused: ${JSON.stringify(prepared)}`);
    expect([...prepared.write.writes.keys()]).toEqual(['skills/my-skill/references/a.md']);
    expect(new TextDecoder().decode(prepared.write.alreadyRead?.get('skills/my-skill/references/a.md'))).toBe('alpha\n');
    expect(prepared.write.listed).toContain('skills/my-skill/SKILL.md');
  });

  it('refuses a review patch of a file not read in this turn, before any write', async () => {
    const t = await engineWithSkill();
    const prepared = await PREPARE_BY_ACTION.patch({
      engine: t.engine,
      name: 'my-skill',
      args: { old_string: 'alpha', new_string: 'omega', file_path: 'references/a.md' },
      context: t.context('review'),
    });
    expect(prepared).toMatchObject({ success: false, _read_before_write_required: true });
  });
});

describe('absorbedInto', () => {
  it('trims the umbrella name and treats anything else as none', () => {
    expect(absorbedInto({ absorbed_into: '  umbrella ' })).toBe('umbrella');
    expect(absorbedInto({ absorbed_into: 3 })).toBe('');
    expect(absorbedInto({})).toBe('');
  });
});

/** Writes a skill whose folder is `dir` and whose frontmatter says `name`, as an import would. */
async function placeSkill(t: ReturnType<typeof createTestEngine>, dir: string, name: string) {
  const text = skillContent(name);
  await t.files.write(`${dir}/SKILL.md`, text);
  await t.engine.catalog.upsert(dir, text);
}

describe('lookupSkill', () => {
  it('finds a skill by its frontmatter name as well as by its folder name', async () => {
    const t = createTestEngine();
    await placeSkill(t, 'skills/tools/pdf-folder', 'PDF Tools');
    expect(lookupSkill(t.engine, 'pdf-folder')).toMatchObject({ kind: 'found', entry: { dir: 'skills/tools/pdf-folder' } });
    expect(lookupSkill(t.engine, 'PDF Tools')).toMatchObject({ kind: 'found', entry: { dir: 'skills/tools/pdf-folder' } });
    expect(lookupSkill(t.engine, 'tools/pdf-folder')).toMatchObject({ kind: 'found', entry: { dir: 'skills/tools/pdf-folder' } });
    expect(lookupSkill(t.engine, 'nothing-here')).toEqual({ kind: 'missing' });
  });

  it('reports every candidate of an ambiguous name', async () => {
    const t = createTestEngine();
    await placeSkill(t, 'skills/a/shared', 'shared');
    await placeSkill(t, 'skills/b/shared', 'shared');
    const found = lookupSkill(t.engine, 'shared');
    expect(found.kind).toBe('ambiguous');
    expect(found.kind === 'ambiguous' && found.candidates.map((c) => c.dir).sort()).toEqual(['skills/a/shared', 'skills/b/shared']);
  });
});

describe('skill_manage by frontmatter name', () => {
  it('patches a skill named by its frontmatter name, under its folder', async () => {
    const t = createTestEngine();
    await placeSkill(t, 'skills/tools/pdf-folder', 'pdf-tools');
    const result = await t.manage({ action: 'patch', name: 'pdf-tools', old_string: 'Do the thing', new_string: 'Do it well' });
    expect(result.success).toBe(true);
    expect(await t.files.readText('skills/tools/pdf-folder/SKILL.md')).toContain('Do it well');
  });

  it('refuses an ambiguous name and lists the candidates with their categories', async () => {
    const t = createTestEngine();
    await placeSkill(t, 'skills/a/one', 'twin');
    await placeSkill(t, 'skills/b/two', 'twin');
    const result = await t.manage({ action: 'write_file', name: 'twin', file_path: 'references/x.md', file_content: 'x\n' });
    expect(result).toMatchObject({ success: false });
    expect((result as { candidates?: unknown }).candidates).toEqual([
      { name: 'a/one', category: 'a', frontmatter_name: 'twin' },
      { name: 'b/two', category: 'b', frontmatter_name: 'twin' },
    ]);
    expect(await t.files.exists('skills/a/one/references/x.md')).toBe(false);
    expect(await t.files.exists('skills/b/two/references/x.md')).toBe(false);
  });

  it('still creates a new folder when only a frontmatter name elsewhere matches', async () => {
    const t = createTestEngine();
    await placeSkill(t, 'skills/tools/pdf-folder', 'pdf-tools');
    expect((await t.manage({ action: 'create', name: 'pdf-tools', content: skillContent('pdf-tools') })).success).toBe(true);
    expect(await t.files.exists('skills/pdf-tools/SKILL.md')).toBe(true);
  });
});
