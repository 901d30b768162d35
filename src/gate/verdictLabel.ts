import type { IndexLabel, VerdictWord } from './types';

/**
 * What the skill index shows for a skill (docs/gate.md, "Effects"). The one place that turns a
 * stored verdict into a label; the index and the UI call this and never look at gains.
 */
export interface LabelInput {
  /** The stored verdict word; null when the gate never ran on this skill. */
  verdict: VerdictWord | null;
  /**
   * true while the verdict describes the current bytes (same SKILL.md, same evals, same gate
   * model); false after any edit.
   */
  fresh: boolean;
  /** "user" when the user approved the staged skill. */
  approvedBy?: 'user' | null;
}

/**
 * - promoted and fresh → `[verified]`;
 * - staged, stale, or never run → `[unverified]` (a label must describe these bytes: an edited
 *   skill, whatever it was before, has not been measured);
 * - staged and approved by the user → `[approved]`: approval is not verification;
 * - rejected and fresh → null: withheld from the index (still listed, viewable, editable and
 *   re-verifiable in Skills).
 */
export function verdictLabel(state: LabelInput): IndexLabel {
  if (state.verdict === null || !state.fresh) return '[unverified]';
  switch (state.verdict) {
    case 'promoted':
      return '[verified]';
    case 'rejected':
      return null;
    case 'staged':
      return state.approvedBy === 'user' ? '[approved]' : '[unverified]';
  }
}
