/**
 * The exact one-sided sign test the gate's verdict rests on (docs/gate.md, "Statistics").
 *
 * With `up` improved and `down` regressed cases (ties dropped), N = up + down, and under "the
 * skill does nothing" every discordant case is a fair coin, so
 *   p = P(X ≥ up | X ~ Binomial(N, ½)) = Σ_{k=up..N} C(N, k) / 2^N,   p = 1 when N = 0.
 *
 * Binomial coefficients are exact integers in a double up to N = 50 (C(50, 25) ≈ 1.3e14, and the
 * running product below stays under 2^53); beyond that the tail is summed in BigInt. Either way
 * the tail is an exact integer, so `signTestWithin` can compare against a threshold with no float
 * fuzz at all.
 */

/** Largest N for which the Number path is exact. */
const EXACT_NUMBER_LIMIT = 50;

function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
}

/** C(n, k) for k = 0..n as Numbers (exact for n ≤ 50). */
function binomialRowNumber(n: number): number[] {
  const row: number[] = [];
  let c = 1;
  for (let k = 0; k <= n; k++) {
    row.push(c);
    c = (c * (n - k)) / (k + 1);
  }
  return row;
}

function binomialRowBig(n: number): bigint[] {
  const row: bigint[] = [];
  let c = 1n;
  for (let k = 0; k <= n; k++) {
    row.push(c);
    c = (c * BigInt(n - k)) / BigInt(k + 1);
  }
  return row;
}

/**
 * The integer pieces of the test: `tail` = Σ_{k ≥ up} C(N, k), `atUp` = C(N, up), N = up + down.
 * p = tail / 2^N.
 */
export interface SignTail {
  n: number;
  tail: bigint;
  atUp: bigint;
}

export function signTestTail(up: number, down: number): SignTail {
  assertCount('up', up);
  assertCount('down', down);
  const n = up + down;
  let tail = 0n;
  const row = n <= EXACT_NUMBER_LIMIT ? binomialRowNumber(n).map((c) => BigInt(c)) : binomialRowBig(n);
  for (let k = up; k <= n; k++) tail += row[k];
  return { n, tail, atUp: row[up] };
}

/** The same pieces as Numbers, exact while N ≤ 50; null beyond. */
function numberTail(up: number, down: number): { n: number; tail: number; atUp: number } | null {
  const n = up + down;
  if (n > EXACT_NUMBER_LIMIT) return null;
  const row = binomialRowNumber(n);
  let tail = 0;
  for (let k = up; k <= n; k++) tail += row[k];
  return { n, tail, atUp: row[up] };
}

/** Exact one-sided sign test p-value; 1 when there is no discordant case. */
export function signTestOneSided(up: number, down: number): number {
  assertCount('up', up);
  assertCount('down', down);
  const n = up + down;
  if (n === 0) return 1;
  const exact = numberTail(up, down);
  return (exact ? exact.tail : Number(signTestTail(up, down).tail)) / 2 ** n;
}

/**
 * Mid-p (less conservative; for display only, never a gate input):
 * Σ_{k > up} C(N, k)/2^N + ½·C(N, up)/2^N; 1 when N = 0.
 */
export function midP(up: number, down: number): number {
  assertCount('up', up);
  assertCount('down', down);
  const n = up + down;
  if (n === 0) return 1;
  // 2·tail − atUp over 2^(N+1) keeps the numerator an integer.
  const exact = numberTail(up, down);
  if (exact) return (2 * exact.tail - exact.atUp) / 2 ** (n + 1);
  const { tail, atUp } = signTestTail(up, down);
  return Number(2n * tail - atUp) / 2 ** (n + 1);
}

/**
 * "How likely is it that this skill helps more often than it hurts": P(θ > ½) for the
 * probability θ that a discordant case improves, under a uniform prior (posterior
 * Beta(up + 1, down + 1)). Closed form through the same tail: 1 − p(up + 1, down).
 */
export function probHelpsMoreOften(up: number, down: number): number {
  return 1 - signTestOneSided(up + 1, down);
}

/**
 * p(up, down) ≤ max, decided on integers: tail ≤ max · 2^N. Multiplying a double by a power of
 * two is exact, and the tail is an integer, so this compares against the exact value of `max`
 * (0.25 · 4 = 1 exactly: 2↑0↓ passes a 0.25 threshold).
 */
export function signTestWithin(up: number, down: number, max: number): boolean {
  if (Number.isNaN(max)) throw new RangeError('max must be a number');
  if (max >= 1) return true;
  if (max < 0) return false;
  assertCount('up', up);
  assertCount('down', down);
  const exact = numberTail(up, down);
  if (exact) return exact.tail <= Math.floor(max * 2 ** exact.n);
  const { n, tail } = signTestTail(up, down);
  return tail <= BigInt(Math.floor(max * 2 ** n));
}
