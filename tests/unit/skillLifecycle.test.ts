import { describe, expect, it, vi } from 'vitest';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import {
  archiveSkill,
  commitSkillChange,
  deleteSkill,
  restoreSkill,
  rollbackEntry,
  setPinned,
  setSkillState,
  withSkillLock,
  type HeldSkillLock,
} from '../../src/skills/skillLifecycle';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import type { LockManager } from '../../src/storage/fileStore';
import type { ChangeCommitter } from '../../src/skills/fileChanges';
import type { SkillChange } from '../../src/skills/skillEngine';

/**
 * A test engine whose lock manager, committer and change events write one shared log, so a
 * test can see which lock each commit and each change event happened under.
 */
function loggedEngine() {
  const t = createTestEngine();
  const log: string[] = [];
  const inner = new MemoryLockManager();
  const locks: LockManager = {
    withLock: (key, fn) =>
      inner.withLock(key, async () => {
        log.push(`enter ${key}`);
        try {
          return await fn();
        } finally {
          log.push(`exit ${key}`);
        }
      }),
  };
  const committer = t.engine.committer;
  const loggingCommitter: ChangeCommitter = {
    async commit(label, changes, effects) {
      log.push(`commit ${label.split(' ')[0]}${label.startsWith('skill_manage') ? ` ${label.split(' ')[1]}` : ''}`);
      await committer.commit(label, changes, effects);
    },
  };
  const changes: SkillChange[] = [];
  t.engine.locks = locks;
  t.engine.committer = loggingCommitter;
  t.engine.onChange = (change) => {
    log.push(`notify ${change.action}`);
    changes.push(change);
  };
  return { ...t, log, changes };
}

async function withSkill(t: ReturnType<typeof createTestEngine>, name = 'git-style', files: Record<string, string> = {}) {
  expect((await t.manage({ action: 'create', name, content: skillContent(name) }, t.context('user'))).success).toBe(true);
  for (const [path, content] of Object.entries(files)) {
    expect((await t.manage({ action: 'write_file', name, file_path: path, file_content: content }, t.context('user'))).success).toBe(true);
  }
}

describe('commitSkillChange: every lifecycle action locks the skill, commits and notifies inside the lock', () => {
  it('archive, restore, rollback, pin and state changes each run enter → commit → notify → exit under skill:<name>', async () => {
    const t = loggedEngine();
    await withSkill(t);
    t.log.length = 0;
    expect((await archiveSkill(t.engine, 'git-style', { actor: 'user' })).success).toBe(true);
    expect((await restoreSkill(t.engine, 'git-style')).success).toBe(true);
    const restore = (await t.engine.ledger.list('git-style')).at(-1)!;
    expect((await rollbackEntry(t.engine, restore.id)).success).toBe(true);
    expect(t.log).toEqual([
      'enter skill:git-style',
      'commit archive',
      'notify archive',
      'exit skill:git-style',
      'enter skill:git-style',
      'commit restore',
      'notify restore',
      'exit skill:git-style',
      'enter skill:git-style',
      'commit rollback',
      'notify rollback',
      'exit skill:git-style',
    ]);
    t.log.length = 0;
    await setSkillState(t.engine, 'other', 'stale', { action: 'curator:stale' });
    await setPinned(t.engine, 'other', true);
    // Record-only changes have no files to commit, but still lock and notify.
    expect(t.log).toEqual(['enter skill:other', 'notify curator:stale', 'exit skill:other', 'enter skill:other', 'notify pin', 'exit skill:other']);
  });

  it('a concurrent patch of the same skill is serialized with an archive: the sections never overlap', async () => {
    const t = loggedEngine();
    await withSkill(t);
    t.log.length = 0;
    const [archived, patched] = await Promise.all([
      archiveSkill(t.engine, 'git-style', { actor: 'user' }),
      t.manage({ action: 'patch', name: 'git-style', old_string: 'Do the thing', new_string: 'Do it' }),
    ]);
    expect(archived.success).toBe(true);
    // The archive took the lock first; the patch ran after it and found no live skill.
    expect(patched.success).toBe(false);
    expect(t.log).toEqual(['enter skill:git-style', 'commit archive', 'notify archive', 'exit skill:git-style', 'enter skill:git-style', 'exit skill:git-style']);
    expect(await t.files.readText('skills/.archive/git-style/SKILL.md')).toContain('Do the thing');
    expect(await t.files.exists('skills/git-style/SKILL.md')).toBe(false);
  });

  it('a patch that holds the lock first lands in the archived copy (no lost update)', async () => {
    const t = loggedEngine();
    await withSkill(t);
    t.log.length = 0;
    const patching = t.manage({ action: 'patch', name: 'git-style', old_string: 'Do the thing', new_string: 'Do it' });
    await vi.waitFor(() => expect(t.log).toContain('enter skill:git-style'), { timeout: 5000 });
    const archived = await archiveSkill(t.engine, 'git-style', { actor: 'user' });
    expect((await patching).success).toBe(true);
    expect(archived.success).toBe(true);
    expect(t.log).toEqual([
      'enter skill:git-style',
      'commit skill_manage patch',
      'notify patch',
      'exit skill:git-style',
      'enter skill:git-style',
      'commit archive',
      'notify archive',
      'exit skill:git-style',
    ]);
    expect(await t.files.readText('skills/.archive/git-style/SKILL.md')).toContain('Do it');
  });

  it('refuses a held lock it did not issue, one already released, or one for another skill', async () => {
    const t = createTestEngine();
    await withSkill(t);
    const noChange = async () => ({ success: false as const, error: 'unused' });
    const fake: HeldSkillLock = { skill: 'git-style', held: true };
    await expect(commitSkillChange(t.engine, 'git-style', noChange, fake)).rejects.toThrow(/held by withSkillLock/);
    let released: HeldSkillLock | null = null;
    await withSkillLock(t.engine, 'git-style', async (lock) => {
      released = lock;
      await expect(commitSkillChange(t.engine, 'other', noChange, lock)).rejects.toThrow(/lock of 'other'/);
      expect((await archiveSkill(t.engine, 'git-style', { actor: 'user', lock })).success).toBe(true);
    });
    expect(released!.held).toBe(false);
    await expect(commitSkillChange(t.engine, 'git-style', noChange, released!)).rejects.toThrow(/held by withSkillLock/);
  });

  it('a refused plan changes nothing, sends no event and releases the lock', async () => {
    const t = loggedEngine();
    t.log.length = 0;
    expect(await archiveSkill(t.engine, 'missing', { actor: 'user' })).toEqual({ success: false, error: "Skill 'missing' not found; nothing to archive." });
    expect(await restoreSkill(t.engine, 'missing')).toEqual({ success: false, error: "No archived skill named 'missing'." });
    expect(await rollbackEntry(t.engine, 'nope')).toEqual({ success: false, error: 'Ledger entry nope not found.' });
    expect(t.log).toEqual(['enter skill:missing', 'exit skill:missing', 'enter skill:missing', 'exit skill:missing']);
    expect(await t.engine.ledger.list()).toEqual([]);
  });

  it('a commit that throws sends no event and leaves the lock free for the next action', async () => {
    const t = createTestEngine();
    await withSkill(t);
    const changes: string[] = [];
    t.engine.onChange = (change) => changes.push(change.action);
    const committer = t.engine.committer;
    t.engine.committer = { commit: async () => Promise.reject(new Error('quota exceeded')) };
    await expect(archiveSkill(t.engine, 'git-style', { actor: 'user' })).rejects.toThrow('quota exceeded');
    expect(changes).toEqual([]);
    expect(await t.files.exists('skills/git-style/SKILL.md')).toBe(true);
    t.engine.committer = committer;
    expect((await archiveSkill(t.engine, 'git-style', { actor: 'user' })).success).toBe(true);
    expect(changes).toEqual(['archive']);
  });
});

describe('lifecycle actions: one ledger entry and exactly one change event each', () => {
  it('archive moves the skill out of the index and records actor, destination and category', async () => {
    const t = loggedEngine();
    await t.manage({ action: 'create', name: 'rebase', category: 'git', content: skillContent('rebase') }, t.context('user'));
    await t.manage({ action: 'write_file', name: 'rebase', file_path: 'references/a.md', file_content: 'alpha' }, t.context('user'));
    t.changes.length = 0;
    const result = await archiveSkill(t.engine, 'rebase', { actor: 'curator', evidence: { reason: 'unused' } });
    expect(result).toMatchObject({ success: true, destination: 'skills/.archive/rebase' });
    expect(t.changes).toEqual([{ skill: 'rebase', action: 'archive', dir: 'skills/git/rebase' }]);
    const entry = (await t.engine.ledger.list('rebase')).at(-1)!;
    expect(entry).toMatchObject({ actor: 'curator', action: 'archive', evidence: { reason: 'unused', archived: true, destination: 'skills/.archive/rebase', category: 'git' } });
    expect(entry.after.map((v) => v.path)).toEqual(['skills/.archive/rebase/SKILL.md', 'skills/.archive/rebase/references/a.md']);
    expect(await t.files.walk('skills/git')).toEqual([]);
    expect(await t.files.list('skills')).toEqual([{ name: '.archive', kind: 'directory' }]);
    expect(t.engine.catalog.findByName('rebase')).toEqual([]);
    expect((await t.engine.usage.get('rebase')).state).toBe('archived');
  });

  it('restore puts the files back flat, active, with a ledger entry naming where it came from', async () => {
    const t = loggedEngine();
    await withSkill(t, 'git-style', { 'references/a.md': 'alpha' });
    await archiveSkill(t.engine, 'git-style', { actor: 'user' });
    t.changes.length = 0;
    expect(await restoreSkill(t.engine, 'git-style')).toEqual({ success: true, dir: 'skills/git-style' });
    expect(t.changes).toEqual([{ skill: 'git-style', action: 'restore', dir: 'skills/git-style' }]);
    expect((await t.engine.ledger.list('git-style')).at(-1)).toMatchObject({ actor: 'user', action: 'restore', evidence: { from: 'skills/.archive/git-style' } });
    expect(await t.files.readText('skills/git-style/references/a.md')).toBe('alpha');
    expect(await t.files.exists('skills/.archive/git-style')).toBe(false);
    expect((await t.engine.usage.get('git-style')).state).toBe('active');
  });

  it('delete removes files, catalogue entry and usage record; refuses pinned skills', async () => {
    const t = loggedEngine();
    await withSkill(t, 'git-style', { 'references/a.md': 'alpha' });
    await setPinned(t.engine, 'git-style', true);
    t.changes.length = 0;
    const refused = await deleteSkill(t.engine, 'git-style', { actor: 'user' });
    expect(refused).toEqual({ success: false, error: "Skill 'git-style' is pinned and cannot be deleted. Unpin it first." });
    expect(t.changes).toEqual([]);
    await setPinned(t.engine, 'git-style', false);
    t.changes.length = 0;
    const deleted = await deleteSkill(t.engine, 'git-style', { actor: 'user', evidence: { why: 'test' } });
    expect(deleted).toMatchObject({ success: true, dir: 'skills/git-style', entry: { actor: 'user', action: 'delete', evidence: { why: 'test' } } });
    expect(t.changes).toEqual([{ skill: 'git-style', action: 'delete', dir: 'skills/git-style' }]);
    expect(await t.files.walk('skills')).toEqual([]);
    expect(await t.engine.usage.find('git-style')).toBeNull();
    expect(t.engine.catalog.findByName('git-style')).toEqual([]);
  });

  it('rollback of a rollback: patch, undo, redo — each a ledger entry pointing at the one it undid', async () => {
    const t = loggedEngine();
    await withSkill(t);
    const original = await t.files.readText('skills/git-style/SKILL.md');
    await t.manage({ action: 'patch', name: 'git-style', old_string: 'Do the thing', new_string: 'Do it' });
    const patched = await t.files.readText('skills/git-style/SKILL.md');
    const patch = (await t.engine.ledger.list('git-style')).at(-1)!;
    t.changes.length = 0;
    const undo = await rollbackEntry(t.engine, patch.id);
    if (!undo.success) throw new Error(undo.error);
    expect(await t.files.readText('skills/git-style/SKILL.md')).toBe(original);
    const redo = await rollbackEntry(t.engine, undo.entry.id, 'review');
    if (!redo.success) throw new Error(redo.error);
    expect(await t.files.readText('skills/git-style/SKILL.md')).toBe(patched);
    expect(undo.entry).toMatchObject({ action: 'rollback', actor: 'user', rollbackOf: patch.id, evidence: { rolled_back_action: 'patch' } });
    expect(redo.entry).toMatchObject({ action: 'rollback', actor: 'review', rollbackOf: undo.entry.id, evidence: { rolled_back_action: 'rollback' } });
    expect((await t.engine.ledger.list('git-style')).map((e) => e.action)).toEqual(['create', 'patch', 'rollback', 'rollback']);
    expect(t.changes).toEqual([
      { skill: 'git-style', action: 'rollback', dir: 'skills/git-style' },
      { skill: 'git-style', action: 'rollback', dir: 'skills/git-style' },
    ]);
    expect(t.engine.catalog.findByName('git-style')[0]!.description).toBe('Use for git-style.');
  });

  it('rolling back an archive brings the skill back live and active', async () => {
    const t = createTestEngine();
    await withSkill(t);
    const archived = await archiveSkill(t.engine, 'git-style', { actor: 'user' });
    if (!archived.success) throw new Error(archived.error);
    expect((await rollbackEntry(t.engine, archived.entry.id)).success).toBe(true);
    expect(await t.files.exists('skills/git-style/SKILL.md')).toBe(true);
    expect(await t.files.exists('skills/.archive/git-style/SKILL.md')).toBe(false);
    expect(t.engine.catalog.findByName('git-style')).toHaveLength(1);
    expect((await t.engine.usage.get('git-style')).state).toBe('active');
  });

  it('pin and unpin change only the usage record: one event each, no ledger entry', async () => {
    const t = loggedEngine();
    await withSkill(t);
    const entries = (await t.engine.ledger.list()).length;
    t.changes.length = 0;
    expect(await setPinned(t.engine, 'git-style', true)).toEqual({ success: true, pinned: true });
    expect((await t.engine.usage.get('git-style')).pinned).toBe(true);
    expect(await setPinned(t.engine, 'git-style', false)).toEqual({ success: true, pinned: false });
    expect((await t.engine.usage.get('git-style')).pinned).toBe(false);
    expect(t.changes).toEqual([
      { skill: 'git-style', action: 'pin', dir: 'skills/git-style' },
      { skill: 'git-style', action: 'unpin', dir: 'skills/git-style' },
    ]);
    expect(await t.engine.ledger.list()).toHaveLength(entries);
  });
});

describe('skill_manage delete runs the same lifecycle functions', () => {
  it("the review agent's delete is an archive: actor review, one 'archive' event", async () => {
    const t = loggedEngine();
    await t.manage({ action: 'create', name: 'narrow', content: skillContent('narrow') }, t.context('review'));
    await t.manage({ action: 'create', name: 'umbrella', content: skillContent('umbrella') }, t.context('review'));
    t.changes.length = 0;
    t.log.length = 0;
    const result = await t.manage({ action: 'delete', name: 'narrow', absorbed_into: 'umbrella' }, t.context('review'));
    expect(result).toMatchObject({ success: true, _archived: true });
    expect(t.changes).toEqual([{ skill: 'narrow', action: 'archive', dir: 'skills/narrow' }]);
    expect(t.log).toEqual(['enter skill:narrow', 'commit archive', 'notify archive', 'exit skill:narrow']);
    expect((await t.engine.ledger.list('narrow')).at(-1)).toMatchObject({ actor: 'review', action: 'archive', evidence: { absorbed_into: 'umbrella', archived: true } });
  });

  it("the chat agent's delete removes the skill: actor agent, one 'delete' event", async () => {
    const t = loggedEngine();
    await withSkill(t);
    t.changes.length = 0;
    t.log.length = 0;
    expect(await t.manage({ action: 'delete', name: 'git-style' })).toEqual({ success: true, message: "Skill 'git-style' deleted." });
    expect(t.changes).toEqual([{ skill: 'git-style', action: 'delete', dir: 'skills/git-style' }]);
    expect(t.log).toEqual(['enter skill:git-style', 'commit delete', 'notify delete', 'exit skill:git-style']);
    expect((await t.engine.ledger.list('git-style')).at(-1)).toMatchObject({ actor: 'agent', action: 'delete', evidence: { archived: false } });
  });
});
