/**
 * A seeded Monte-Carlo of the gate's decision rule (docs/gate.md, "Error rates"): synthetic
 * skills of known truth replayed with per-check noise, run through the real summary and
 * decide(). n cases with 2 checks each; the baseline truly passes 1 of 2; each check result of
 * each arm flips with probability q. Holdout membership is a random set of holdoutSize(n)
 * cases per trial (the split's sizes; which cases does not matter to a skill that cannot see it,
 * and the memorizer is defined by it).
 */
import { decide } from '../../../../src/gate/decide';
import { POLICIES } from '../../../../src/gate/policy';
import { holdoutSize } from '../../../../src/gate/split';
import { buildEvidence } from '../../../../src/gate/summary';
import type { CaseResult, PolicyThresholds, Split, SplitCase, VerdictWord } from '../../../../src/gate/types';
import { mulberry32 } from './cases';

/**
 * useful: passes 2/2 everywhere; half: useful on a random half of the cases; null: no effect;
 * memorizer: 2/2 on dev cases only; harmful: 0/2; author-fitter: 2/2 on the cases its author
 * wrote, no effect on the user's own requests from later chats (the independent cases).
 */
export type SyntheticSkill = 'useful' | 'half' | 'null' | 'memorizer' | 'harmful' | 'author-fitter';

/** How the independent cases (requests from later chats) are placed; see `simulateCell`. */
export interface IndependentCases {
  /** How many of the n cases are independent. */
  count: number;
  /** true: the split holds them out first (split.ts); false: they fall where the keys put them. */
  heldOutFirst: boolean;
}

export type Rates = Record<VerdictWord, number>;

const CHECKS = 2;

function truePasses(skill: SyntheticSkill, heldOut: boolean, independent: boolean, random: () => number): boolean[] {
  switch (skill) {
    case 'author-fitter':
      return independent ? [true, false] : [true, true];
    case 'useful':
      return [true, true];
    case 'null':
      return [true, false];
    case 'harmful':
      return [false, false];
    case 'memorizer':
      return heldOut ? [true, false] : [true, true];
    case 'half':
      return random() < 0.5 ? [true, true] : [true, false];
  }
}

const noisy = (truth: boolean[], q: number, random: () => number) => truth.map((pass) => (random() < q ? !pass : pass));

function armOf(checkPass: boolean[]) {
  return { status: 'ok' as const, passed: checkPass.filter(Boolean).length, checkPass, outputRef: '', excerpt: '' };
}

/** A split with the right side sizes; decide() reads only how many cases were planned. */
function plannedSplit(n: number, h: number): Split {
  const placeholder = (i: number, side: 'dev' | 'holdout'): SplitCase => ({
    id: i, prompt: '', messages: [], files: [], checks: [], source: false, side, key: '',
  });
  return {
    dev: Array.from({ length: n - h }, (_, i) => placeholder(i, 'dev')),
    holdout: Array.from({ length: h }, (_, i) => placeholder(n - h + i, 'holdout')),
    excluded: [],
  };
}

/** The split with the held-out cases among the first `count` marked independent, as split.ts marks them. */
function markIndependent(split: Split, results: CaseResult[], count: number): Split {
  if (count === 0) return split;
  const holdout = results.filter((result) => result.side === 'holdout').map((result): SplitCase => ({ ...split.holdout[0]!, id: result.id, independent: Number(result.id) < count }));
  return { ...split, holdout };
}

/** The held-out cases of one trial: independent ones first when the split prefers them, else random. */
function heldOutSet(order: number[], h: number, independent?: IndependentCases): Set<number> {
  if (!independent?.heldOutFirst) return new Set(order.slice(0, h));
  // Cases 0..count-1 are the independent ones; `order` is a random permutation.
  const first = order.filter((i) => i < independent.count);
  const rest = order.filter((i) => i >= independent.count);
  return new Set([...first, ...rest].slice(0, h));
}

/**
 * P(promoted), P(staged), P(rejected) for one cell, deterministic for a given seed. With
 * `independent`, the first `count` cases are requests from later chats.
 */
export function simulateCell(
  skill: SyntheticSkill,
  q: number,
  n: number,
  trials: number,
  seed = 13,
  policy: PolicyThresholds = POLICIES.standard,
  independent?: IndependentCases,
): Rates {
  const random = mulberry32(seed);
  const h = holdoutSize(n);
  const split = plannedSplit(n, h);
  const tally: Rates = { promoted: 0, staged: 0, rejected: 0 };
  const order = Array.from({ length: n }, (_, i) => i);
  for (let trial = 0; trial < trials; trial++) {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const heldOut = heldOutSet(order, h, independent);
    const results: CaseResult[] = [];
    for (let i = 0; i < n; i++) {
      const side = heldOut.has(i) ? 'holdout' : 'dev';
      const truth = truePasses(skill, side === 'holdout', i < (independent?.count ?? 0), random);
      const base = armOf(noisy([true, false], q, random));
      const withSkill = armOf(noisy(truth, q, random));
      results.push({ id: i, side, checks: CHECKS, base, skill: withSkill, outcome: 'tie', flags: [] });
    }
    const evidence = buildEvidence({ hasCasesFile: true, split: markIndependent(split, results, independent?.count ?? 0), results, providerLabel: 'simulation' });
    tally[decide(evidence, policy).verdict]++;
  }
  return { promoted: tally.promoted / trials, staged: tally.staged / trials, rejected: tally.rejected / trials };
}

export const TABLE_SIZES = [6, 8, 12, 20] as const;
export const TABLE_NOISE = [0, 0.05, 0.1] as const;
export const TABLE_SKILLS: readonly SyntheticSkill[] = ['useful', 'half', 'null', 'memorizer', 'harmful'];

/**
 * The whole table, for the README's published error rates (each row: skill, q, then
 * promoted/staged/rejected per n). Not printed by any test; call it from a scratch test or REPL.
 */
export function operatingCharacteristicsTable(trials = 20000, policy: PolicyThresholds = POLICIES.standard): string[] {
  const fmt = (x: number) => x.toFixed(3).replace(/^0/, '');
  const rows = [`| skill | q | ${TABLE_SIZES.map((n) => `n=${n}`).join(' | ')} |`, `|---|---|${TABLE_SIZES.map(() => '---').join('|')}|`];
  for (const skill of TABLE_SKILLS) {
    for (const q of TABLE_NOISE) {
      const cells = TABLE_SIZES.map((n) => simulateCell(skill, q, n, trials, 13, policy));
      rows.push(`| ${skill} | ${q} | ${cells.map((c) => `${fmt(c.promoted)}/${fmt(c.staged)}/${fmt(c.rejected)}`).join(' | ')} |`);
    }
  }
  return rows;
}
