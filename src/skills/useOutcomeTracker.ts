/**
 * What the user does after a turn that loaded skills is those skills' use outcome (docs/gate.md,
 * "Use outcomes"). The turn's loads are recorded in the background after the turn ends, and a
 * user who answers at once sends before that recording is done: the outcome then waits for the
 * loads instead of finding none. Plain TypeScript, no DOM.
 */
import type { UseOutcome } from './candidateCases';

export class UseOutcomeTracker {
  #lastLoads: Promise<readonly string[]> = Promise.resolve([]);

  constructor(private readonly record: (names: readonly string[], outcome: UseOutcome) => Promise<void>) {}

  /** The skills a finished turn loaded, as their recording resolves (a failed recording: none). */
  turnLoaded(loads: Promise<readonly string[]>): void {
    this.#lastLoads = loads;
  }

  /**
   * What the user did next: recorded on the last turn's skills once they are known, then
   * forgotten, so one turn gets one outcome. `ignore`: the action is no outcome (a turn still runs).
   */
  async next(outcome: UseOutcome, ignore = false): Promise<void> {
    const loads = this.#lastLoads;
    this.#lastLoads = Promise.resolve([]);
    if (ignore) return;
    const names = await loads;
    if (names.length > 0) await this.record(names, outcome);
  }
}
