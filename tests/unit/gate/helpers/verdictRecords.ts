/** Complete verdict records for the evidence-store, effects and views tests, decided by the real decide(). */
import { decide } from '../../../../src/gate/decide';
import { POLICIES } from '../../../../src/gate/policy';
import type { CaseResult, VerdictRecord } from '../../../../src/gate/types';
import { arm, evidenceFor } from './results';

/** A measured case with a chosen id, so a test can look for its id in what leaks out. */
export function namedPair(id: string | number, side: 'dev' | 'holdout', b: number, s: number, k = 2): CaseResult {
  const base = { ...arm(b, k), excerpt: `baseline answer of ${id}`, outputRef: `ref-base-${id}` };
  const skill = { ...arm(s, k), excerpt: `with-skill answer of ${id}`, outputRef: `ref-skill-${id}` };
  return { id, side, checks: k, base, skill, outcome: s > b ? 'up' : s < b ? 'down' : 'tie', flags: [] };
}

/** Results decide() promotes: 4 dev and 2 holdout cases all improving. */
export const promotingResults = (prefix = 'c'): CaseResult[] => [
  namedPair(`${prefix}-dev-1`, 'dev', 0, 2),
  namedPair(`${prefix}-dev-2`, 'dev', 0, 2),
  namedPair(`${prefix}-dev-3`, 'dev', 1, 2),
  namedPair(`${prefix}-dev-4`, 'dev', 0, 1),
  namedPair(`${prefix}-hold-1`, 'holdout', 0, 2),
  namedPair(`${prefix}-hold-2`, 'holdout', 0, 2),
];

/** Results decide() rejects: no gain on dev. */
export const rejectingResults = (): CaseResult[] => [
  namedPair('r-dev-1', 'dev', 1, 1),
  namedPair('r-dev-2', 'dev', 1, 0),
  namedPair('r-dev-3', 'dev', 2, 2),
  namedPair('r-dev-4', 'dev', 0, 0),
  namedPair('r-hold-1', 'holdout', 0, 2),
  namedPair('r-hold-2', 'holdout', 0, 2),
];

/** Results decide() stages: dev improves, holdout ties (dev_only). */
export const stagingResults = (): CaseResult[] => [
  namedPair('s-dev-1', 'dev', 0, 2),
  namedPair('s-dev-2', 'dev', 0, 2),
  namedPair('s-dev-3', 'dev', 0, 1),
  namedPair('s-dev-4', 'dev', 0, 2),
  namedPair('s-hold-1', 'holdout', 1, 1),
  namedPair('s-hold-2', 'holdout', 1, 1),
];

export interface RecordOptions {
  id?: string;
  skill?: string;
  skillHash?: string;
  casesHash?: string;
  finishedAt?: string;
  skillVersion?: number;
  status?: VerdictRecord['status'];
}

export function verdictRecord(results: CaseResult[], options: RecordOptions = {}): VerdictRecord {
  const verdict = decide(evidenceFor(results), POLICIES.standard);
  const ref = (result: CaseResult) => ({ id: result.id, key: String(result.id) });
  return {
    id: options.id ?? 'run-1',
    skill: options.skill ?? 'git-style',
    skillHash: options.skillHash ?? 'skill-hash-1',
    casesHash: options.casesHash ?? 'cases-hash-1',
    skillVersion: options.skillVersion ?? 1,
    protocol: 'gate.v1',
    policy: 'standard',
    model: { provider: 'http://localhost:11434', id: 'qwen3:8b', params: { temperature: 0, seed: 7, maxTokens: 1024 } },
    context: 'isolated',
    verdict,
    startedAt: '2026-11-01T11:59:00.000Z',
    finishedAt: options.finishedAt ?? '2026-11-01T12:00:00.000Z',
    split: { dev: results.filter((r) => r.side === 'dev').map(ref), holdout: results.filter((r) => r.side === 'holdout').map(ref), excluded: [] },
    cases: results,
    cost: { requests: results.length * 2, cacheHits: 0, promptTokens: 100, completionTokens: 50, estimated: false, usd: null, ms: 1200 },
    status: options.status ?? 'applied',
    checkDiagnostics: [],
  };
}
