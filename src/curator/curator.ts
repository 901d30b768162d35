import { archiveSkill } from '../skills/tools/skillManage';
import { captureFiles, type SkillFiles } from '../skills/ledger';
import { ARCHIVE_DIR, SKILLS_ROOT } from '../skills/skillCatalog';
import { skillLockKey, type SkillEngine } from '../skills/skillEngine';
import type { RecordStore } from '../storage/recordStore';
import {
  defaultCuratorConfig,
  emptyCuratorState,
  planTransitions,
  scheduleDecision,
  summarize,
  type CuratorConfig,
  type CuratorState,
  type Transition,
} from './curatorRules';

/**
 * Runs the curator's plan against the library: state changes in usage records, archives as
 * journaled moves into `skills/.archive/`. Restore is the way back (the curator never
 * un-archives on its own).
 */
export interface CuratorRun {
  dryRun: boolean;
  transitions: Transition[];
  summary: string;
  startedAt: string;
}

export async function runCurator(
  engine: SkillEngine,
  options: { dryRun?: boolean; config?: CuratorConfig; now?: Date } = {},
): Promise<CuratorRun> {
  // `now` lets the Skills view preview a future run and tests drive the clock.
  const now = options.now ?? engine.clock();
  const records = await engine.usage.all();
  const transitions = planTransitions(records, now, options.config ?? defaultCuratorConfig);
  const dryRun = options.dryRun === true;
  if (!dryRun) {
    for (const transition of transitions) {
      // Other contexts re-read this folder from the change event (an archive empties it).
      const dir = engine.catalog.findByName(transition.name)[0]?.dir ?? '';
      if (transition.to === 'archived') {
        const archived = await engine.locks.withLock(skillLockKey(transition.name), () =>
          archiveSkill(engine, transition.name, { actor: 'curator', evidence: { reason: 'unused past the archive window' } }),
        );
        if (!archived.success) await engine.usage.setState(transition.name, 'archived');
      } else {
        await engine.usage.setState(transition.name, transition.to);
      }
      engine.onChange?.({ skill: transition.name, action: `curator:${transition.to}`, dir });
    }
  }
  return { dryRun, transitions, summary: summarize(transitions, dryRun), startedAt: now.toISOString() };
}

/** Scheduled entry point: never throws; records its state in `stateStore` under "curator". */
export async function maybeRunCurator(
  engine: SkillEngine,
  stateStore: Pick<RecordStore<CuratorState>, 'get' | 'put'>,
  idleMs: number,
  config: CuratorConfig = defaultCuratorConfig,
): Promise<CuratorRun | null> {
  try {
    const state = (await stateStore.get('curator')) ?? emptyCuratorState();
    const decision = scheduleDecision(state, engine.clock(), idleMs, config);
    if (decision.seedState) await stateStore.put('curator', decision.seedState);
    if (!decision.run) return null;
    const run = await runCurator(engine, { config });
    await stateStore.put('curator', { lastRunAt: run.startedAt, runCount: state.runCount + 1, lastSummary: run.summary });
    return run;
  } catch (error) {
    console.warn('[knack] curator run failed', error);
    return null;
  }
}

/** Archived copies of `name`: the exact folder first, then `<name>-<14 digits>` newest first. */
export async function findArchived(engine: SkillEngine, name: string): Promise<string[]> {
  const entries = await engine.files.list(ARCHIVE_DIR);
  const exact = entries.filter((e) => e.kind === 'directory' && e.name === name).map((e) => e.name);
  const stamped = entries
    .filter((e) => e.kind === 'directory' && new RegExp(`^${name.replace(/[.]/g, '\\.')}-\\d{14}$`).test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
  return [...exact, ...stamped].map((dir) => `${ARCHIVE_DIR}/${dir}`);
}

/** Moves an archived skill back to `skills/<name>` (flat), active again. */
export async function restoreSkill(engine: SkillEngine, name: string): Promise<{ success: true; dir: string } | { success: false; error: string }> {
  return engine.locks.withLock(skillLockKey(name), async () => {
    const [source] = await findArchived(engine, name);
    if (!source) return { success: false as const, error: `No archived skill named '${name}'.` };
    const destination = `${SKILLS_ROOT}/${name}`;
    if (engine.catalog.findByName(name).length > 0 || (await engine.files.list(destination)).length > 0) {
      return { success: false as const, error: `A skill named '${name}' already exists; rename or delete it before restoring.` };
    }
    const before = await captureFiles(engine.files, source);
    if (!before.has(`${source}/SKILL.md`)) return { success: false as const, error: `The archived copy of '${name}' has no SKILL.md.` };
    const after: SkillFiles = new Map();
    for (const [path, bytes] of before) after.set(destination + path.slice(source.length), bytes);
    const entry = await engine.ledger.prepare({ actor: 'user', action: 'restore', skill: name, before, after, evidence: { from: source } });
    await engine.committer.commit(
      `restore ${name}`,
      { writes: [...after.entries()], deletes: [...before.keys()] },
      { ledger: entry, usage: [{ op: 'setState', name, state: 'active' }] },
    );
    await engine.files.deleteTree(source);
    await engine.catalog.upsert(destination, new TextDecoder().decode(after.get(`${destination}/SKILL.md`)));
    engine.onChange?.({ skill: name, action: 'restore', dir: destination });
    return { success: true as const, dir: destination };
  });
}
