import type { LedgerEntry, SkillFiles } from './ledger';
import { skillLockKey, type SkillEngine } from './skillEngine';
import type { LedgerActor } from '../tools/writeContext';

/**
 * Rolls back one ledger entry: the files it changed go back to their `before` side and the
 * files it created go away, as one journaled change. The rollback is itself a ledger entry
 * (with the current state as its `before`), so it can be rolled back in turn.
 */
export async function rollbackEntry(
  engine: SkillEngine,
  entryId: string,
  actor: LedgerActor = 'user',
): Promise<{ success: true; entry: LedgerEntry } | { success: false; error: string }> {
  const target = await engine.ledger.get(entryId);
  if (!target) return { success: false, error: `Ledger entry ${entryId} not found.` };
  return engine.locks.withLock(skillLockKey(target.skill), async () => {
    let plan;
    try {
      plan = await engine.ledger.planRollback(target);
    } catch (error) {
      return { success: false as const, error: (error as Error).message };
    }
    const touched = [...new Set([...plan.writes.keys(), ...plan.deletes])];
    const current: SkillFiles = new Map();
    for (const path of touched) {
      const bytes = await engine.files.read(path);
      if (bytes) current.set(path, bytes);
    }
    const entry = await engine.ledger.prepare({
      actor,
      action: 'rollback',
      skill: target.skill,
      before: current,
      after: plan.writes,
      rollbackOf: target.id,
      evidence: { rolled_back_action: target.action },
    });
    await engine.committer.commit(
      `rollback ${target.id}`,
      { writes: [...plan.writes.entries()], deletes: plan.deletes.filter((p) => current.has(p)) },
      { ledger: entry },
    );
    await refreshCatalogFor(engine, touched);
    await syncUsageAfterRestore(engine, target.skill, touched);
    engine.onChange?.({ skill: target.skill, action: 'rollback', dir: skillDirOf(touched[0] ?? '') });
    return { success: true as const, entry };
  });
}

/** The skill directory of a path inside it (`skills/a/b/references/x.md` → `skills/a/b`). */
export function skillDirOf(path: string): string {
  const parts = path.split('/');
  const support = parts.findIndex((p, i) => i > 1 && ['references', 'templates', 'scripts', 'assets', 'evals', 'SKILL.md'].includes(p));
  return parts.slice(0, support > 0 ? support : parts.length - 1).join('/');
}

/** Re-reads SKILL.md of every directory a change touched and updates the catalogue. */
export async function refreshCatalogFor(engine: SkillEngine, paths: string[]): Promise<void> {
  const dirs = new Set(paths.map(skillDirOf));
  for (const dir of dirs) {
    if (dir.startsWith('skills/.archive')) continue;
    const text = await engine.files.readText(`${dir}/SKILL.md`);
    if (text === null) {
      await engine.catalog.remove(dir);
      // Drop what a removed skill leaves behind (support files, an empty category).
      if ((await engine.files.walk(dir)).length) await engine.files.deleteTree(dir);
    } else {
      await engine.catalog.upsert(dir, text);
    }
  }
}

async function syncUsageAfterRestore(engine: SkillEngine, skill: string, touched: string[]): Promise<void> {
  const live = engine.catalog.findByName(skill)[0];
  if (live) {
    const record = await engine.usage.find(skill);
    if (record?.state === 'archived') await engine.usage.setState(skill, 'active');
    else if (!record) await engine.usage.recordCreated(skill, 'user');
  } else if (touched.some((p) => p.startsWith('skills/.archive/'))) {
    await engine.usage.setState(skill, 'archived');
  }
}
