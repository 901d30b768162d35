/**
 * The exact one-sided sign test: the published table, brute force over every sign vector for
 * N ≤ 16, monotonicity, the BigInt path and the integer threshold comparison.
 */
import { describe, expect, it } from 'vitest';
import { midP, probHelpsMoreOften, signTestOneSided, signTestTail, signTestWithin } from '../../../src/gate/signTest';

// [up, down, p, midP, P(θ > ½)] — the last two columns rounded as printed in docs/gate.md.
const TABLE: [number, number, number, number, number][] = [
  [0, 0, 1, 1, 0.5],
  [1, 0, 0.5, 0.25, 0.75],
  [2, 0, 0.25, 0.125, 0.875],
  [3, 0, 0.125, 0.0625, 0.9375],
  [4, 0, 0.0625, 0.03125, 0.96875],
  [5, 0, 0.03125, 0.015625, 0.984],
  [6, 0, 0.015625, 0.0078, 0.992],
  [8, 0, 0.00390625, 0.00195, 0.998],
  [1, 1, 0.75, 0.5, 0.5],
  [2, 1, 0.5, 0.3125, 0.6875],
  [3, 1, 0.3125, 0.1875, 0.8125],
  [4, 1, 0.1875, 0.109, 0.891],
  [5, 1, 0.109375, 0.0625, 0.9375],
  [6, 1, 0.0625, 0.035, 0.965],
  [7, 1, 0.03515625, 0.0195, 0.98],
  [6, 2, 0.14453125, 0.09, 0.91],
  [8, 2, 0.0546875, 0.033, 0.967],
  [0, 1, 1, 0.75, 0.25],
];

const decimals = (x: number) => (String(x).split('.')[1] ?? '').length;

describe('signTestOneSided', () => {
  it.each(TABLE)('%i up %i down: p = %f exactly, mid-p ≈ %f, P(helps) ≈ %f', (up, down, p, mid, helps) => {
    expect(signTestOneSided(up, down)).toBe(p);
    expect(midP(up, down)).toBeCloseTo(mid, Math.max(2, decimals(mid) - 1));
    expect(probHelpsMoreOften(up, down)).toBeCloseTo(helps, Math.max(2, decimals(helps) - 1));
  });

  it('equals brute-force enumeration of all 2^N sign vectors for N ≤ 16 (p and mid-p)', () => {
    for (let n = 0; n <= 16; n++) {
      const withUps = new Array<number>(n + 1).fill(0);
      for (let mask = 0; mask < 2 ** n; mask++) {
        let ups = 0;
        for (let bit = 0; bit < n; bit++) if (mask & (1 << bit)) ups++;
        withUps[ups]++;
      }
      for (let up = 0; up <= n; up++) {
        const atLeast = withUps.slice(up).reduce((a, b) => a + b, 0);
        const above = withUps.slice(up + 1).reduce((a, b) => a + b, 0);
        expect(signTestOneSided(up, n - up)).toBe(atLeast / 2 ** n);
        expect(midP(up, n - up)).toBe(n === 0 ? 1 : (above + withUps[up] / 2) / 2 ** n);
      }
    }
  });

  it('p(0, 0) = 1 and p never exceeds 1 or drops to 0', () => {
    expect(signTestOneSided(0, 0)).toBe(1);
    for (let n = 0; n <= 60; n++) {
      for (let up = 0; up <= n; up++) {
        const p = signTestOneSided(up, n - up);
        expect(p).toBeGreaterThan(0);
        expect(p).toBeLessThanOrEqual(1);
      }
    }
  });

  it('falls as up rises (down fixed) and rises with down (up fixed)', () => {
    for (let down = 0; down <= 20; down++) {
      for (let up = 0; up < 40; up++) {
        expect(signTestOneSided(up + 1, down)).toBeLessThan(signTestOneSided(up, down));
        if (up > 0) expect(signTestOneSided(up, down + 1)).toBeGreaterThan(signTestOneSided(up, down));
      }
    }
  });

  it('agrees between the Number path (N ≤ 50) and the BigInt path', () => {
    for (let n = 40; n <= 50; n++) {
      for (let up = 0; up <= n; up += 5) expect(Number(signTestTail(up, n - up).tail) / 2 ** n).toBe(signTestOneSided(up, n - up));
    }
    // Beyond 50 the tail is still an exact integer: Σ C(100, k) for k ≥ 0 is 2^100.
    expect(signTestTail(0, 100).tail).toBe(2n ** 100n);
    expect(signTestOneSided(100, 0)).toBe(2 ** -100);
    expect(signTestOneSided(51, 51)).toBeGreaterThan(0.5);
  });

  it('refuses counts that are not non-negative integers', () => {
    expect(() => signTestOneSided(-1, 0)).toThrow(RangeError);
    expect(() => signTestOneSided(1.5, 0)).toThrow(RangeError);
    expect(() => midP(0, Number.NaN)).toThrow(RangeError);
  });
});

describe('probHelpsMoreOften', () => {
  it('is the Beta(up+1, down+1) tail above ½, checked by numerical integration', () => {
    for (const [up, down] of [[0, 0], [3, 0], [2, 1], [1, 3], [6, 2], [10, 4]]) {
      // Simpson's rule on the Beta density, normalised numerically.
      const steps = 2000;
      const density = (x: number) => x ** up * (1 - x) ** down;
      const integrate = (from: number, to: number) => {
        const h = (to - from) / steps;
        let sum = density(from) + density(to);
        for (let i = 1; i < steps; i++) sum += density(from + i * h) * (i % 2 ? 4 : 2);
        return (sum * h) / 3;
      };
      expect(probHelpsMoreOften(up, down)).toBeCloseTo(integrate(0.5, 1) / integrate(0, 1), 8);
    }
  });
});

describe('signTestWithin', () => {
  it('compares on integers: 2↑0↓ sits exactly on p = 0.25 and passes', () => {
    expect(signTestWithin(2, 0, 0.25)).toBe(true);
    expect(signTestWithin(2, 1, 0.25)).toBe(false);
    expect(signTestWithin(3, 0, 0.125)).toBe(true);
    expect(signTestWithin(4, 0, 0.0625)).toBe(true);
    expect(signTestWithin(4, 0, 0.0624)).toBe(false);
  });

  it('matches p ≤ max wherever p is not on the boundary', () => {
    for (const max of [0.05, 0.1, 0.125, 0.25, 0.5]) {
      for (let n = 0; n <= 30; n++) {
        for (let up = 0; up <= n; up++) {
          const p = signTestOneSided(up, n - up);
          expect(signTestWithin(up, n - up, max)).toBe(p <= max);
        }
      }
    }
  });

  it('treats max ≥ 1 as no floor and max < 0 as unreachable', () => {
    expect(signTestWithin(0, 5, 1)).toBe(true);
    expect(signTestWithin(0, 0, 1)).toBe(true);
    expect(signTestWithin(9, 0, -0.1)).toBe(false);
    expect(signTestWithin(120, 0, 0.05)).toBe(true);
    expect(signTestWithin(60, 60, 0.05)).toBe(false);
  });
});
