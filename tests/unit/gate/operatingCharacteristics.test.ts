/**
 * The gate's published error rates: a seeded Monte-Carlo of synthetic skills of known truth
 * through the real summary and decide() (helpers/operatingCharacteristics.ts), asserting the
 * bounds of the default `standard` policy. Seeded, so the figures are the same on every run.
 */
import { describe, expect, it } from 'vitest';
import { POLICIES } from '../../../src/gate/policy';
import { simulateCell } from './helpers/operatingCharacteristics';

const TRIALS = 4000;
const SIZES = [6, 8, 12, 20];

describe('operating characteristics of the standard policy', () => {
  it('promotes a useless skill at most 3 % of the time at noise q ≤ 0.1, n ≤ 20', () => {
    for (const q of [0.05, 0.1]) {
      for (const n of SIZES) expect(simulateCell('null', q, n, TRIALS).promoted, `q = ${q}, n = ${n}`).toBeLessThanOrEqual(0.03);
    }
    for (const n of SIZES) expect(simulateCell('null', 0, n, 200).promoted).toBe(0);
  });

  it('never promotes a harmful skill', () => {
    for (const q of [0, 0.05, 0.1]) {
      for (const n of SIZES) expect(simulateCell('harmful', q, n, q === 0 ? 200 : 1000).promoted, `q = ${q}, n = ${n}`).toBe(0);
    }
  });

  it('always promotes a useful skill with a deterministic model from 6 cases', () => {
    for (const n of SIZES) expect(simulateCell('useful', 0, n, 200).promoted, `n = ${n}`).toBe(1);
  });

  it('rejects a useful skill at most 1 % of the time at q ≤ 0.05', () => {
    for (const n of SIZES) {
      expect(simulateCell('useful', 0.05, n, TRIALS).rejected, `n = ${n}`).toBeLessThanOrEqual(0.01);
      expect(simulateCell('useful', 0, n, 200).rejected).toBe(0);
    }
  });

  it('promotes a dev-memoriser at most 7 % of the time at q ≤ 0.1, n ≤ 12', () => {
    for (const q of [0.05, 0.1]) {
      for (const n of [6, 8, 12]) expect(simulateCell('memorizer', q, n, TRIALS).promoted, `q = ${q}, n = ${n}`).toBeLessThanOrEqual(0.07);
    }
    expect(simulateCell('memorizer', 0, 8, 200)).toEqual({ promoted: 0, staged: 1, rejected: 0 });
  });

  it('is a simulation that can fail: without the p floors the same noise promotes a useless skill', () => {
    // The lenient preset (majority rule only) under the same seed: well above the standard bound.
    expect(simulateCell('null', 0.1, 20, TRIALS, 13, POLICIES.lenient).promoted).toBeGreaterThan(0.08);
  });
});
