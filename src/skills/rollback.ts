import type { LedgerActor } from '../tools/writeContext';
import type { LedgerEntry, SkillFiles } from './ledger';
import type { SkillEngine } from './skillEngine';
import type { LifecycleFailure, SkillChange } from './skillLifecycle';

/**
 * The plan of a rollback, for the lifecycle's commit path (skillLifecycle.ts `rollbackEntry`):
 * the files `target` changed go back to their `before` side and the files it created go away.
 * The new entry's `before` is the current state, so the rollback can be rolled back in turn.
 * Runs under the skill's lock; fails before anything changes when a blob is missing.
 */
export async function planRollbackChange(
  engine: SkillEngine,
  target: LedgerEntry,
  actor: LedgerActor,
): Promise<SkillChange<null> | LifecycleFailure> {
  let plan;
  try {
    plan = await engine.ledger.planRollback(target);
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  const touched = [...new Set([...plan.writes.keys(), ...plan.deletes])];
  const current: SkillFiles = new Map();
  for (const path of touched) {
    const bytes = await engine.files.read(path);
    if (bytes) current.set(path, bytes);
  }
  return {
    skill: target.skill,
    action: 'rollback',
    dir: skillDirOf(touched[0] ?? ''),
    files: {
      actor,
      label: `rollback ${target.id}`,
      before: current,
      after: plan.writes,
      changes: { writes: [...plan.writes.entries()], deletes: plan.deletes.filter((p) => current.has(p)) },
      evidence: { rolled_back_action: target.action },
      rollbackOf: target.id,
    },
    settle: async () => {
      await refreshCatalogFor(engine, touched);
      await syncUsageAfterRestore(engine, target.skill, touched);
    },
    result: null,
  };
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
