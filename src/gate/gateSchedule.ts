/**
 * Which cases of a phase start, and when a run stops starting them (docs/gate.md, "Budget,
 * concurrency, cancellation"). Cases go through the replay pool in the order given (the pool
 * runs a case's two arms back to back in one slot). Each case, as it starts, first looks its
 * arms up in the cache, so it knows what it will cost before it sends anything:
 * - budget: a case whose uncached arms would take the run past `maxRequests` (counting the
 *   requests of cases still in flight), or that starts after the run used `maxTokens`, is not
 *   run, and no case after it starts;
 * - circuit breaker: after `breakerPairs` unmeasured pairs in a row (in the order they
 *   finished) no further case starts. A case left unscorable by its checks (a regex timeout)
 *   is not the provider's failure and does not count.
 * Cases already in flight when a stop is decided finish and are kept.
 */
import { missingArms, planArm, runPair, type PairContext, type RunMeter } from './gatePair';
import { ReplayAbortedError } from './replayArm';
import type { ReplayPool } from './replayPool';
import { UNSCORABLE_FLAGS } from './summary';
import type { CaseResult, SplitCase } from './types';

export interface GateBudget {
  /** No case starts whose uncached arms would take the run past this many requests. */
  maxRequests?: number;
  /** No case starts once the run has used this many tokens. */
  maxTokens?: number;
}

export interface ScheduleState {
  /** Pairs finished, in the order they finished. */
  results: CaseResult[];
  /** Requests promised to cases in flight (their uncached arms). */
  reserved: number;
  consecutiveUnmeasured: number;
  casesDone: number;
  stoppedBy?: 'breaker' | 'budget';
  phase?: 'dev' | 'holdout';
}

export interface Schedule {
  pool: ReplayPool;
  pair: PairContext;
  budget?: GateBudget;
  breakerPairs: number;
  /** Called after each finished pair (progress). */
  onCase: () => void;
}

export const newScheduleState = (): ScheduleState => ({ results: [], reserved: 0, consecutiveUnmeasured: 0, casesDone: 0 });

function overBudget(budget: GateBudget | undefined, meter: RunMeter, reserved: number, need: number): boolean {
  if (!budget) return false;
  if (budget.maxRequests !== undefined && meter.requests + reserved + need > budget.maxRequests) return true;
  return budget.maxTokens !== undefined && meter.promptTokens + meter.completionTokens >= budget.maxTokens;
}

/** A pair the provider failed (not one whose checks could not run). */
const failedByProvider = (result: CaseResult) =>
  result.outcome === 'unmeasured' && !result.flags.some((flag) => UNSCORABLE_FLAGS.includes(flag));

async function runOne(schedule: Schedule, testCase: SplitCase, state: ScheduleState, signal: AbortSignal): Promise<void> {
  if (state.stoppedBy) return;
  const { pair } = schedule;
  const arms = { base: await planArm(pair, testCase, 'baseline'), skill: await planArm(pair, testCase, 'skill') };
  if (signal.aborted) throw new ReplayAbortedError();
  if (state.stoppedBy) return;
  const need = missingArms(arms);
  if (need > 0 && overBudget(schedule.budget, pair.meter, state.reserved, need)) {
    state.stoppedBy = 'budget';
    return;
  }
  state.reserved += need;
  let result: CaseResult;
  try {
    result = await runPair(pair, testCase, arms, signal);
  } finally {
    state.reserved -= need;
  }
  state.results.push(result);
  state.casesDone++;
  state.consecutiveUnmeasured = failedByProvider(result) ? state.consecutiveUnmeasured + 1 : 0;
  if (state.consecutiveUnmeasured >= schedule.breakerPairs) state.stoppedBy ??= 'breaker';
  schedule.onCase();
}

/** Runs the cases of one phase; resolves when every started case finished. Cancel rejects. */
export async function runSchedule(schedule: Schedule, cases: SplitCase[], state: ScheduleState): Promise<void> {
  const settled = await Promise.allSettled(cases.map((testCase) => schedule.pool.run((signal) => runOne(schedule, testCase, state, signal))));
  const failure = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}
