import { describe, expect, it } from 'vitest';
import type { ArmResult, CaseResult, SideSummary, Verdict, VerdictCode } from '../../../src/gate/types';
import {
  armScoreText,
  armStatusText,
  chartGroups,
  checkText,
  costLine,
  evidenceWords,
  formatP,
  formatPercent,
  formatSigned,
  modelChangedNote,
  nextAction,
  noiseLine,
  paramsLine,
  progressLine,
  pValueInWords,
  resolutionNote,
  sideSummaryLine,
  subStatusWords,
} from '../../../src/ui/gateText';

const side = (over: Partial<SideSummary> = {}): SideSummary => ({
  n: 2,
  up: 2,
  down: 0,
  tie: 0,
  headroom: 2,
  meanBaseline: 0.5,
  meanSkill: 1,
  meanGain: 0.5,
  gainSign: 1,
  p: 0.25,
  midP: 0.125,
  probHelps: 0.875,
  resolution: 0.5,
  ...over,
});

const verdict = (code: VerdictCode, over: Partial<Verdict> = {}): Verdict => ({
  verdict: 'staged',
  code,
  sub: null,
  reason: '',
  numbers: { dev: side(), holdout: side(), pooled: side(), pHoldout: 0.25, pPooled: 0.0625 },
  ...over,
});

const arm = (passed: number, over: Partial<ArmResult> = {}): ArmResult => ({
  status: 'ok',
  passed,
  checkPass: [],
  outputRef: 'ref',
  excerpt: '',
  ...over,
});

const result = (id: number, sideName: 'dev' | 'holdout', b: number, s: number, k = 2, over: Partial<CaseResult> = {}): CaseResult => ({
  id,
  side: sideName,
  checks: k,
  base: arm(b),
  skill: arm(s),
  outcome: s > b ? 'up' : s < b ? 'down' : 'tie',
  flags: [],
  ...over,
});

describe('numbers in words', () => {
  it('formats p without float noise and without printing a tiny p as zero', () => {
    expect(formatP(0.25)).toBe('0.25');
    expect(formatP(1)).toBe('1');
    expect(formatP(0.0625)).toBe('0.063');
    expect(formatP(0.125)).toBe('0.125');
    expect(formatP(0.0001)).toBe('< 0.001');
    expect(formatP(Number.NaN)).toBe('unknown');
  });

  it('never rounds an uncertain probability to 0 % or 100 %', () => {
    expect(formatPercent(0.875)).toBe('88 %');
    expect(formatPercent(0.9995)).toBe('> 99 %');
    expect(formatPercent(0.001)).toBe('< 1 %');
    expect(formatPercent(1)).toBe('100 %');
    expect(formatPercent(0)).toBe('0 %');
  });

  it('signs means with a real minus and no negative zero', () => {
    expect(formatSigned(0.5)).toBe('+0.50');
    expect(formatSigned(-0.25)).toBe('\u22120.25');
    expect(formatSigned(-0.001)).toBe('0.00');
    expect(formatSigned(0)).toBe('0.00');
    expect(formatSigned(1 / 6, 3)).toBe('+0.167');
  });

  it('words the strength of the evidence from p', () => {
    expect(evidenceWords(0.25, 2)).toBe('weak evidence');
    expect(evidenceWords(0.5, 1)).toBe('no real evidence');
    expect(evidenceWords(0.03, 5)).toBe('good evidence');
    expect(evidenceWords(0.002, 9)).toBe('strong evidence');
    expect(evidenceWords(1, 0)).toBe('no evidence');
  });
});

describe('side summaries', () => {
  it('puts the p-value in words from the stored summary', () => {
    expect(pValueInWords(side())).toBe('p = 0.25 · 88 % likely to help more often than hurt · 2 cases: weak evidence');
    expect(pValueInWords(side({ n: 1, p: 0.5, probHelps: 0.75 }))).toBe('p = 0.5 · 75 % likely to help more often than hurt · 1 case: no real evidence');
    expect(pValueInWords(side({ n: 0 }))).toBe('no cases measured');
  });

  it('writes one line per side', () => {
    expect(sideSummaryLine('holdout', side())).toBe(
      'Held-out: ↑2 ↓0 =0 · +0.50 · p = 0.25 · 88 % likely to help more often than hurt · 2 cases: weak evidence',
    );
    expect(sideSummaryLine('dev', side({ up: 0, down: 3, tie: 1, n: 4, meanGain: -0.25, p: 1, probHelps: 0.0625 }))).toBe(
      'Development: ↑0 ↓3 =1 · \u22120.25 · p = 1 · 6 % likely to help more often than hurt · 4 cases: no real evidence',
    );
    expect(sideSummaryLine('pooled', side({ n: 0 }))).toBe('All cases: no cases measured');
  });

  it('states the resolution the summary carries', () => {
    expect(resolutionNote(side({ n: 6, resolution: 1 / 6 }))).toBe('one case moves the mean by ±0.167');
    expect(resolutionNote(side({ n: 0, resolution: 0 }))).toBe('');
  });
});

describe('progress and cost', () => {
  it('writes the progress line of a run', () => {
    expect(progressLine({ runId: 'r', skill: 's', phase: 'dev', casesDone: 5, casesTotal: 8, requests: 9, cacheHits: 6 })).toBe(
      'case 5/8 · 9 requests · 6 from cache',
    );
    expect(progressLine({ runId: 'r', skill: 's', phase: 'dev', casesDone: 0, casesTotal: 8, requests: 1, cacheHits: 0 })).toBe(
      'case 0/8 · 1 request · 0 from cache',
    );
  });

  it('writes the cost, marking estimates and leaving out an unknown price', () => {
    const cost = { requests: 12, cacheHits: 6, promptTokens: 8000, completionTokens: 1100, estimated: true, usd: 0.0042, ms: 14_230 };
    expect(costLine(cost)).toBe('12 requests (6 from cache) · ≈ 9.1k tokens · $0.004 · 14.2 s');
    expect(costLine({ ...cost, requests: 1, cacheHits: 0, promptTokens: 300, completionTokens: 20, estimated: false, usd: null, ms: 800 })).toBe(
      '1 request (0 from cache) · 320 tokens · 0.8 s',
    );
  });

  it('writes the parameters actually used, including refused ones', () => {
    expect(paramsLine({ provider: 'https://api.example.com', id: 'm', params: { temperature: 0, seed: 7, maxTokens: 1024 } })).toBe(
      'temperature 0 · seed 7 · up to 1,024 tokens',
    );
    expect(paramsLine({ provider: 'webgpu', id: 'm', params: { temperature: 'provider-default', seed: null, maxTokens: 512 } })).toBe(
      'temperature: provider default (refused 0) · no seed (refused) · up to 512 tokens',
    );
  });

  it('words the noise probe and a model change', () => {
    expect(noiseLine({ probes: 40, flips: 2 })).toBe('replay noise: 2 flips in 40 probes');
    expect(noiseLine({ probes: 1, flips: 1 })).toBe('replay noise: 1 flip in 1 probe');
    expect(modelChangedNote('a', 'b')).toBe('Verified with a; the gate now uses b.');
  });
});

describe('verdict words', () => {
  it('names the sub-status', () => {
    expect(subStatusWords('not_measured')).toBe('not measured');
    expect(subStatusWords('unproven')).toBe('unproven');
    expect(subStatusWords(null)).toBe('');
  });

  it('gives the next action from the code and what is needed', () => {
    expect(nextAction(verdict('too_few_cases', { needed: { cases: 2 } }))).toEqual({ kind: 'add-cases', label: 'Add 2 cases' });
    expect(nextAction(verdict('thin_holdout', { needed: { cases: 1 } })).label).toBe('Add 1 case');
    expect(nextAction(verdict('thin_holdout')).label).toBe('Verify again');
    expect(nextAction(verdict('no_cases')).label).toBe('Add cases');
    expect(nextAction(verdict('replay_failed')).kind).toBe('verify-again');
    expect(nextAction(verdict('budget')).label).toBe('Verify again');
    expect(nextAction(verdict('dev_only')).label).toBe('Approve');
    expect(nextAction(verdict('dev_only'), { approved: true }).kind).toBe('none');
    expect(nextAction(verdict('promoted', { verdict: 'promoted' })).kind).toBe('none');
    expect(nextAction(verdict('holdout_regressed', { verdict: 'rejected' }), { rollbackTo: 3 })).toEqual({
      kind: 'roll-back',
      label: 'Roll back to v3 (promoted)',
    });
    expect(nextAction(verdict('promoted'), { stale: true }).label).toBe('Verify again');
  });

  it('has a next action for every verdict code', () => {
    const codes: VerdictCode[] = [
      'no_cases', 'invalid_cases', 'too_few_cases', 'budget', 'replay_failed', 'ceiling', 'no_dev_gain', 'dev_harm',
      'thin_holdout', 'holdout_regressed', 'holdout_ceiling', 'weak_holdout', 'weak_overall', 'promoted', 'dev_only',
    ];
    for (const code of codes) expect(nextAction(verdict(code)).label.length).toBeGreaterThan(0);
  });
});

describe('cases and checks', () => {
  it('scores an arm or says why it has no score', () => {
    expect(armScoreText(arm(1), 2)).toBe('1/2');
    expect(armScoreText(arm(0, { status: 'too-long' }), 2)).toBe('0/2');
    expect(armScoreText(arm(0, { status: 'error', error: 'HTTP 503' }), 2)).toBe('failed');
    expect(armStatusText(arm(0, { status: 'error', error: 'HTTP 503' }))).toBe('failed: HTTP 503');
  });

  it('writes each check type as a line', () => {
    expect(checkText({ type: 'icontains', value: 'Pretendard' })).toBe('contains (any case) “Pretendard”');
    expect(checkText({ type: 'contains_all', value: ['a', 'b'] })).toBe('contains all of “a”, “b”');
    expect(checkText({ type: 'regex', value: '^a', flags: 'i' })).toBe('matches regex /^a/i');
    expect(checkText({ type: 'length', value: { min: 10, max: 200 } })).toBe('length 10–200 characters');
    expect(checkText({ type: 'length', value: { max: 200 } })).toBe('length at most 200 characters');
    expect(checkText({ type: 'is_json' })).toBe('is JSON');
  });

  it('groups the chart by side and sorts by the per-case change, unmeasured last', () => {
    const cases = [
      result(1, 'dev', 1, 1),
      result(2, 'holdout', 0, 2),
      result(3, 'dev', 0, 2),
      result(4, 'dev', 2, 1),
      result(5, 'dev', 0, 0, 2, { outcome: 'unmeasured', base: arm(0, { status: 'error' }) }),
      result(6, 'holdout', 1, 2),
    ];
    const groups = chartGroups(cases);
    expect(groups.map((group) => group.side)).toEqual(['dev', 'holdout']);
    expect(groups[0].rows.map((row) => row.result.id)).toEqual([3, 1, 4, 5]);
    expect(groups[0].rows[3].base).toBeNull();
    expect(groups[1].rows.map((row) => [row.result.id, row.base, row.skill])).toEqual([
      [2, 0, 1],
      [6, 0.5, 1],
    ]);
    expect(chartGroups([result(1, 'dev', 0, 1)]).map((group) => group.side)).toEqual(['dev']);
  });
});
