/**
 * The two counters that decide when the review agent looks back at a conversation (docs/learning-loop.md,
 * Hermes semantics). They live on the session record, so a reload does not lose them.
 */
export interface LearningCounters {
  /** Model calls since `skill_manage` was last dispatched. */
  itersSinceSkill: number;
  /** User turns since `memory` was last dispatched. */
  turnsSinceMemory: number;
}

export interface LearningIntervals {
  /** Review skills after this many model calls without skill_manage; ≤ 0 disables. */
  creationNudgeInterval: number;
  /** Review memory after this many user turns without memory; ≤ 0 disables. */
  memoryNudgeInterval: number;
}

export const defaultIntervals: LearningIntervals = { creationNudgeInterval: 10, memoryNudgeInterval: 10 };

export const zeroCounters = (): LearningCounters => ({ itersSinceSkill: 0, turnsSinceMemory: 0 });

export type ReviewKind = 'skills' | 'memory' | 'combined';

/**
 * A turn's counters written over what is stored now: the turn started from `start` and ended at
 * `end`, while a turn in another tab may have counted too. A counter that went down was reset
 * (a review ran, or the tool was used): the reset wins. One that went up adds its increase to
 * the stored value, so neither turn's counting is lost (docs/storage.md, "No lost update").
 * With nothing stored meanwhile (stored = start) the result is `end`.
 */
export function mergeTurnCounters(stored: LearningCounters, start: LearningCounters, end: LearningCounters): LearningCounters {
  const merged = (key: keyof LearningCounters) => (end[key] < start[key] ? end[key] : stored[key] + (end[key] - start[key]));
  return { itersSinceSkill: merged('itersSinceSkill'), turnsSinceMemory: merged('turnsSinceMemory') };
}

/**
 * The finalizer's decision after a turn: which review to run, and the counters afterwards
 * (a due counter is reset when its review is scheduled). No review after a stopped turn or a
 * turn without a final reply; the counters are then left as they are.
 */
export function decideReview(
  counters: LearningCounters,
  intervals: LearningIntervals,
  turn: { finalReply: boolean; stopped: boolean },
): { review: ReviewKind | null; counters: LearningCounters } {
  if (!turn.finalReply || turn.stopped) return { review: null, counters };
  const skills = intervals.creationNudgeInterval > 0 && counters.itersSinceSkill >= intervals.creationNudgeInterval;
  const memory = intervals.memoryNudgeInterval > 0 && counters.turnsSinceMemory >= intervals.memoryNudgeInterval;
  const next = {
    itersSinceSkill: skills ? 0 : counters.itersSinceSkill,
    turnsSinceMemory: memory ? 0 : counters.turnsSinceMemory,
  };
  const review: ReviewKind | null = skills && memory ? 'combined' : skills ? 'skills' : memory ? 'memory' : null;
  return { review, counters: next };
}
