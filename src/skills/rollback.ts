import type { LedgerActor } from '../tools/writeContext';
import type { InstalledSource } from './installedSource';
import type { LedgerEntry, SkillFiles } from './ledger';
import type { SkillEngine } from './skillEngine';
import type { LifecycleFailure, SkillChange } from './skillChange';
import { guessSkillDir, skillDirOfPath, skillDirsOf } from './skillPaths';

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
  // Real folders, never guessed from folder names: the SKILL.md paths the change touches and
  // where the catalogue has the skill now (skillPaths.ts).
  const dirs = skillDirsOf(
    [...touched, ...target.before.map((v) => v.path), ...target.after.map((v) => v.path)],
    engine.catalog.findByName(target.skill).map((entry) => entry.dir),
  );
  const current: SkillFiles = new Map();
  for (const path of touched) {
    const bytes = await engine.files.read(path);
    if (bytes) current.set(path, bytes);
  }
  // An update from the source carries the source record on both sides (src/install/update.ts): the
  // rollback puts the earlier one back, and records the swap so it can be rolled back in turn.
  const installed = installedFromSwap(target);
  return {
    skill: target.skill,
    action: 'rollback',
    dir: skillDirOfPath(touched[0] ?? '', dirs),
    files: {
      actor,
      label: `rollback ${target.id}`,
      before: current,
      after: plan.writes,
      changes: { writes: [...plan.writes.entries()], deletes: plan.deletes.filter((p) => current.has(p)) },
      evidence: { rolled_back_action: target.action, ...installed?.evidence },
      rollbackOf: target.id,
    },
    ...(installed ? { usage: [{ op: 'setInstalledFrom' as const, name: target.skill, installedFrom: installed.restore, staleVerdict: false }] } : {}),
    settle: async () => {
      await refreshCatalogFor(engine, touched, dirs);
      await syncUsageAfterRestore(engine, target.skill, touched);
    },
    result: null,
  };
}

/** The source record a rollback of `target` restores, when `target` changed it. */
function installedFromSwap(target: LedgerEntry): { restore: InstalledSource | null; evidence: Record<string, unknown> } | null {
  const { evidence } = target;
  if (!('installed_from_before' in evidence) || !('installed_from_after' in evidence)) return null;
  const restore = (evidence.installed_from_before ?? null) as InstalledSource | null;
  return { restore, evidence: { installed_from_before: evidence.installed_from_after ?? null, installed_from_after: restore } };
}

/**
 * The skill directory of a path inside it, guessed from the support folders. Only for paths no
 * known folder claims; `skillDirOfPath` (skillPaths.ts) with the real folders is the answer.
 */
export function skillDirOf(path: string): string {
  return guessSkillDir(path);
}

/** Re-reads SKILL.md of every directory a change touched and updates the catalogue. */
export async function refreshCatalogFor(engine: SkillEngine, paths: string[], knownDirs: string[] = skillDirsOf(paths)): Promise<void> {
  // Every folder a path belongs to, and every folder whose SKILL.md the change touched (a
  // nested skill's too: it is its own catalogue entry).
  const dirs = new Set([...paths.map((path) => skillDirOfPath(path, knownDirs)), ...skillDirsOf(paths)]);
  for (const dir of dirs) {
    if (dir.startsWith('skills/.archive')) continue;
    const text = await engine.files.readText(`${dir}/SKILL.md`);
    if (text === null) {
      await engine.catalog.remove(dir);
      // Drop what a removed skill leaves behind (support files, an empty category), unless a
      // nested skill still lives inside it.
      const holdsSkill = engine.catalog.entries().some((entry) => entry.dir.startsWith(`${dir}/`));
      if (!holdsSkill && (await engine.files.walk(dir)).length) await engine.files.deleteTree(dir);
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
