import { describe, expect, it } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { SkillActions } from '../../src/skills/skillActions';
import type { SkillChange } from '../../src/skills/skillEngine';

function setup(overrides: Parameters<typeof createTestEngine>[0] = {}) {
  const t = createTestEngine(overrides);
  const changes: SkillChange[] = [];
  t.engine.onChange = (change) => changes.push(change);
  return { ...t, changes, actions: new SkillActions(t.engine) };
}

describe('SkillActions: the Skills view’s actions, as the user', () => {
  it('save creates and edits through skill_manage with ledger actor user', async () => {
    const t = setup();
    expect(await t.actions.save('create', { name: 'rebase', category: ' git ', content: skillContent('rebase') })).toEqual({ ok: true, message: 'Created skill rebase.' });
    expect(await t.files.exists('skills/git/rebase/SKILL.md')).toBe(true);
    expect(await t.actions.save('edit', { name: 'rebase', category: '', content: skillContent('rebase', 'Use for rebasing.') })).toEqual({
      ok: true,
      message: 'Saved changes to rebase.',
    });
    expect((await t.engine.ledger.list('rebase')).map((e) => [e.actor, e.action])).toEqual([
      ['user', 'create'],
      ['user', 'edit'],
    ]);
    const refused = await t.actions.save('create', { name: 'rebase', category: '', content: skillContent('rebase') });
    expect(refused.ok).toBe(false);
  });

  it('archive, restore, rollback and pin each notify once and say what happened', async () => {
    const t = setup();
    await t.actions.save('create', { name: 'rebase', category: '', content: skillContent('rebase') });
    t.changes.length = 0;
    expect(await t.actions.archive('rebase')).toEqual({ ok: true, message: 'Archived rebase: it is out of the skill index until you restore it.' });
    expect(await t.actions.restore('rebase')).toEqual({ ok: true, message: 'Restored rebase.' });
    const restore = (await t.engine.ledger.list('rebase')).at(-1)!;
    expect(await t.actions.rollback(restore.id)).toEqual({ ok: true, message: 'Rolled back. The rollback is in the history too, so it can be undone.' });
    expect(await t.actions.restore('rebase')).toEqual({ ok: true, message: 'Restored rebase.' });
    expect(await t.actions.togglePin('rebase')).toEqual({
      ok: true,
      message: 'Pinned rebase: it cannot be deleted, and the review agent and curator leave it alone.',
    });
    expect(t.changes.map((c) => c.action)).toEqual(['archive', 'restore', 'rollback', 'restore', 'pin']);
    expect((await t.engine.ledger.list('rebase')).filter((e) => e.action !== 'create').every((e) => e.actor === 'user')).toBe(true);
  });

  it('delete goes through skill_manage: a pinned skill is refused, an unpinned one deleted', async () => {
    const t = setup();
    await t.actions.save('create', { name: 'rebase', category: '', content: skillContent('rebase') });
    await t.actions.togglePin('rebase');
    const refused = await t.actions.delete('rebase');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toContain('pinned');
    expect(await t.actions.togglePin('rebase')).toEqual({ ok: true, message: 'Unpinned rebase.' });
    expect(await t.actions.delete('rebase')).toEqual({ ok: true, message: 'Deleted skill rebase.' });
    expect(await t.files.exists('skills/rebase/SKILL.md')).toBe(false);
  });

  it('failures come back as errors to show, with nothing changed', async () => {
    const t = setup();
    expect(await t.actions.archive('ghost')).toEqual({ ok: false, error: "Skill 'ghost' not found; nothing to archive." });
    expect(await t.actions.restore('ghost')).toEqual({ ok: false, error: "No archived skill named 'ghost'." });
    expect(await t.actions.rollback('nope')).toEqual({ ok: false, error: 'Ledger entry nope not found.' });
    expect(t.changes).toEqual([]);
  });
});
