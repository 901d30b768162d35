/**
 * The import review at scale (docs/skill-tools.md): what each skill in a plan will do under
 * the user's current choices, the dialog's filters and search, bulk choices and the counts
 * shown before and after Import. Pure functions over a plan and its choices; the verdict
 * rules themselves stay in the core (`choiceAllows`, `decisionFor`) and are only called here,
 * so no bulk action here can import a skill the core would refuse.
 */
import { CANCELLED_REASON, choiceAllows, type CollisionChoice, type ImportCandidate, type ImportChoice, type ImportOutcome, type ImportPlan } from '../../skills/zipImport';
import type { Verdict } from '../../skills/scanner';

export type ImportChoices = Record<string, ImportChoice>;

/**
 * What Import would do with a skill now: write it, skip it, or wait for the user, who ticked
 * it but has not yet confirmed (caution) or overridden (dangerous) its verdict.
 */
export type PlannedStatus = 'import' | 'skip' | 'decide';

export type ReviewFilter = 'all' | 'decide' | 'import' | 'collides' | 'blocked';

export const REVIEW_FILTERS: ReadonlyArray<{ value: ReviewFilter; label: string }> = [
  { value: 'all', label: 'All' },
  { value: 'decide', label: 'Needs a decision' },
  { value: 'import', label: 'Will import' },
  { value: 'collides', label: 'Collides' },
  { value: 'blocked', label: 'Blocked' },
];

/** How many rows the dialog renders at once; "Show more" adds this many again. */
export const REVIEW_PAGE_SIZE = 100;

/**
 * The ticks a fresh review starts with: safe skills and caution ones are ticked (caution then
 * waits for its confirmation, so it shows under "Needs a decision"); a dangerous one is not,
 * so importing it is always a deliberate act. A collision starts as "skip".
 */
export function initialChoices(plan: ImportPlan): ImportChoices {
  return Object.fromEntries(
    plan.skills.map((skill) => [skill.id, { include: skill.decision !== 'override', ...(skill.collides ? { collision: 'skip' as const } : {}) }]),
  );
}

export function plannedStatus(skill: ImportCandidate, choice: ImportChoice | undefined): PlannedStatus {
  if (choiceAllows(skill, choice) === null) return skill.collides && (choice?.collision ?? 'skip') === 'skip' ? 'skip' : 'import';
  return choice?.include ? 'decide' : 'skip';
}

/** Why a skill will not be imported under these choices, or null when it will be. */
export function skipReason(skill: ImportCandidate, choice: ImportChoice | undefined): string | null {
  const refusal = choiceAllows(skill, choice);
  if (refusal) return refusal;
  if (skill.collides && (choice?.collision ?? 'skip') === 'skip') return `a skill named '${skill.name}' exists and the choice was to skip it`;
  return null;
}

/** Skills whose verdict the core blocks unless the user overrides it, one by one. */
const isBlocked = (skill: ImportCandidate): boolean => skill.decision === 'override';

export function matchesFilter(skill: ImportCandidate, choice: ImportChoice | undefined, filter: ReviewFilter): boolean {
  switch (filter) {
    case 'all':
      return true;
    case 'decide':
      return plannedStatus(skill, choice) === 'decide';
    case 'import':
      return plannedStatus(skill, choice) === 'import';
    case 'collides':
      return skill.collides;
    case 'blocked':
      return isBlocked(skill);
  }
}

/** Case-insensitive match on the name, the archive folder and the description. */
export function matchesSearch(skill: ImportCandidate, query: string): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  return [skill.name, skill.archiveFolder, skill.description].some((text) => text.toLowerCase().includes(needle));
}

export function visibleSkills(plan: ImportPlan, choices: ImportChoices, filter: ReviewFilter, query: string): ImportCandidate[] {
  return plan.skills.filter((skill) => matchesFilter(skill, choices[skill.id], filter) && matchesSearch(skill, query));
}

export function filterCounts(plan: ImportPlan, choices: ImportChoices): Record<ReviewFilter, number> {
  const counts: Record<ReviewFilter, number> = { all: 0, decide: 0, import: 0, collides: 0, blocked: 0 };
  for (const skill of plan.skills) {
    for (const { value } of REVIEW_FILTERS) if (matchesFilter(skill, choices[skill.id], value)) counts[value] += 1;
  }
  return counts;
}

export interface ReviewSummary {
  willImport: number;
  skipped: number;
  needDecision: number;
}

export function reviewSummary(plan: ImportPlan, choices: ImportChoices): ReviewSummary {
  const summary: ReviewSummary = { willImport: 0, skipped: 0, needDecision: 0 };
  for (const skill of plan.skills) {
    const status = plannedStatus(skill, choices[skill.id]);
    if (status === 'import') summary.willImport += 1;
    else if (status === 'decide') summary.needDecision += 1;
    else summary.skipped += 1;
  }
  return summary;
}

/** "312 will be imported, 40 skipped, 12 need a decision". */
export function describeSummary(summary: ReviewSummary): string {
  const parts = [`${summary.willImport} will be imported`, `${summary.skipped} skipped`];
  if (summary.needDecision > 0) parts.push(`${summary.needDecision} need${summary.needDecision === 1 ? 's' : ''} a decision`);
  return parts.join(', ');
}

/** Verdicts that a bulk confirmation may cover, with how many ticked skills still wait for it. */
export function confirmableVerdicts(plan: ImportPlan, choices: ImportChoices): Array<{ verdict: Verdict; count: number }> {
  const counts = new Map<Verdict, number>();
  for (const skill of plan.skills) {
    const choice = choices[skill.id];
    if (skill.decision === 'confirm' && choice?.include && !choice.confirmed) counts.set(skill.scan.verdict, (counts.get(skill.scan.verdict) ?? 0) + 1);
  }
  return [...counts].map(([verdict, count]) => ({ verdict, count }));
}

/**
 * Confirms every ticked skill of `verdict` whose verdict asks for a confirmation. A verdict
 * that asks for an override (dangerous) is never touched: that stays one skill at a time,
 * with its findings in view.
 */
export function confirmAllOfVerdict(plan: ImportPlan, choices: ImportChoices, verdict: Verdict): ImportChoices {
  const next = { ...choices };
  for (const skill of plan.skills) {
    const choice = next[skill.id];
    if (skill.decision === 'confirm' && skill.scan.verdict === verdict && choice?.include) next[skill.id] = { ...choice, confirmed: true };
  }
  return next;
}

export function collisionForAll(plan: ImportPlan, choices: ImportChoices, collision: CollisionChoice): ImportChoices {
  const next = { ...choices };
  for (const skill of plan.skills) if (skill.collides) next[skill.id] = { ...(next[skill.id] ?? { include: false }), collision };
  return next;
}

/** Ticks or unticks the given skills (the ones the filter and search show). */
export function includeAll(skills: readonly ImportCandidate[], choices: ImportChoices, include: boolean): ImportChoices {
  const next = { ...choices };
  for (const skill of skills) next[skill.id] = { ...(next[skill.id] ?? { include: false }), include };
  return next;
}

/** The plan narrowed to the skills Import will write, so progress counts only real work. */
export function chosenPlan(plan: ImportPlan, choices: ImportChoices): ImportPlan {
  return { ...plan, skills: plan.skills.filter((skill) => plannedStatus(skill, choices[skill.id]) === 'import') };
}

export interface ImportResult {
  archiveName: string;
  imported: Array<{ name: string; replaced: boolean }>;
  /** Skills not written, each with why: not chosen, refused by the archive check, taken name. */
  skipped: Array<{ name: string; reason: string }>;
  /** Chosen skills the cancel stopped before they were reached. */
  cancelled: string[];
}

/**
 * The result of an import, from the plan, the choices and what the core did with the chosen
 * skills: every skill of the archive lands in exactly one list, and skills the user did not
 * choose keep their own reason rather than "cancelled".
 */
export function importResult(plan: ImportPlan, choices: ImportChoices, outcomes: readonly ImportOutcome[]): ImportResult {
  const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
  const result: ImportResult = { archiveName: plan.archiveName, imported: [], skipped: [], cancelled: [] };
  for (const skill of plan.skills) {
    const outcome = byId.get(skill.id);
    if (outcome?.status === 'imported') result.imported.push({ name: outcome.name, replaced: outcome.replaced });
    else if (outcome?.reason === CANCELLED_REASON) result.cancelled.push(skill.name);
    else if (outcome) result.skipped.push({ name: skill.name, reason: outcome.reason });
    else result.skipped.push({ name: skill.name, reason: skipReason(skill, choices[skill.id]) ?? 'not reached' });
  }
  for (const refused of plan.refusedSkills) {
    result.skipped.push({ name: refused.archiveFolder || '(archive root)', reason: refused.reason });
  }
  return result;
}

/** "Imported 12, skipped 3, cancelled 285." */
export function describeResult(result: ImportResult): string {
  const parts = [`Imported ${result.imported.length}`, `skipped ${result.skipped.length}`];
  if (result.cancelled.length > 0) parts.push(`cancelled ${result.cancelled.length}`);
  return `${parts.join(', ')}.`;
}
