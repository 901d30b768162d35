import { signTestWithin } from './signTest';
import { casesNeededToPromote, DEFAULT_HOLDOUT_RATIO } from './split';
import type { Evidence, PolicyThresholds, SideSummary, Verdict, VerdictCode } from './types';

/**
 * The verdict of a verification run (docs/gate.md, "Verdicts"). This is the only function in
 * Knack that produces a verdict word or a reason sentence; the UI, the index, export and the
 * model-facing results only read what it returned. The branches run in a fixed order and the
 * first that applies decides; every one names a code, the figures it was decided on and, where
 * something would settle it, what is needed.
 *
 * Thresholds are compared on integers (`signTestWithin`) and signs of means come from
 * `SideSummary.gainSign`, so no float rounding can move a skill across a boundary.
 */

/** Every code decide() can produce; the reachability test runs one fixture per code. */
export const VERDICT_CODES = [
  'no_cases',
  'invalid_cases',
  'too_few_cases',
  'budget',
  'replay_failed',
  'ceiling',
  'no_dev_gain',
  'dev_harm',
  'thin_holdout',
  'holdout_regressed',
  'holdout_ceiling',
  'weak_holdout',
  'weak_overall',
  'promoted',
  'dev_only',
] as const satisfies readonly VerdictCode[];

// Fails to compile when VerdictCode gains a member that VERDICT_CODES lacks.
const everyCodeListed: Exclude<VerdictCode, (typeof VERDICT_CODES)[number]> extends never ? true : false = true;
void everyCodeListed;

/**
 * Codes decided before any held-out case is read (branches 1–7). When a dev-only run already
 * ends in one of these, replaying the holdout cannot change the verdict (at most more failed
 * pairs would turn it into replay_failed), so the run stops and saves those requests.
 */
const SETTLED_BEFORE_HOLDOUT: ReadonlySet<VerdictCode> = new Set<VerdictCode>(VERDICT_CODES.slice(0, VERDICT_CODES.indexOf('dev_harm') + 1));

export const settledBeforeHoldout = (verdict: Verdict): boolean => SETTLED_BEFORE_HOLDOUT.has(verdict.code);

type Numbers = Verdict['numbers'];
type Extra = Pick<Verdict, 'needed'>;

const stagedNotMeasured = (code: VerdictCode, reason: string, numbers: Numbers, extra: Extra = {}): Verdict => ({
  verdict: 'staged',
  code,
  sub: 'not_measured',
  reason,
  numbers,
  ...extra,
});
const stagedUnproven = (code: VerdictCode, reason: string, numbers: Numbers, extra: Extra = {}): Verdict => ({
  verdict: 'staged',
  code,
  sub: 'unproven',
  reason,
  numbers,
  ...extra,
});
const rejected = (code: VerdictCode, reason: string, numbers: Numbers): Verdict => ({ verdict: 'rejected', code, sub: null, reason, numbers });
const promoted = (reason: string, numbers: Numbers): Verdict => ({ verdict: 'promoted', code: 'promoted', sub: null, reason, numbers });

/** "+0.50", "−0.125", "0.00": at least two decimals, three when they matter; the sign is exact. */
function signedMean(side: SideSummary): string {
  const magnitude = Math.abs(side.meanGain).toFixed(3).replace(/(\.\d\d)0$/, '$1');
  return side.gainSign > 0 ? `+${magnitude}` : side.gainSign < 0 ? `\u2212${magnitude}` : '0.00';
}

export function formatP(p: number): string {
  if (p >= 1) return '1';
  if (p < 0.0001) return '< 0.0001';
  return String(Number(p.toPrecision(3)));
}

const counts = (side: SideSummary) => `\u2191${side.up} \u2193${side.down} =${side.tie}`;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** " Not used: case 3 (no checks), case 5 (duplicate of case 2)." — at most five named. */
function excludedNote(evidence: Evidence): string {
  const { excluded } = evidence;
  if (excluded.length === 0) return '';
  const named = excluded.slice(0, 5).map((item) => `case ${item.id} (${item.reason})`);
  const more = excluded.length > 5 ? ` and ${excluded.length - 5} more` : '';
  return ` Not used: ${named.join(', ')}${more}.`;
}

/** Branches 1–6: the run says nothing about the skill. */
function notMeasured(evidence: Evidence, policy: PolicyThresholds, numbers: Numbers): Verdict | null {
  const { minCases } = policy;
  if (!evidence.hasCasesFile) {
    return stagedNotMeasured('no_cases', `Not measured: this skill has no test cases yet (evals/evals.json). Add at least ${minCases}.`, numbers, {
      needed: { cases: minCases },
    });
  }
  if (evidence.casesError !== undefined) {
    return stagedNotMeasured('invalid_cases', `Not measured: evals/evals.json is invalid: ${evidence.casesError}.`, numbers);
  }
  const n = evidence.scorable;
  if (n < minCases) {
    const reason = `Not measured: ${plural(n, 'usable case', 'usable cases')}; the gate needs ${minCases}. Add ${minCases - n} more.${excludedNote(evidence)}`;
    return stagedNotMeasured('too_few_cases', reason, numbers, { needed: { cases: minCases - n } });
  }
  if (evidence.budget) {
    const { requests, tokens, casesRun, casesPlanned } = evidence.budget;
    const reason = `Not measured: stopped at the budget (${requests} requests, ${tokens} tokens) after ${casesRun}/${casesPlanned} cases. This says nothing about the skill.`;
    return stagedNotMeasured('budget', reason, numbers);
  }
  const planned = evidence.planned.dev + evidence.planned.holdout;
  // Holdout pairs skipped on purpose (dev-first early stop) are not failures: only pairs that
  // failed can bring the measured cases under the minimum.
  const tooFewMeasured = evidence.unmeasured > 0 && planned - evidence.unmeasured < minCases;
  if (evidence.breaker || evidence.dev.n === 0 || tooFewMeasured) {
    const tried = evidence.pooled.n + evidence.unmeasured;
    const error = evidence.firstError ? ` (${evidence.firstError})` : '';
    const what = evidence.unmeasured > 0 ? `${evidence.unmeasured} of ${tried} replays failed${error}` : 'no development case could be measured';
    const reason = `Not measured: ${what}. This is not evidence against the skill; verify again when ${evidence.providerLabel} answers.`;
    return stagedNotMeasured('replay_failed', reason, numbers);
  }
  if (evidence.dev.headroom === 0 && evidence.dev.down === 0) {
    const reason =
      'Not measured: without the skill the model already passes every check on these cases, so they cannot show a gain. Add cases the model gets wrong without the skill.';
    return stagedNotMeasured('ceiling', reason, numbers);
  }
  return null;
}

/** Branch 11's advice: how many cases to add so that enough are held out. */
function thinHoldout(evidence: Evidence, policy: PolicyThresholds, numbers: Numbers): Verdict {
  const h = evidence.holdout.n;
  const nNeeded = casesNeededToPromote(policy.minHoldout, evidence.splitRatio ?? DEFAULT_HOLDOUT_RATIO);
  const add = nNeeded - evidence.scorable;
  const lead = `Staged: held-out ${h === 1 ? 'case' : 'cases'} improved, but ${plural(h, 'held-out case is', 'held-out cases are')} not enough (need ${policy.minHoldout}).`;
  if (add > 0) {
    return stagedUnproven('thin_holdout', `${lead} Add ${plural(add, 'case', 'cases')} (${nNeeded} in total).`, numbers, { needed: { cases: add } });
  }
  // Enough cases exist, yet too few held-out ones were measured (failed pairs, or teaching
  // prompts kept in dev): a new run or more cases settles it.
  return stagedUnproven('thin_holdout', `${lead} Verify again, or add cases.`, numbers);
}

/** Branch 12: how many held-out cases must improve, with none worse, to meet the floor. */
function weakHoldout(evidence: Evidence, policy: PolicyThresholds, numbers: Numbers): Verdict {
  const { holdout } = evidence;
  let needUp = 1;
  while (!signTestWithin(needUp, 0, policy.maxHoldoutP)) needUp++;
  const lead = `Staged: held-out cases lean positive (${counts(holdout)}, p = ${formatP(holdout.p)}) but not enough to call it verified;`;
  if (needUp <= holdout.n) {
    return stagedUnproven('weak_holdout', `${lead} with ${holdout.n} held-out cases ${needUp} must improve with none worse. More cases would settle it.`, numbers);
  }
  const nNeeded = casesNeededToPromote(needUp, evidence.splitRatio ?? DEFAULT_HOLDOUT_RATIO);
  const add = Math.max(1, nNeeded - evidence.scorable);
  const reason = `${lead} with ${holdout.n} held-out cases even all improving cannot reach p ≤ ${formatP(policy.maxHoldoutP)}. Add ${plural(add, 'case', 'cases')}: with ${nNeeded} in total, ${needUp} are held out.`;
  return stagedUnproven('weak_holdout', reason, numbers, { needed: { cases: add } });
}

/** Branches 7–15: dev and holdout were measured. */
function measured(evidence: Evidence, policy: PolicyThresholds, numbers: Numbers): Verdict {
  const { dev, holdout, pooled } = evidence;
  if (dev.gainSign < 0) {
    return rejected('dev_harm', `Rejected: worse than no skill on the development cases (mean ${signedMean(dev)}, \u2191${dev.up} \u2193${dev.down}).`, numbers);
  }
  if (dev.gainSign === 0) {
    const floor = evidence.devAllFailBoth ? ' Every check failed in both arms — if the skill is right, the checks may be wrong.' : '';
    const reason = `Rejected: no gain on the development cases (mean ${signedMean(dev)}, ${counts(dev)}). The skill did not change what the checks look for.${floor}`;
    return rejected('no_dev_gain', reason, numbers);
  }
  if (holdout.n === 0) {
    const why = evidence.planned.holdout === 0 ? 'no case was held out to confirm it. Add cases.' : 'no held-out case could be measured.';
    return stagedUnproven('thin_holdout', `Staged: dev improved (${signedMean(dev)}) but ${why}`, numbers);
  }
  if (holdout.gainSign < 0 || holdout.down > holdout.up) {
    const reason = `Rejected: worse on held-out cases (mean ${signedMean(holdout)}, \u2191${holdout.up} \u2193${holdout.down}): it fits the cases it was written from, not new ones.`;
    return rejected('holdout_regressed', reason, numbers);
  }
  if (holdout.headroom === 0 && holdout.down === 0) {
    const reason = 'Staged: dev improved, but the held-out cases already pass without the skill, so they cannot confirm it. Add harder cases.';
    return stagedUnproven('holdout_ceiling', reason, numbers);
  }
  if (holdout.gainSign > 0 && holdout.up > holdout.down) {
    if (holdout.n < policy.minHoldout) return thinHoldout(evidence, policy, numbers);
    if (!signTestWithin(holdout.up, holdout.down, policy.maxHoldoutP)) return weakHoldout(evidence, policy, numbers);
    if (!signTestWithin(pooled.up, pooled.down, policy.maxPooledP)) {
      const reason = `Staged: the gain is too thin overall (all cases \u2191${pooled.up} \u2193${pooled.down}, p = ${formatP(pooled.p)}; need ≤ ${formatP(policy.maxPooledP)}). Each additional improved case halves p.`;
      return stagedUnproven('weak_overall', reason, numbers);
    }
    const independent = evidence.independentHoldout ?? 0;
    if (independent < (policy.minIndependentHoldout ?? 0)) {
      const need = plural(policy.minIndependentHoldout ?? 0, 'held-out case', 'held-out cases');
      const reason = `Staged: held-out cases improved (${counts(holdout)}), but this evidence policy needs ${need} from your own later chats (${independent} measured). Add one from Cases from your chats.`;
      return stagedUnproven('thin_holdout', reason, numbers);
    }
    const moves = evidence.independentMoves;
    if (independent > 0 && moves && moves.up <= moves.down) {
      const reason = `Staged: held-out cases improved (${counts(holdout)}), but the ${plural(independent, 'held-out case', 'held-out cases')} from your own later chats did not improve (\u2191${moves.up} \u2193${moves.down}): the skill may fit the cases it was written from. Unproven, not rejected: you can approve it.`;
      return stagedUnproven('dev_only', reason, numbers);
    }
    const reason = `Promoted: held-out cases improved (${counts(holdout)}, mean ${signedMean(holdout)}, p = ${formatP(holdout.p)}); development cases ${signedMean(dev)} (\u2191${dev.up} \u2193${dev.down}).`;
    return promoted(reason, numbers);
  }
  const gap = dev.meanGain - holdout.meanGain;
  const gapNote = gap > 0.25 ? `; the gap (${gap.toFixed(2)}) suggests the skill fits the cases it was written from` : '';
  const reason = `Staged: development cases improved (${signedMean(dev)}) but held-out cases did not (${counts(holdout)}, mean ${signedMean(holdout)})${gapNote}. Unproven, not rejected: you can approve it.`;
  return stagedUnproven('dev_only', reason, numbers);
}

export function decide(evidence: Evidence, policy: PolicyThresholds): Verdict {
  const numbers: Numbers = {
    dev: evidence.dev,
    holdout: evidence.holdout,
    pooled: evidence.pooled,
    pHoldout: evidence.holdout.p,
    pPooled: evidence.pooled.p,
  };
  return notMeasured(evidence, policy, numbers) ?? measured(evidence, policy, numbers);
}
