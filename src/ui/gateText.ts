/**
 * Words and figures for the Verification panel (docs/gate.md). Pure formatting of what a
 * stored verdict record or a progress report already says: nothing here computes a
 * statistic, compares gains to a threshold or picks a verdict — `decide()` in src/gate does
 * that once, and the UI only reads its result.
 */
import type {
  ArmResult,
  CaseOutcomeKind,
  CaseResult,
  Check,
  CheckType,
  EvidencePolicy,
  GateCost,
  GateModelUsed,
  GateProgress,
  SideSummary,
  Verdict,
  VerdictCode,
} from '../gate/types';

const MINUS = '\u2212';

/** 0.25 → "0.25", 0.0625 → "0.063", 1 → "1"; tiny values are not printed as 0. */
export function formatP(p: number): string {
  if (!Number.isFinite(p)) return 'unknown';
  if (p > 0 && p < 0.001) return '< 0.001';
  return String(Number(p.toFixed(3)));
}

/** A probability as a whole percent that never rounds a non-certain value to 0 % or 100 %. */
export function formatPercent(probability: number): string {
  if (!Number.isFinite(probability)) return 'unknown';
  const percent = Math.round(probability * 100);
  if (percent >= 100 && probability < 1) return '> 99 %';
  if (percent <= 0 && probability > 0) return '< 1 %';
  return `${percent} %`;
}

/** A signed mean with two decimals and a real minus sign: "+0.50", "−0.25", "0.00". */
export function formatSigned(value: number, digits = 2): string {
  const text = Math.abs(value).toFixed(digits);
  if (Number(text) === 0) return (0).toFixed(digits);
  return value > 0 ? `+${text}` : `${MINUS}${text}`;
}

/**
 * How much the sign test's p says, in words. Wording only: the verdict's own thresholds
 * live in the evidence policy and `decide()`, not here.
 */
export function evidenceWords(p: number, n: number): string {
  if (n === 0) return 'no evidence';
  if (p <= 0.01) return 'strong evidence';
  if (p <= 0.05) return 'good evidence';
  if (p <= 0.25) return 'weak evidence';
  return 'no real evidence';
}

const plural = (count: number, one: string, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** "p = 0.25 · 88 % likely to help more often than hurt · 2 cases: weak evidence" */
export function pValueInWords(side: SideSummary): string {
  if (side.n === 0) return 'no cases measured';
  return [
    `p = ${formatP(side.p)}`,
    `${formatPercent(side.probHelps)} likely to help more often than hurt`,
    `${plural(side.n, 'case')}: ${evidenceWords(side.p, side.n)}`,
  ].join(' · ');
}

/** "↑2 ↓0 =0" */
export function countsText(side: Pick<SideSummary, 'up' | 'down' | 'tie'>): string {
  return `↑${side.up} ↓${side.down} =${side.tie}`;
}

export const SIDE_LABELS = { dev: 'Development', holdout: 'Held-out', pooled: 'All cases' } as const;
export type SideName = keyof typeof SIDE_LABELS;

/** "Held-out: ↑2 ↓0 =0 · +0.50 · p = 0.25 · 88 % likely to help more often than hurt · 2 cases: weak evidence" */
export function sideSummaryLine(side: SideName, summary: SideSummary): string {
  if (summary.n === 0) return `${SIDE_LABELS[side]}: no cases measured`;
  return `${SIDE_LABELS[side]}: ${countsText(summary)} · ${formatSigned(summary.meanGain)} · ${pValueInWords(summary)}`;
}

/** "one case moves the mean by ±0.167" (the resolution stored with the summary). */
export function resolutionNote(summary: SideSummary): string {
  if (summary.n === 0) return '';
  return `one case moves the mean by ±${Number(summary.resolution.toFixed(3))}`;
}

/** "case 5/8 · 9 requests · 6 from cache" */
export function progressLine(progress: GateProgress): string {
  return `case ${progress.casesDone}/${progress.casesTotal} · ${plural(progress.requests, 'request')} · ${progress.cacheHits.toLocaleString('en-US')} from cache`;
}

export function progressPhase(progress: GateProgress): string {
  if (progress.phase === 'dev') return 'Replaying the development cases';
  if (progress.phase === 'holdout') return 'Replaying the held-out cases';
  return 'Writing the verdict';
}

export function subStatusWords(sub: Verdict['sub']): string {
  if (sub === 'not_measured') return 'not measured';
  if (sub === 'unproven') return 'unproven';
  return '';
}

/** What the panel offers next; `kind` lets the panel attach the matching button. */
export type NextActionKind = 'add-cases' | 'fix-cases' | 'verify-again' | 'edit-skill' | 'approve' | 'roll-back' | 'none';
export interface NextAction {
  kind: NextActionKind;
  label: string;
}

export interface NextActionContext {
  /** The skill or its cases changed after this verdict. */
  stale?: boolean;
  /** The user already approved this staged version. */
  approved?: boolean;
  /** A promoted earlier version the caller offers to roll back to. */
  rollbackTo?: number;
}

const addCases = (count: number | undefined): NextAction => ({
  kind: 'add-cases',
  label: count && count > 0 ? `Add ${plural(count, 'case')}` : 'Add cases',
});

const NEXT_BY_CODE: Record<VerdictCode, (verdict: Verdict) => NextAction> = {
  no_cases: (v) => addCases(v.needed?.cases),
  invalid_cases: () => ({ kind: 'fix-cases', label: 'Fix evals/evals.json' }),
  too_few_cases: (v) => addCases(v.needed?.cases),
  budget: () => ({ kind: 'verify-again', label: 'Verify again' }),
  replay_failed: () => ({ kind: 'verify-again', label: 'Verify again' }),
  ceiling: () => ({ kind: 'add-cases', label: 'Add harder cases' }),
  no_dev_gain: () => ({ kind: 'edit-skill', label: 'Edit the skill or its checks' }),
  dev_harm: () => ({ kind: 'edit-skill', label: 'Edit the skill' }),
  thin_holdout: (v) => (v.needed?.cases ? addCases(v.needed.cases) : { kind: 'verify-again', label: 'Verify again' }),
  holdout_regressed: () => ({ kind: 'edit-skill', label: 'Edit the skill' }),
  holdout_ceiling: () => ({ kind: 'add-cases', label: 'Add harder cases' }),
  weak_holdout: (v) => addCases(v.needed?.cases),
  weak_overall: (v) => addCases(v.needed?.cases),
  promoted: () => ({ kind: 'none', label: 'Nothing to do' }),
  dev_only: () => ({ kind: 'approve', label: 'Approve' }),
};

/** The next action for a stored verdict: "Add 2 cases", "Verify again", "Approve", "Roll back to v3". */
export function nextAction(verdict: Verdict, context: NextActionContext = {}): NextAction {
  if (context.stale) return { kind: 'verify-again', label: 'Verify again' };
  if (context.rollbackTo !== undefined) return { kind: 'roll-back', label: `Roll back to v${context.rollbackTo} (promoted)` };
  const action = NEXT_BY_CODE[verdict.code](verdict);
  if (action.kind === 'approve' && context.approved) return { kind: 'none', label: 'Approved by you' };
  return action;
}

const POLICY_WORDS: Record<EvidencePolicy, string> = {
  lenient: 'lenient (majority of held-out cases)',
  standard: 'standard',
  strict: 'strict (baseline replayed twice)',
};

export function policyWords(policy: EvidencePolicy): string {
  return POLICY_WORDS[policy];
}

/** "temperature 0 · seed 7 · up to 1,024 tokens" */
export function paramsLine(model: GateModelUsed): string {
  const { temperature, seed, maxTokens } = model.params;
  return [
    temperature === 'provider-default' ? 'temperature: provider default (refused 0)' : `temperature ${temperature}`,
    seed === null ? 'no seed (refused)' : `seed ${seed}`,
    `up to ${maxTokens.toLocaleString('en-US')} tokens`,
  ].join(' · ');
}

export function modelLine(model: GateModelUsed): string {
  return `${model.id} (${model.provider === 'webgpu' ? 'in this browser' : model.provider})`;
}

export function contextWords(context: 'isolated' | 'memory'): string {
  return context === 'memory' ? 'with your memory snapshot' : 'isolated (no memory, no other skills)';
}

/** "verified with X; the gate now uses Y" */
export function modelChangedNote(verifiedWith: string, gateNow: string): string {
  return `Verified with ${verifiedWith}; the gate now uses ${gateNow}.`;
}

function formatTokens(tokens: number): string {
  if (tokens < 1000) return `${tokens}`;
  return `${Number((tokens / 1000).toFixed(1))}k`;
}

function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.001) return '< $0.001';
  return `$${usd < 1 ? Number(usd.toFixed(3)) : usd.toFixed(2)}`;
}

/** "12 requests (6 from cache) · ≈ 9.1k tokens · $0.004 · 14.2 s" */
export function costLine(cost: GateCost): string {
  const parts = [`${plural(cost.requests, 'request')} (${cost.cacheHits.toLocaleString('en-US')} from cache)`];
  parts.push(`${cost.estimated ? '≈ ' : ''}${formatTokens(cost.promptTokens + cost.completionTokens)} tokens`);
  if (cost.usd !== null) parts.push(formatUsd(cost.usd));
  parts.push(`${(cost.ms / 1000).toFixed(1)} s`);
  return parts.join(' · ');
}

/** "replay noise: 2 flips in 40 probes" */
export function noiseLine(noise: { probes: number; flips: number }): string {
  return `replay noise: ${plural(noise.flips, 'flip')} in ${plural(noise.probes, 'probe')}`;
}

export const OUTCOME_TEXT: Record<CaseOutcomeKind, { badge: string; words: string }> = {
  up: { badge: '↑', words: 'better' },
  down: { badge: '↓', words: 'worse' },
  tie: { badge: '=', words: 'same' },
  unmeasured: { badge: '–', words: 'not measured' },
};

/** "1/2", or why the arm has no score. */
export function armScoreText(arm: ArmResult, checks: number): string {
  if (arm.status === 'ok' || arm.status === 'too-long') return `${arm.passed}/${checks}`;
  return ARM_STATUS_WORDS[arm.status];
}

const ARM_STATUS_WORDS: Record<ArmResult['status'], string> = {
  ok: 'answered',
  error: 'failed',
  empty: 'empty answer',
  truncated: 'cut off before any answer (raise max tokens)',
  'too-long': 'the skill does not fit this model',
};

export function armStatusText(arm: ArmResult): string {
  const words = ARM_STATUS_WORDS[arm.status];
  return arm.status === 'error' && arm.error ? `${words}: ${arm.error}` : words;
}

const FLAG_WORDS: Record<string, string> = {
  skill_too_long: 'the skill does not fit this model’s context',
  regex_timeout: 'a regex check took too long and was not scored',
  too_long_for_model: 'too long for the gate model’s context window: not sent, not scored',
};

export function flagText(flag: string): string {
  return FLAG_WORDS[flag] ?? flag.replace(/_/g, ' ');
}

export function caseLabel(id: string | number): string {
  return `Case ${id}`;
}

export const CHECK_TYPE_WORDS: Record<CheckType, string> = {
  contains: 'contains',
  not_contains: 'does not contain',
  icontains: 'contains (any case)',
  not_icontains: 'does not contain (any case)',
  contains_any: 'contains any of',
  icontains_any: 'contains any of (any case)',
  contains_all: 'contains all of',
  icontains_all: 'contains all of (any case)',
  regex: 'matches regex',
  not_regex: 'does not match regex',
  equals: 'equals',
  starts_with: 'starts with',
  ends_with: 'ends with',
  is_json: 'is JSON',
  length: 'length',
};

const quote = (value: unknown) => `“${String(value)}”`;

/** A check as one line: "contains (any case) “Pretendard”", "matches regex /^a/i", "length 10–200". */
export function checkText(check: Check): string {
  const words = CHECK_TYPE_WORDS[check.type] ?? check.type;
  const value = check.value;
  if (check.type === 'is_json') return words;
  if (check.type === 'length') {
    const bounds = (value ?? {}) as { min?: number; max?: number };
    if (bounds.min !== undefined && bounds.max !== undefined) return `${words} ${bounds.min}–${bounds.max} characters`;
    if (bounds.min !== undefined) return `${words} at least ${bounds.min} characters`;
    if (bounds.max !== undefined) return `${words} at most ${bounds.max} characters`;
    return words;
  }
  if (check.type === 'regex' || check.type === 'not_regex') return `${words} /${String(value ?? '')}/${check.flags ?? ''}`;
  if (Array.isArray(value)) return `${words} ${value.map(quote).join(', ')}`;
  return `${words} ${quote(value ?? '')}`;
}

/** "passed" / "failed" for screen readers next to ✓ / ✗. */
export function passWords(pass: boolean): { symbol: string; words: string } {
  return pass ? { symbol: '✓', words: 'passed' } : { symbol: '✗', words: 'failed' };
}

export interface ChartRow {
  result: CaseResult;
  /** Scores as fractions of the case's checks, for placing the marks; null = not measured. */
  base: number | null;
  skill: number | null;
}

/**
 * Rows of the per-case chart, one group per side, each sorted by the per-case change (largest
 * first) with unmeasured cases last. Only the display order: the verdict never reads it.
 */
export function chartGroups(cases: CaseResult[]): { side: 'dev' | 'holdout'; rows: ChartRow[] }[] {
  const toRow = (result: CaseResult): ChartRow => {
    if (result.outcome === 'unmeasured' || result.checks === 0) return { result, base: null, skill: null };
    return { result, base: result.base.passed / result.checks, skill: result.skill.passed / result.checks };
  };
  const order = (row: ChartRow) => (row.base === null || row.skill === null ? Number.NEGATIVE_INFINITY : row.skill - row.base);
  return (['dev', 'holdout'] as const)
    .map((side) => ({
      side,
      rows: cases
        .filter((result) => result.side === side)
        .map(toRow)
        .sort((a, b) => order(b) - order(a) || String(a.result.id).localeCompare(String(b.result.id), 'en', { numeric: true })),
    }))
    .filter((group) => group.rows.length > 0);
}
