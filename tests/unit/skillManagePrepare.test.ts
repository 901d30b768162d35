/**
 * The per-action checks of `skill_manage` on their own: each action has one, and none of them
 * writes. The messages and refusals themselves are covered through the tool in
 * skillManage.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { PREPARE_BY_ACTION, SKILL_ACTIONS, absorbedInto } from '../../src/skills/tools/skillManagePrepare';
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
