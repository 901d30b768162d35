import { archiveSkill, setSkillState } from '../skills/skillLifecycle';
import type { SkillEngine } from '../skills/skillEngine';
import type { RecordStore } from '../storage/recordStore';
import {
  defaultCuratorConfig,
  emptyCuratorState,
  planTransitions,
  oftenCorrected,
  scheduleDecision,
  summarize,
  type CuratorConfig,
  type CuratorState,
  type Transition,
} from './curatorRules';

/**
 * Runs the curator's plan against the library: state changes in usage records, archives as
 * journaled moves into `skills/.archive/`, both through the skill lifecycle
 * (skills/skillLifecycle.ts). Restore, also there, is the way back (the curator never
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
    // Every change goes through the skill lifecycle, which locks the skill and sends the one
    // change event other contexts re-read the folder from (an archive empties it).
    for (const transition of transitions) {
      const action = `curator:${transition.to}`;
      if (transition.to === 'archived') {
        const archived = await archiveSkill(engine, transition.name, { actor: 'curator', evidence: { reason: 'unused past the archive window' } });
        // No files to move (the folder is gone): the record still says archived.
        if (!archived.success) await setSkillState(engine, transition.name, 'archived', { action });
      } else {
        await setSkillState(engine, transition.name, transition.to, { action });
      }
    }
  }
  const corrected = oftenCorrected(records);
  const note = corrected.length ? `; often corrected after use: ${corrected.join(', ')}` : '';
  return { dryRun, transitions, summary: `${summarize(transitions, dryRun)}${note}`, startedAt: now.toISOString() };
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
