/**
 * The gate's published error rates (README, "How often it is wrong"; docs/gate.md "Error
 * rates"): a seeded Monte-Carlo of synthetic skills of known truth through the real summary and
 * decide() (helpers/operatingCharacteristics.ts), asserting the README's bounds for the default
 * `standard` policy cell by cell, for every case count it lists (4 to 20) and for both noise
 * readings (q = 0.05 and 0.1, and the noisier q = 0.2). Seeded, so the figures are the same on
 * every run; the README's bounds also hold at 20,000 trials per cell.
 */
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../../src/gate/policy';
import { simulateCell, type Rates, type SyntheticSkill } from './helpers/operatingCharacteristics';

const TRIALS = 4000;
const SIZES = [4, 5, 6, 8, 12, 20] as const;

/** The README's table: per noise level, the bound (a fraction) for each n in SIZES. */
type Bounds = Record<number, readonly number[]>;

function expectBounds(skill: SyntheticSkill, outcome: keyof Rates, bounds: Bounds, trials = TRIALS): void {
  for (const [q, perSize] of Object.entries(bounds)) {
    SIZES.forEach((n, i) => {
      expect(simulateCell(skill, Number(q), n, trials)[outcome], `${skill} ${outcome}, q = ${q}, n = ${n}`).toBeLessThanOrEqual(perSize[i]!);
    });
  }
}

describe('operating characteristics of the standard policy (the README table)', () => {
  it('a useless skill is promoted at most 0 / 0 / 0.5 / 0.5 / 1 / 2 % at q = 0.1, and so on', () => {
    expectBounds('null', 'promoted', {
      0: [0, 0, 0, 0, 0, 0],
      0.05: [0, 0, 0.005, 0.005, 0.005, 0.01],
      0.1: [0, 0, 0.005, 0.005, 0.01, 0.02],
      0.2: [0, 0, 0.01, 0.01, 0.02, 0.03],
    });
  });

  it('never promotes a harmful skill', () => {
    for (const q of [0, 0.05, 0.1, 0.2]) {
      for (const n of SIZES) expect(simulateCell('harmful', q, n, 1000).promoted, `q = ${q}, n = ${n}`).toBe(0);
    }
  });

  it('with a deterministic model promotes a useful skill always from 6 cases, and stages it below (one held-out case)', () => {
    for (const n of SIZES) expect(simulateCell('useful', 0, n, 200), `n = ${n}`).toEqual(n < 6 ? { promoted: 0, staged: 1, rejected: 0 } : { promoted: 1, staged: 0, rejected: 0 });
  });

  it('rejects a useful skill at most as often as the README says, per case count', () => {
    expectBounds('useful', 'rejected', {
      0.05: [0.015, 0.01, 0.005, 0.005, 0.005, 0.005],
      0.1: [0.07, 0.05, 0.035, 0.02, 0.01, 0.005],
      0.2: [0.24, 0.195, 0.19, 0.13, 0.08, 0.04],
    });
  });

  it('promotes a dev-memoriser at most as often as the README says, per case count', () => {
    expectBounds('memorizer', 'promoted', {
      0: [0, 0, 0, 0, 0, 0],
      0.05: [0, 0, 0.01, 0.01, 0.025, 0.05],
      0.1: [0, 0, 0.025, 0.03, 0.055, 0.1],
      0.2: [0, 0, 0.04, 0.045, 0.095, 0.135],
    });
  });

  it('is a simulation that can fail: without the p floors the same noise promotes a useless skill', () => {
    // The lenient preset (majority rule only) under the same seed: well above the standard bound.
    expect(simulateCell('null', 0.1, 20, TRIALS, 13, POLICIES.lenient).promoted).toBeGreaterThan(0.08);
  });
});

describe('the independent-case split (two of the n cases come from the user\'s later chats)', () => {
  const FIT_SIZES = [8, 12, 20];
  const independentFirst = { count: 2, heldOutFirst: true };

  it('never promotes a skill that only fits its author\'s cases with a deterministic model, and rarely under noise', () => {
    const bounds: Record<number, number[]> = { 0: [0, 0, 0], 0.05: [0.01, 0.14, 0.155], 0.1: [0.025, 0.19, 0.235] };
    for (const [q, perSize] of Object.entries(bounds)) {
      FIT_SIZES.forEach((n, i) => {
        expect(simulateCell('author-fitter', Number(q), n, TRIALS, 13, POLICIES.standard, independentFirst).promoted, `q = ${q}, n = ${n}`).toBeLessThanOrEqual(perSize[i]!);
      });
    }
    // Where the keys alone place the cases, the same skill is promoted about half the time.
    for (const n of FIT_SIZES) {
      expect(simulateCell('author-fitter', 0, n, TRIALS, 13, POLICIES.standard, { count: 2, heldOutFirst: false }).promoted, `n = ${n}`).toBeGreaterThan(0.5);
    }
  });

  it('still promotes a useful skill: at least 52 / 79 / 85 % at q = 0.1, rejected at most 2 %', () => {
    const minimum = [0.52, 0.79, 0.85];
    FIT_SIZES.forEach((n, i) => {
      const rates = simulateCell('useful', 0.1, n, TRIALS, 13, POLICIES.standard, independentFirst);
      expect(rates.promoted, `n = ${n}`).toBeGreaterThanOrEqual(minimum[i]!);
      expect(rates.rejected, `n = ${n}`).toBeLessThanOrEqual(0.02);
    });
  });
});
