import { canonicalJson } from './canonicalJson';
import { midP, probHelpsMoreOften, signTestOneSided } from './signTest';
import type {
  ArmResult,
  CaseOutcomeKind,
  CaseResult,
  Check,
  CheckDiagnostic,
  CheckDiagnosticKind,
  Evidence,
  ExcludedCase,
  SideSummary,
  Split,
} from './types';

/**
 * From replayed cases to the figures the verdict reads (docs/gate.md, "Scoring"). Everything is
 * decided on integer pass counts: improved ⇔ s > b, regressed ⇔ s < b, tie ⇔ s = b. A pair that
 * could not be measured is left out, never scored as 0.
 */

/** Case flag: in strict mode the baseline disagreed with its own second replay; counts as a tie. */
export const UNSTABLE_BASELINE_FLAG = 'unstable_baseline';
/** Case flags that make the case unscorable for this run (e.g. a regex watchdog timeout). */
export const UNSCORABLE_FLAGS: readonly string[] = ['regex_timeout', 'too_long_for_model'];

type CaseArms = Pick<CaseResult, 'checks' | 'base' | 'skill' | 'flags'>;

/** Did this arm produce something to score? `other` is the opposite arm of the same case. */
function armScored(arm: ArmResult, other: ArmResult, isSkillArm: boolean): boolean {
  switch (arm.status) {
    case 'ok':
      return true;
    case 'empty':
      // An empty answer is scored as observed only when the other arm answered.
      return other.status === 'ok';
    case 'too-long':
      // The skill does not fit this model: a real harm, scored as given (0). A baseline that
      // does not fit says nothing about the skill.
      return isSkillArm;
    default:
      return false;
  }
}

export function isMeasured(result: CaseArms): boolean {
  if (result.checks < 1) return false;
  if (result.flags.some((flag) => UNSCORABLE_FLAGS.includes(flag))) return false;
  return armScored(result.base, result.skill, false) && armScored(result.skill, result.base, true);
}

/** Checks an arm passed; a with-skill arm that did not fit the model passes none. */
const passedOf = (arm: ArmResult) => (arm.status === 'too-long' ? 0 : arm.passed);

/** The outcome of one case; replay code stores this, and every summary recomputes it. */
export function caseOutcome(result: CaseArms): CaseOutcomeKind {
  if (!isMeasured(result)) return 'unmeasured';
  if (result.flags.includes(UNSTABLE_BASELINE_FLAG)) return 'tie';
  const b = passedOf(result.base);
  const s = passedOf(result.skill);
  return s > b ? 'up' : s < b ? 'down' : 'tie';
}

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** Sign of Σ (s − b)/k on integers: scale every gain to the least common multiple of the k. */
function exactGainSign(cases: { k: number; b: number; s: number }[]): -1 | 0 | 1 {
  const sign = (x: number | bigint) => (x > 0 ? 1 : x < 0 ? -1 : 0);
  // Usual case: every case has the same number of checks, so the sum of s − b decides.
  if (cases.every((c) => c.k === cases[0].k)) return sign(cases.reduce((sum, c) => sum + c.s - c.b, 0));
  let lcm = 1n;
  for (const { k } of cases) lcm = (lcm / gcd(lcm, BigInt(k))) * BigInt(k);
  let numerator = 0n;
  for (const { k, b, s } of cases) numerator += (BigInt(s - b) * lcm) / BigInt(k);
  return sign(numerator);
}

/** The statistics of one side, from its measured cases (unmeasured ones are ignored). */
export function summarizeSide(results: CaseArms[]): SideSummary {
  const measured = results.filter(isMeasured);
  const n = measured.length;
  let up = 0;
  let down = 0;
  let tie = 0;
  let headroom = 0;
  let sumBase = 0;
  let sumSkill = 0;
  const counts: { k: number; b: number; s: number }[] = [];
  for (const result of measured) {
    const k = result.checks;
    const b = passedOf(result.base);
    const s = passedOf(result.skill);
    const outcome = caseOutcome(result);
    if (outcome === 'up') up++;
    else if (outcome === 'down') down++;
    else tie++;
    if (b < k) headroom++;
    sumBase += b / k;
    sumSkill += s / k;
    // An unstable baseline counts as a tie in the gain as well as in the counts.
    counts.push(outcome === 'tie' ? { k, b: 0, s: 0 } : { k, b, s });
  }
  const meanGain = n === 0 ? 0 : counts.reduce((sum, c) => sum + (c.s - c.b) / c.k, 0) / n;
  return {
    n,
    up,
    down,
    tie,
    headroom,
    meanBaseline: n === 0 ? 0 : sumBase / n,
    meanSkill: n === 0 ? 0 : sumSkill / n,
    meanGain,
    gainSign: exactGainSign(counts),
    p: signTestOneSided(up, down),
    midP: midP(up, down),
    probHelps: probHelpsMoreOften(up, down),
    resolution: n === 0 ? 0 : 1 / n,
  };
}

export interface RunSummary {
  dev: SideSummary;
  holdout: SideSummary;
  pooled: SideSummary;
}

export function summarizeRun(results: CaseResult[]): RunSummary {
  return {
    dev: summarizeSide(results.filter((result) => result.side === 'dev')),
    holdout: summarizeSide(results.filter((result) => result.side === 'holdout')),
    pooled: summarizeSide(results),
  };
}

/** How identical checks on different cases are recognised as one check. */
export const checkKey = (check: Check): string => canonicalJson({ type: check.type, value: check.value, flags: check.flags });

const DIAGNOSTIC_TEXT: Record<CheckDiagnosticKind, string> = {
  non_discriminating: 'passes in both arms on every case — does not discriminate',
  broken: 'fails in both arms on every case — broken or too hard',
  helps_here: 'passes only with the skill — this is where it helps',
  hurts_here: 'passes only without the skill — the skill hurts here',
  flaky: 'changed between identical replays — flaky',
};

function classify(cases: number, basePasses: number, skillPasses: number): CheckDiagnosticKind | null {
  if (basePasses === cases && skillPasses === cases) return 'non_discriminating';
  if (basePasses === 0 && skillPasses === 0) return 'broken';
  if (basePasses === 0) return 'helps_here';
  if (skillPasses === 0) return 'hurts_here';
  return null;
}

/**
 * Per-check diagnostics over the measured cases. `checksOf` gives a case's checks (in the order
 * `checkPass` follows); `flaky` holds `checkKey`s that changed between identical replays (noise
 * probe or strict mode's second baseline). Checks in first-seen order.
 */
export function checkDiagnostics(
  results: CaseResult[],
  checksOf: (id: string | number) => Check[] | undefined,
  flaky: ReadonlySet<string> = new Set(),
): CheckDiagnostic[] {
  const byKey = new Map<string, CheckDiagnostic>();
  for (const result of results.filter(isMeasured)) {
    const checks = checksOf(result.id) ?? [];
    checks.forEach((check, j) => {
      const key = checkKey(check);
      let entry = byKey.get(key);
      if (!entry) {
        entry = { check, key, caseIds: [], basePasses: 0, skillPasses: 0, diagnostics: [] };
        byKey.set(key, entry);
      }
      entry.caseIds.push(result.id);
      // A with-skill arm that did not fit the model has no per-check results: every check failed.
      if (result.base.checkPass[j] === true) entry.basePasses++;
      if (result.skill.checkPass[j] === true) entry.skillPasses++;
    });
  }
  for (const entry of byKey.values()) {
    const kind = classify(entry.caseIds.length, entry.basePasses, entry.skillPasses);
    if (kind) entry.diagnostics.push({ kind, text: DIAGNOSTIC_TEXT[kind] });
    if (flaky.has(entry.key)) entry.diagnostics.push({ kind: 'flaky', text: DIAGNOSTIC_TEXT.flaky });
  }
  return [...byKey.values()];
}

/** What a finished (or stopped) run knows, from which `buildEvidence` derives what decide() reads. */
export interface RunFacts {
  hasCasesFile: boolean;
  casesError?: string;
  /** The run's split; absent when there is no valid cases file. */
  split?: Split;
  /** Cases excluded while reading the file (no checks, invalid regex, missing file…). */
  parseExcluded?: ExcludedCase[];
  /** One entry per pair replayed, in the order run. */
  results: CaseResult[];
  budget?: Evidence['budget'];
  breaker?: boolean;
  /** First transport error of the run; taken from the unmeasured results when absent. */
  firstError?: string;
  providerLabel: string;
  splitRatio?: number;
}

export function buildEvidence(facts: RunFacts): Evidence {
  const { split, results } = facts;
  const unmeasured = results.filter((result) => !isMeasured(result));
  const devMeasured = results.filter((result) => result.side === 'dev' && isMeasured(result));
  const firstError =
    facts.firstError ?? unmeasured.map((result) => result.base.error ?? result.skill.error).find((error) => error !== undefined);
  return {
    hasCasesFile: facts.hasCasesFile,
    casesError: facts.casesError,
    scorable: split ? split.dev.length + split.holdout.length + (split.notRun?.length ?? 0) : 0,
    excluded: [...(facts.parseExcluded ?? []), ...(split?.excluded ?? [])],
    planned: { dev: split?.dev.length ?? 0, holdout: split?.holdout.length ?? 0 },
    budget: facts.budget,
    breaker: facts.breaker,
    unmeasured: unmeasured.length,
    firstError,
    providerLabel: facts.providerLabel,
    ...summarizeRun(results),
    devAllFailBoth: devMeasured.length > 0 && devMeasured.every((result) => passedOf(result.base) === 0 && passedOf(result.skill) === 0),
    splitRatio: facts.splitRatio,
    ...independentHeldOut(split, results),
  };
}

/** Measured held-out cases that came from the user's later chats, and how they moved (docs/gate.md, "Independent cases"). */
function independentHeldOut(split: Split | undefined, results: CaseResult[]): Pick<Evidence, 'independentHoldout' | 'independentMoves'> {
  const independent = new Set((split?.holdout ?? []).filter((testCase) => testCase.independent).map((testCase) => String(testCase.id)));
  const measured = results.filter((result) => result.side === 'holdout' && independent.has(String(result.id)) && isMeasured(result));
  return {
    independentHoldout: measured.length,
    independentMoves: { up: measured.filter((result) => caseOutcome(result) === 'up').length, down: measured.filter((result) => caseOutcome(result) === 'down').length },
  };
}
