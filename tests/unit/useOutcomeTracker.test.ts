/**
 * Use outcomes (docs/gate.md): what the user does after a turn that loaded skills is recorded on
 * those skills, even when the user answers before the turn's loads are recorded.
 */
import { describe, expect, it } from 'vitest';
import { UseOutcomeTracker } from '../../src/skills/useOutcomeTracker';
import type { UseOutcome } from '../../src/skills/candidateCases';

function tracker() {
  const recorded: Array<[readonly string[], UseOutcome]> = [];
  return { recorded, outcomes: new UseOutcomeTracker(async (names, outcome) => void recorded.push([names, outcome])) };
}

describe('UseOutcomeTracker', () => {
  it('an answer sent before the turn’s loads are recorded waits for them, and counts once', async () => {
    const { recorded, outcomes } = tracker();
    let finishLoads!: (names: string[]) => void;
    outcomes.turnLoaded(new Promise((resolve) => (finishLoads = resolve)));
    const answered = outcomes.next('corrected');
    expect(recorded).toEqual([]);
    finishLoads(['changelog-clear']);
    await answered;
    expect(recorded).toEqual([[['changelog-clear'], 'corrected']]);
    await outcomes.next('moved_on');
    expect(recorded).toHaveLength(1);
  });

  it('records nothing for a turn that loaded nothing, or for an action that is no outcome', async () => {
    const { recorded, outcomes } = tracker();
    await outcomes.next('moved_on');
    outcomes.turnLoaded(Promise.resolve([]));
    await outcomes.next('corrected');
    outcomes.turnLoaded(Promise.resolve(['a']));
    await outcomes.next('regenerated', true);
    await outcomes.next('edited');
    expect(recorded).toEqual([]);
  });
});
