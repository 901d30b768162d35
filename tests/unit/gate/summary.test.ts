/**
 * Scoring from integer pass counts: case outcomes, unmeasured handling, per-side summaries,
 * per-check diagnostics and the evidence decide() reads.
 */
import { describe, expect, it } from 'vitest';
import {
  buildEvidence,
  caseOutcome,
  checkDiagnostics,
  checkKey,
  isMeasured,
  summarizeRun,
  summarizeSide,
  UNSTABLE_BASELINE_FLAG,
} from '../../../src/gate/summary';
import type { CaseResult, Check } from '../../../src/gate/types';
import { arm, evidenceFor, failedPair, pair, splitFor, times } from './helpers/results';

const withArms = (base: CaseResult['base'], skill: CaseResult['skill'], k = 2, flags: string[] = []) => ({ checks: k, base, skill, flags });

describe('caseOutcome', () => {
  it('compares integer pass counts: up ⇔ s > b, down ⇔ s < b, tie ⇔ s = b', () => {
    expect(caseOutcome(withArms(arm(1, 2), arm(2, 2)))).toBe('up');
    expect(caseOutcome(withArms(arm(2, 3), arm(1, 3), 3))).toBe('down');
    expect(caseOutcome(withArms(arm(1, 2), arm(1, 2)))).toBe('tie');
  });

  it('leaves a failed baseline out instead of counting the skill arm as an improvement', () => {
    expect(caseOutcome(withArms(arm(0, 2, 'error', 'HTTP 503'), arm(2, 2)))).toBe('unmeasured');
    expect(caseOutcome(withArms(arm(1, 2), arm(0, 2, 'error')))).toBe('unmeasured');
  });

  it('treats an answer cut off before any text as unmeasured', () => {
    expect(caseOutcome(withArms(arm(0, 2, 'truncated'), arm(2, 2)))).toBe('unmeasured');
    expect(caseOutcome(withArms(arm(1, 2), arm(0, 2, 'truncated')))).toBe('unmeasured');
  });

  it('scores a with-skill arm that does not fit the model as given (0), but not a baseline that does not', () => {
    expect(caseOutcome(withArms(arm(1, 2), arm(0, 2, 'too-long'), 2, ['skill_too_long']))).toBe('down');
    expect(caseOutcome(withArms(arm(0, 2, 'too-long'), arm(0, 2, 'too-long')))).toBe('unmeasured');
    // Whatever count the arm carries, a skill that did not fit passed nothing.
    expect(caseOutcome(withArms(arm(1, 2), { ...arm(0, 2, 'too-long'), passed: 2 }))).toBe('down');
  });

  it('scores one empty arm as observed when the other answered, and two empty arms not at all', () => {
    expect(caseOutcome(withArms(arm(1, 2, 'empty'), arm(2, 2)))).toBe('up');
    expect(caseOutcome(withArms(arm(0, 2, 'empty'), arm(0, 2, 'empty')))).toBe('unmeasured');
  });

  it('counts an unstable baseline as a tie and a regex timeout as unmeasured', () => {
    expect(caseOutcome(withArms(arm(0, 2), arm(2, 2), 2, [UNSTABLE_BASELINE_FLAG]))).toBe('tie');
    expect(caseOutcome(withArms(arm(0, 2), arm(2, 2), 2, ['regex_timeout']))).toBe('unmeasured');
    expect(isMeasured(withArms(arm(0, 0), arm(0, 0), 0))).toBe(false);
  });
});

describe('summarizeSide', () => {
  it('counts up, down, tie and headroom and computes means, p, mid-p and P(helps)', () => {
    const side = summarizeSide([pair('holdout', 1, 2), pair('holdout', 1, 2), pair('holdout', 2, 2), pair('holdout', 1, 0)]);
    expect(side).toMatchObject({ n: 4, up: 2, down: 1, tie: 1, headroom: 3, gainSign: 1, resolution: 0.25 });
    expect(side.meanBaseline).toBeCloseTo(0.625, 12);
    expect(side.meanSkill).toBeCloseTo(0.75, 12);
    expect(side.meanGain).toBeCloseTo(0.125, 12);
    expect(side.p).toBe(0.5);
    expect(side.midP).toBe(0.3125);
    expect(side.probHelps).toBe(0.6875);
  });

  it('ignores unmeasured pairs entirely', () => {
    const side = summarizeSide([pair('dev', 1, 2), failedPair('dev'), failedPair('dev')]);
    expect(side).toMatchObject({ n: 1, up: 1, down: 0, tie: 0, p: 0.5 });
  });

  it('is empty and neutral with no measured case', () => {
    expect(summarizeSide([failedPair('dev')])).toEqual({
      n: 0, up: 0, down: 0, tie: 0, headroom: 0, meanBaseline: 0, meanSkill: 0, meanGain: 0, gainSign: 0, p: 1, midP: 1, probHelps: 0.5, resolution: 0,
    });
  });

  it('decides the sign of the mean gain on integers, where floats would leave a residue', () => {
    // +1/2 + 1/3 − 1/2 − 1/3 = 0 exactly; summed in doubles in this order it is −5.6e-17.
    const results = [pair('dev', 0, 1, 2), pair('dev', 0, 1, 3), pair('dev', 1, 0, 2), pair('dev', 1, 0, 3)];
    expect(1 / 2 + 1 / 3 - 1 / 2 - 1 / 3).not.toBe(0);
    const side = summarizeSide(results);
    expect(side.gainSign).toBe(0);
    expect(side).toMatchObject({ up: 2, down: 2 });
    expect(summarizeSide([pair('dev', 0, 1, 7), pair('dev', 1, 0, 8)]).gainSign).toBe(1);
    expect(summarizeSide([pair('dev', 0, 1, 8), pair('dev', 1, 0, 7)]).gainSign).toBe(-1);
  });

  it('gives an unstable baseline no gain as well as a tie', () => {
    const side = summarizeSide([pair('dev', 0, 2, 2, [UNSTABLE_BASELINE_FLAG]), pair('dev', 1, 1)]);
    expect(side).toMatchObject({ up: 0, tie: 2, gainSign: 0, meanGain: 0 });
  });
});

describe('summarizeRun', () => {
  it('summarises dev, holdout and all cases pooled', () => {
    const run = summarizeRun([pair('dev', 1, 2), pair('dev', 1, 2), pair('dev', 1, 1), pair('holdout', 1, 2), pair('holdout', 2, 1)]);
    expect(run.dev).toMatchObject({ n: 3, up: 2, down: 0, tie: 1 });
    expect(run.holdout).toMatchObject({ n: 2, up: 1, down: 1 });
    expect(run.pooled).toMatchObject({ n: 5, up: 3, down: 1, tie: 1, p: 0.3125 });
  });
});

describe('checkDiagnostics', () => {
  const font: Check = { type: 'icontains', value: 'Pretendard' };
  const notArial: Check = { type: 'not_icontains', value: 'Arial' };
  const broken: Check = { type: 'regex', value: '^never$', flags: 'i' };
  const ruined: Check = { type: 'is_json' };
  const mixed: Check = { type: 'length', value: { max: 400 } };
  const checks = [font, notArial, broken, ruined, mixed];
  const result = (id: number, base: boolean[], skill: boolean[]): CaseResult => ({
    id,
    side: id === 1 ? 'holdout' : 'dev',
    checks: base.length,
    base: { ...arm(0, base.length), passed: base.filter(Boolean).length, checkPass: base },
    skill: { ...arm(0, skill.length), passed: skill.filter(Boolean).length, checkPass: skill },
    outcome: 'tie',
    flags: [],
  });
  // Per case: [font, notArial, broken, ruined, mixed]
  const results = [
    result(1, [false, true, false, true, true], [true, true, false, false, true]),
    result(2, [false, true, false, true, false], [true, true, false, false, true]),
    result(3, [false, true, false, false, true], [false, true, false, false, false]),
    failedPair('dev'),
  ];

  it('names what each check shows across measured cases and arms', () => {
    const diagnostics = checkDiagnostics(results, (id) => (id === results[3].id ? [font] : checks));
    const byType = Object.fromEntries(diagnostics.map((d) => [d.check.type, d]));
    expect(byType.icontains).toMatchObject({ caseIds: [1, 2, 3], basePasses: 0, skillPasses: 2 });
    expect(byType.icontains.diagnostics.map((d) => d.text)).toEqual(['passes only with the skill — this is where it helps']);
    expect(byType.not_icontains.diagnostics.map((d) => d.text)).toEqual(['passes in both arms on every case — does not discriminate']);
    expect(byType.regex.diagnostics.map((d) => d.text)).toEqual(['fails in both arms on every case — broken or too hard']);
    expect(byType.is_json.diagnostics.map((d) => d.text)).toEqual(['passes only without the skill — the skill hurts here']);
    expect(byType.length.diagnostics).toEqual([]);
  });

  it('adds "flaky" for checks that changed between identical replays', () => {
    const diagnostics = checkDiagnostics(results, () => checks, new Set([checkKey(mixed), checkKey(font)]));
    const kinds = Object.fromEntries(diagnostics.map((d) => [d.check.type, d.diagnostics.map((x) => x.kind)]));
    expect(kinds.length).toEqual(['flaky']);
    expect(kinds.icontains).toEqual(['helps_here', 'flaky']);
  });

  it('groups the same check on different cases, whatever its key order', () => {
    const a = checkKey({ type: 'regex', value: 'x', flags: 'i' });
    const b = checkKey({ flags: 'i', value: 'x', type: 'regex' });
    expect(a).toBe(b);
    expect(checkKey({ type: 'regex', value: 'x' })).not.toBe(a);
  });
});

describe('buildEvidence', () => {
  it('carries counts, exclusions, sides and the first error of the run', () => {
    const results = [pair('dev', 1, 2), pair('dev', 0, 0), failedPair('dev', 'HTTP 429'), pair('holdout', 1, 2)];
    const split = splitFor(results, { excluded: [{ id: 9, reason: 'duplicate of case 1' }] });
    const evidence = buildEvidence({
      hasCasesFile: true,
      split,
      parseExcluded: [{ id: 7, reason: 'no checks' }],
      results,
      providerLabel: 'api.example.com',
    });
    expect(evidence).toMatchObject({
      hasCasesFile: true,
      scorable: 4,
      planned: { dev: 3, holdout: 1 },
      unmeasured: 1,
      firstError: 'HTTP 429',
      providerLabel: 'api.example.com',
      devAllFailBoth: false,
      excluded: [{ id: 7, reason: 'no checks' }, { id: 9, reason: 'duplicate of case 1' }],
    });
    expect(evidence.dev).toMatchObject({ n: 2, up: 1, tie: 1 });
    expect(evidence.pooled.n).toBe(3);
  });

  it('counts cases the cost cap left out as scorable but not planned', () => {
    const results = times(4, () => pair('dev', 1, 2));
    const split = splitFor(results);
    const evidence = buildEvidence({ hasCasesFile: true, split: { ...split, notRun: [split.dev[0], split.dev[1]] }, results, providerLabel: 'x' });
    expect(evidence.scorable).toBe(6);
    expect(evidence.planned).toEqual({ dev: 4, holdout: 0 });
  });

  it('flags dev cases where every check failed in both arms', () => {
    expect(evidenceFor([pair('dev', 0, 0), pair('dev', 0, 0), pair('holdout', 1, 2)]).devAllFailBoth).toBe(true);
    expect(evidenceFor([pair('dev', 0, 0), pair('dev', 0, 1)]).devAllFailBoth).toBe(false);
    expect(evidenceFor([failedPair('dev')]).devAllFailBoth).toBe(false);
  });

  it('reads as "no cases" when there is no split', () => {
    const evidence = buildEvidence({ hasCasesFile: false, results: [], providerLabel: 'x' });
    expect(evidence).toMatchObject({ hasCasesFile: false, scorable: 0, planned: { dev: 0, holdout: 0 }, unmeasured: 0 });
  });
});
