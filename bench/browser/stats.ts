/** Timing helpers shared by the in-page benches. */

export interface Summary {
  /** Milliseconds. */
  p50: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
  n: number;
}

/** Nearest-rank percentile of already sorted samples. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(fraction * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

const round = (value: number) => Math.round(value * 1000) / 1000;

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / (sorted.length || 1);
  return {
    p50: round(percentile(sorted, 0.5)),
    p95: round(percentile(sorted, 0.95)),
    mean: round(mean),
    min: round(sorted[0] ?? NaN),
    max: round(sorted[sorted.length - 1] ?? NaN),
    n: sorted.length,
  };
}

/**
 * Runs `fn(i)` `warmup` times untimed, then `runs` times timed, one after another.
 * Timer resolution in a cross-origin-isolated-less page is 0.1 ms (Chromium), which is
 * fine for the millisecond budgets of SPEC §17.
 */
export async function sample(runs: number, fn: (i: number) => unknown | Promise<unknown>, warmup = 5): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return summarize(samples);
}
