/** Builders for replayed cases and evidence, shared by the summary, decide and simulation tests. */
import { buildEvidence, type RunFacts } from '../../../../src/gate/summary';
import type { ArmResult, ArmStatus, CaseResult, Evidence, Split, SplitCase } from '../../../../src/gate/types';

export function arm(passed: number, checks: number, status: ArmStatus = 'ok', error?: string): ArmResult {
  return {
    status,
    passed,
    checkPass: status === 'ok' || status === 'empty' ? Array.from({ length: checks }, (_, j) => j < passed) : [],
    outputRef: '',
    excerpt: '',
    ...(error ? { error } : {}),
  };
}

let nextId = 1;

/** A measured case: baseline passed `b` and the skill arm `s` of `k` checks. */
export function pair(side: 'dev' | 'holdout', b: number, s: number, k = 2, flags: string[] = []): CaseResult {
  return { id: nextId++, side, checks: k, base: arm(b, k), skill: arm(s, k), outcome: s > b ? 'up' : s < b ? 'down' : 'tie', flags };
}

/** A pair whose baseline (or skill) request failed. */
export function failedPair(side: 'dev' | 'holdout', error = 'HTTP 503', k = 2): CaseResult {
  return { id: nextId++, side, checks: k, base: arm(0, k, 'error', error), skill: arm(1, k), outcome: 'unmeasured', flags: [] };
}

const asSplitCase = (result: CaseResult): SplitCase => ({
  id: result.id,
  prompt: `case ${result.id}`,
  messages: [],
  files: [],
  checks: [],
  source: false,
  side: result.side,
  key: String(result.id).padStart(64, '0'),
});

/** A split matching the results (planned = what was replayed, unless `planned` says otherwise). */
export function splitFor(results: CaseResult[], extra: Partial<Split> = {}): Split {
  return {
    dev: results.filter((r) => r.side === 'dev').map(asSplitCase),
    holdout: results.filter((r) => r.side === 'holdout').map(asSplitCase),
    excluded: [],
    ...extra,
  };
}

/** Evidence for a completed run of these results, through the real buildEvidence. */
export function evidenceFor(results: CaseResult[], facts: Partial<RunFacts> = {}): Evidence {
  return buildEvidence({ hasCasesFile: true, split: splitFor(results), results, providerLabel: 'localhost:11434', ...facts });
}

/** `count` copies of a pair. */
export const times = (count: number, make: () => CaseResult): CaseResult[] => Array.from({ length: count }, make);
