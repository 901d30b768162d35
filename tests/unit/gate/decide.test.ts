/**
 * decide(): one fixture per branch, in the documented order, asserting the verdict word, the
 * code, the sub-status and the numbers in the reason; then a reachability test over every code,
 * boundaries, ordering and the other two policies.
 */
import { describe, expect, it } from 'vitest';
import { decide, formatP, settledBeforeHoldout, VERDICT_CODES } from '../../../src/gate/decide';
import { POLICIES } from '../../../src/gate/policy';
import { holdoutSize } from '../../../src/gate/split';
import { buildEvidence } from '../../../src/gate/summary';
import type { Evidence, Verdict, VerdictCode, VerdictWord } from '../../../src/gate/types';
import { mulberry32 } from './helpers/cases';
import { evidenceFor, failedPair, pair, splitFor, times } from './helpers/results';

const standard = POLICIES.standard;
const up = (side: 'dev' | 'holdout') => () => pair(side, 1, 2);
const same = (side: 'dev' | 'holdout') => () => pair(side, 1, 1);

interface Fixture {
  branch: number;
  name: string;
  evidence: () => Evidence;
  verdict: VerdictWord;
  code: VerdictCode;
  sub: Verdict['sub'];
  /** Substrings the reason must contain (the numbers it was decided on). */
  says: string[];
  needed?: Verdict['needed'];
}

const FIXTURES: Fixture[] = [
  {
    branch: 1, name: 'no evals file', verdict: 'staged', code: 'no_cases', sub: 'not_measured',
    evidence: () => buildEvidence({ hasCasesFile: false, results: [], providerLabel: 'x' }),
    says: ['no test cases yet', 'evals/evals.json', 'Add at least 4'], needed: { cases: 4 },
  },
  {
    branch: 2, name: 'invalid evals file', verdict: 'staged', code: 'invalid_cases', sub: 'not_measured',
    evidence: () => buildEvidence({ hasCasesFile: true, casesError: 'evals[2].prompt must be a string', results: [], providerLabel: 'x' }),
    says: ['is invalid: evals[2].prompt must be a string.'],
  },
  {
    branch: 3, name: 'three usable cases', verdict: 'staged', code: 'too_few_cases', sub: 'not_measured',
    evidence: () =>
      buildEvidence({
        hasCasesFile: true,
        split: splitFor(times(3, up('dev')), { excluded: [{ id: 5, reason: 'duplicate of case 2' }] }),
        parseExcluded: [{ id: 3, reason: 'no checks' }],
        results: [],
        providerLabel: 'x',
      }),
    says: ['3 usable cases', 'needs 4', 'Add 1 more', 'Not used: case 3 (no checks), case 5 (duplicate of case 2).'],
    needed: { cases: 1 },
  },
  {
    branch: 4, name: 'budget reached', verdict: 'staged', code: 'budget', sub: 'not_measured',
    evidence: () =>
      evidenceFor([pair('dev', 1, 2), pair('dev', 1, 2)], {
        split: splitFor([...times(6, up('dev')), ...times(2, up('holdout'))]),
        budget: { requests: 5, tokens: 4200, casesRun: 2, casesPlanned: 8 },
      }),
    says: ['5 requests', '4200 tokens', 'after 2/8 cases', 'says nothing about the skill'],
  },
  {
    branch: 5, name: 'circuit breaker', verdict: 'staged', code: 'replay_failed', sub: 'not_measured',
    evidence: () =>
      evidenceFor(times(3, () => failedPair('dev', 'HTTP 503')), {
        split: splitFor([...times(6, up('dev')), ...times(2, up('holdout'))]),
        breaker: true,
      }),
    says: ['3 of 3 replays failed (HTTP 503)', 'not evidence against the skill', 'localhost:11434 answers'],
  },
  {
    branch: 6, name: 'dev at the ceiling', verdict: 'staged', code: 'ceiling', sub: 'not_measured',
    evidence: () => evidenceFor([...times(6, () => pair('dev', 2, 2)), ...times(2, up('holdout'))]),
    says: ['already passes every check', 'Add cases the model gets wrong'],
  },
  {
    branch: 7, name: 'no dev gain', verdict: 'rejected', code: 'no_dev_gain', sub: null,
    evidence: () => evidenceFor([...times(6, same('dev')), ...times(2, up('holdout'))]),
    says: ['no gain on the development cases', 'mean 0.00', '↑0 ↓0 =6'],
  },
  {
    branch: 7, name: 'dev harm', verdict: 'rejected', code: 'dev_harm', sub: null,
    evidence: () => evidenceFor([...times(3, () => pair('dev', 1, 0)), ...times(3, same('dev')), ...times(2, up('holdout'))]),
    says: ['worse than no skill', 'mean \u22120.25', '↑0 ↓3'],
  },
  {
    branch: 8, name: 'no held-out case measured', verdict: 'staged', code: 'thin_holdout', sub: 'unproven',
    evidence: () => evidenceFor([...times(6, up('dev')), ...times(2, () => failedPair('holdout'))]),
    says: ['dev improved (+0.50)', 'no held-out case could be measured'],
  },
  {
    branch: 9, name: 'holdout regressed', verdict: 'rejected', code: 'holdout_regressed', sub: null,
    evidence: () => evidenceFor([...times(6, up('dev')), pair('holdout', 1, 0), pair('holdout', 1, 1)]),
    says: ['worse on held-out cases', 'mean \u22120.25', '↑0 ↓1', 'fits the cases it was written from'],
  },
  {
    branch: 10, name: 'holdout at the ceiling', verdict: 'staged', code: 'holdout_ceiling', sub: 'unproven',
    evidence: () => evidenceFor([...times(6, up('dev')), ...times(2, () => pair('holdout', 2, 2))]),
    says: ['held-out cases already pass without the skill', 'Add harder cases'],
  },
  {
    branch: 11, name: 'one held-out case', verdict: 'staged', code: 'thin_holdout', sub: 'unproven',
    evidence: () => evidenceFor([...times(3, up('dev')), up('holdout')()]),
    says: ['1 held-out case is not enough (need 2)', 'Add 2 cases (6 in total)'], needed: { cases: 2 },
  },
  {
    branch: 12, name: 'weak holdout', verdict: 'staged', code: 'weak_holdout', sub: 'unproven',
    evidence: () => evidenceFor([...times(6, up('dev')), up('holdout')(), same('holdout')()]),
    says: ['↑1 ↓0 =1', 'p = 0.5', 'with 2 held-out cases 2 must improve with none worse'],
  },
  {
    branch: 13, name: 'weak overall', verdict: 'staged', code: 'weak_overall', sub: 'unproven',
    evidence: () =>
      evidenceFor([...times(2, up('dev')), pair('dev', 1, 0), ...times(3, same('dev')), ...times(2, up('holdout'))]),
    says: ['all cases ↑4 ↓1', 'p = 0.188', 'need ≤ 0.1'],
  },
  {
    branch: 14, name: 'promoted', verdict: 'promoted', code: 'promoted', sub: null,
    evidence: () => evidenceFor([...times(6, up('dev')), ...times(2, up('holdout'))]),
    says: ['held-out cases improved (↑2 ↓0 =0, mean +0.50, p = 0.25)', 'development cases +0.50 (↑6 ↓0)'],
  },
  {
    branch: 15, name: 'dev only', verdict: 'staged', code: 'dev_only', sub: 'unproven',
    evidence: () => evidenceFor([...times(6, up('dev')), ...times(2, same('holdout'))]),
    says: ['development cases improved (+0.50)', 'held-out cases did not (↑0 ↓0 =2, mean 0.00)', 'the gap (0.50)', 'you can approve it'],
  },
];

describe('decide (standard policy), one fixture per branch', () => {
  it.each(FIXTURES.map((f) => [f.branch, f.name, f] as const))('branch %i: %s', (_branch, _name, fixture) => {
    const evidence = fixture.evidence();
    const verdict = decide(evidence, standard);
    expect(verdict).toMatchObject({ verdict: fixture.verdict, code: fixture.code, sub: fixture.sub });
    for (const text of fixture.says) expect(verdict.reason).toContain(text);
    expect(verdict.needed).toEqual(fixture.needed);
    expect(verdict.numbers).toEqual({
      dev: evidence.dev,
      holdout: evidence.holdout,
      pooled: evidence.pooled,
      pHoldout: evidence.holdout.p,
      pPooled: evidence.pooled.p,
    });
    expect(verdict.reason.startsWith({ promoted: 'Promoted:', rejected: 'Rejected:', staged: fixture.sub === 'not_measured' ? 'Not measured:' : 'Staged:' }[fixture.verdict])).toBe(true);
  });

  it('reaches every verdict code (a gate that cannot produce a code would look fine)', () => {
    const produced = new Set(FIXTURES.map((fixture) => decide(fixture.evidence(), standard).code));
    expect([...VERDICT_CODES].filter((code) => !produced.has(code))).toEqual([]);
    expect(new Set(FIXTURES.map((f) => f.branch))).toEqual(new Set(Array.from({ length: 15 }, (_, i) => i + 1)));
  });
});

describe('decide: boundaries and order', () => {
  it('lets 2↑0↓ on holdout through p ≤ 0.25 exactly (integer comparison)', () => {
    const verdict = decide(evidenceFor([...times(6, up('dev')), ...times(2, up('holdout'))]), standard);
    expect(verdict.numbers.pHoldout).toBe(0.25);
    expect(verdict.code).toBe('promoted');
  });

  it('checks the breaker before anything the partial results would say', () => {
    const results = [...times(6, up('dev')), ...times(2, up('holdout')), ...times(3, () => failedPair('dev'))];
    expect(decide(evidenceFor(results, { breaker: true }), standard).code).toBe('replay_failed');
  });

  it('calls it replay_failed when failures leave fewer measured cases than the minimum', () => {
    const results = [up('dev')(), up('dev')(), failedPair('dev', 'timeout'), failedPair('dev', 'timeout'), up('holdout')()];
    const verdict = decide(evidenceFor(results), standard);
    expect(verdict.code).toBe('replay_failed');
    expect(verdict.reason).toContain('2 of 5 replays failed (timeout)');
  });

  it('does not count holdout cases skipped after a dev result as failures', () => {
    // Dev-first early stop: dev showed no gain, so the held-out pair was never replayed.
    const results = times(3, same('dev'));
    const evidence = evidenceFor(results, { split: splitFor([...results, up('holdout')()]) });
    expect(decide(evidence, standard).code).toBe('no_dev_gain');
  });

  it('calls it replay_failed when no dev case was measured, even with nothing failing', () => {
    const evidence = evidenceFor([], { split: splitFor([...times(6, up('dev')), ...times(2, up('holdout'))]) });
    const verdict = decide(evidence, standard);
    expect(verdict.code).toBe('replay_failed');
    expect(verdict.reason).toContain('no development case could be measured');
  });

  it('adds the "checks may be wrong" hint when every dev check failed in both arms', () => {
    const verdict = decide(evidenceFor([...times(6, () => pair('dev', 0, 0)), ...times(2, up('holdout'))]), standard);
    expect(verdict.code).toBe('no_dev_gain');
    expect(verdict.reason).toContain('Every check failed in both arms');
  });

  it('treats more regressions than improvements on holdout as a rejection even with a positive mean', () => {
    const holdout = [pair('holdout', 0, 3, 3), pair('holdout', 2, 1, 3), pair('holdout', 2, 1, 3)];
    const verdict = decide(evidenceFor([...times(6, up('dev')), ...holdout]), standard);
    expect(verdict.numbers.holdout.gainSign).toBe(1);
    expect(verdict.code).toBe('holdout_regressed');
  });

  it('says why the holdout is empty when teaching prompts took every holdout place', () => {
    const verdict = decide(evidenceFor(times(6, up('dev'))), standard);
    expect(verdict.code).toBe('thin_holdout');
    expect(verdict.reason).toContain('no case was held out');
  });

  it('does not tell the user to add cases when enough exist but too few held-out ones replayed', () => {
    const results = [...times(6, up('dev')), up('holdout')(), failedPair('holdout')];
    const verdict = decide(evidenceFor(results), standard);
    expect(verdict.code).toBe('thin_holdout');
    expect(verdict.reason).toContain('Verify again');
    expect(verdict.needed).toBeUndefined();
  });

  it('leaves the gap out of dev_only when dev and holdout are close', () => {
    const results = [...times(6, () => pair('dev', 3, 4, 4)), pair('holdout', 1, 1, 4), pair('holdout', 1, 1, 4)];
    const verdict = decide(evidenceFor(results), standard);
    expect(verdict.code).toBe('dev_only');
    expect(verdict.reason).not.toContain('gap');
  });
});

describe('decide: the other policies', () => {
  it('lenient promotes on the majority rule alone', () => {
    const weak = evidenceFor([...times(6, up('dev')), up('holdout')(), same('holdout')()]);
    expect(decide(weak, POLICIES.lenient).code).toBe('promoted');
    expect(decide(weak, standard).code).toBe('weak_holdout');
  });

  it('strict needs six cases, three held out and p ≤ 0.125', () => {
    const five = evidenceFor([...times(4, up('dev')), up('holdout')()]);
    expect(decide(five, POLICIES.strict)).toMatchObject({ code: 'too_few_cases', needed: { cases: 1 } });
    const eight = evidenceFor([...times(6, up('dev')), ...times(2, up('holdout'))]);
    const thin = decide(eight, POLICIES.strict);
    expect(thin.code).toBe('thin_holdout');
    expect(thin.reason).toContain('Add 2 cases (10 in total)');
    const ten = evidenceFor([...times(7, up('dev')), ...times(3, up('holdout'))]);
    // Strict also needs a held-out case from the user's own later chats.
    const authorOnly = decide(ten, POLICIES.strict);
    expect(authorOnly.code).toBe('thin_holdout');
    expect(authorOnly.reason).toContain('needs 1 held-out case from your own later chats (0 measured)');
    expect(decide({ ...ten, independentHoldout: 1, independentMoves: { up: 1, down: 0 } }, POLICIES.strict).code).toBe('promoted');
    // Held-out cases from the user's chats that did not improve: unproven, whatever the policy.
    const fitted = decide({ ...ten, independentHoldout: 1, independentMoves: { up: 0, down: 0 } }, POLICIES.standard);
    expect(fitted.code).toBe('dev_only');
    expect(fitted.reason).toContain('but the 1 held-out case from your own later chats did not improve (↑0 ↓0)');
    expect(decide(ten, POLICIES.standard).code).toBe('promoted');
  });

  it('says when the held-out cases cannot reach the floor even if all improve', () => {
    const policy = { ...standard, maxHoldoutP: 0.2 };
    const verdict = decide(evidenceFor([...times(6, up('dev')), ...times(2, up('holdout'))]), policy);
    expect(verdict.code).toBe('weak_holdout');
    expect(verdict.reason).toContain('even all improving cannot reach p ≤ 0.2');
    expect(verdict.needed).toEqual({ cases: 2 });
  });
});

describe('formatP', () => {
  it('prints three significant digits', () => {
    expect([1, 0.5, 0.25, 0.0625, 0.109375, 0.1875, 0.00390625, 1e-9].map(formatP)).toEqual(['1', '0.5', '0.25', '0.0625', '0.109', '0.188', '0.00391', '< 0.0001']);
  });
});

describe('settledBeforeHoldout', () => {
  it('is true exactly for the branches decided on dev alone (1–7)', () => {
    for (const fixture of FIXTURES) {
      expect(settledBeforeHoldout(decide(fixture.evidence(), standard)), `branch ${fixture.branch}`).toBe(fixture.branch <= 7);
    }
  });

  it('never stops early on a verdict the held-out cases could have changed (random runs)', () => {
    const random = mulberry32(7);
    const randomPair = (side: 'dev' | 'holdout') => {
      if (random() < 0.05) return failedPair(side);
      const k = 1 + Math.floor(random() * 3);
      return pair(side, Math.floor(random() * (k + 1)), Math.floor(random() * (k + 1)), k);
    };
    let settled = 0;
    for (let run = 0; run < 3000; run++) {
      const n = 4 + Math.floor(random() * 10);
      const dev = times(n - holdoutSize(n), () => randomPair('dev'));
      const holdout = times(holdoutSize(n), () => randomPair('holdout'));
      const split = splitFor([...dev, ...holdout]);
      const early = decide(evidenceFor(dev, { split }), standard);
      if (!settledBeforeHoldout(early)) continue;
      settled++;
      const full = decide(evidenceFor([...dev, ...holdout], { split }), standard);
      expect([early.code, 'replay_failed']).toContain(full.code);
      expect(full.verdict === early.verdict || full.code === 'replay_failed').toBe(true);
    }
    expect(settled).toBeGreaterThan(300);
  });
});
