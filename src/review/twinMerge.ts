/**
 * Merging two twin skills on evidence (docs/learning-loop.md, "Possible duplicates"): the review model
 * writes one skill from both; the gate replays the merged skill on the union of both skills'
 * cases and each original on its own; the merge is offered only when the merged skill passes at
 * least as many checks as each original on that original's cases. Nothing is written here: the
 * merged skill lives in memory (the gate reads its files through `readSkillFile`) until the user
 * applies the offer. Plain TypeScript, run by the review worker.
 */
import type { ChatMessage, ChatProvider } from '../providers/provider';
import { readSkillMeta } from '../skills/skillDocument';
import { validateCreateDescription, validateFrontmatter, validateName } from '../skills/validation';
import { parseEvalsFile, serializeEvalsFile } from '../gate/evalCases';
import type { EvalCase, VerdictRecord } from '../gate/types';

export const TWIN_MERGE_SYSTEM_V1 = [
  'You merge two skills (SKILL.md files) that do the same job into one skill that does everything both do.',
  'Keep every step, rule, command and example either skill needs; drop only what is said twice. Keep it no longer than the longer of the two.',
  'Give it a new lowercase hyphenated name that fits both (not either old name), and a description of at most 60 characters that says when to use it.',
  'Reply with the complete SKILL.md only, starting with the --- frontmatter line (name and description).',
].join(' ');
export const TWIN_MERGE_MAX_TOKENS = 1_500;

export interface TwinSkill {
  name: string;
  markdown: string;
  /** evals/evals.json as stored; null when the skill has none. */
  evals: string | null;
}

export interface TwinMergeJob {
  runId: string;
  a: string;
  b: string;
}

/** Checks passed by the skill arm on one skill's own cases: the original, and the merged skill. */
export interface OwnCaseScore {
  skill: string;
  cases: number;
  checks: number;
  original: number;
  merged: number;
}

export type TwinMergeOutcome =
  | { kind: 'offered'; name: string; markdown: string; evals: string; scores: OwnCaseScore[]; requests: number }
  | { kind: 'refused'; reason: string; scores?: OwnCaseScore[]; requests: number };

export function twinMergeMessages(a: TwinSkill, b: TwinSkill): ChatMessage[] {
  const user = [`Skill 1 (${a.name}):`, '--- SKILL.md ---', a.markdown, '--- end ---', `Skill 2 (${b.name}):`, '--- SKILL.md ---', b.markdown, '--- end ---', 'The merged SKILL.md:'].join('\n');
  return [
    { role: 'system', content: TWIN_MERGE_SYSTEM_V1 },
    { role: 'user', content: user },
  ];
}

/** The SKILL.md in the answer (fenced or bare, from its first frontmatter line), or why there is none. */
export function mergedSkillOf(answer: string, taken: readonly string[]): { markdown: string; name: string } | { error: string } {
  const text = answer.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const fenced = /```(?:markdown|md)?\s*\n(---[\s\S]*?)```/i.exec(text)?.[1];
  const start = text.indexOf('---');
  const markdown = (fenced ?? (start === -1 ? '' : text.slice(start))).trim() + '\n';
  // The checks a new skill meets when it is created (skill_manage create), before any gate request is spent.
  const problem = validateFrontmatter(markdown) ?? validateCreateDescription(markdown);
  if (problem) return { error: `the merged SKILL.md is not valid: ${problem}` };
  const name = readSkillMeta(markdown).name ?? '';
  const badName = validateName(name);
  if (badName) return { error: `the merged skill's name is not valid: ${badName}` };
  if (taken.includes(name)) return { error: `the merged skill's name "${name}" is already taken` };
  return { markdown, name };
}

/** Both skills' cases in one file, ids prefixed by the skill they came from so each stays traceable. */
export function unionCases(a: TwinSkill, b: TwinSkill, mergedName: string): { evals: string; owners: Map<string, string> } | { error: string } {
  const owners = new Map<string, string>();
  const cases: EvalCase[] = [];
  for (const skill of [a, b]) {
    if (skill.evals === null) return { error: `${skill.name} has no cases, so a merge cannot be proven` };
    const parsed = parseEvalsFile(skill.evals);
    if (!parsed.ok || parsed.file.evals.length === 0) return { error: `${skill.name} has no readable cases, so a merge cannot be proven` };
    for (const item of parsed.file.evals) {
      if (item.files && item.files.length > 0) return { error: `${skill.name} has a case that reads supporting files; merges of such cases are not supported yet` };
      const id = `${skill.name}:${String(item.id)}`;
      owners.set(id, skill.name);
      cases.push({ ...item, id });
    }
  }
  return { evals: serializeEvalsFile({ skill_name: mergedName, evals: cases }), owners };
}

/** Checks the skill arm passed, per case id, in a verdict. */
function passedById(record: VerdictRecord): Map<string, { passed: number; checks: number }> {
  return new Map(record.cases.map((result) => [String(result.id), { passed: result.skill.passed, checks: result.checks }]));
}

/**
 * Each original's own cases: what the original passed, and what the merged skill passed on the
 * same cases. A case either run did not score counts for neither side.
 */
export function ownCaseScores(merged: VerdictRecord, originals: readonly { name: string; record: VerdictRecord }[]): OwnCaseScore[] {
  const mergedPassed = passedById(merged);
  return originals.map(({ name, record }) => {
    const score: OwnCaseScore = { skill: name, cases: 0, checks: 0, original: 0, merged: 0 };
    for (const [id, own] of passedById(record)) {
      const inMerged = mergedPassed.get(`${name}:${id}`);
      if (!inMerged) continue;
      score.cases++;
      score.checks += own.checks;
      score.original += own.passed;
      score.merged += inMerged.passed;
    }
    return score;
  });
}

/** Offered only when every original was measured and the merged skill is at least as good on each one's cases. */
export function mergeIsOffered(scores: readonly OwnCaseScore[]): { offered: boolean; reason: string } {
  const unmeasured = scores.find((score) => score.cases === 0);
  if (unmeasured) return { offered: false, reason: `no case of ${unmeasured.skill} was scored in both runs` };
  const worse = scores.find((score) => score.merged < score.original);
  if (worse) return { offered: false, reason: `the merged skill passes ${worse.merged} of ${worse.checks} checks on ${worse.skill}'s cases, where ${worse.skill} passes ${worse.original}` };
  return { offered: true, reason: 'the merged skill is at least as good as each original on its own cases' };
}

export interface TwinMergeDeps {
  read(skill: string): Promise<TwinSkill | null>;
  /** Names already in the library (the merged skill needs a new one). */
  names(): string[];
  provider: ChatProvider;
  fits: (messages: ChatMessage[], maxTokens: number) => string | null;
  /**
   * A gate run of `skill` whose files are read through `files` (the merged skill's are in memory);
   * the record, or why there is none.
   */
  verify(skill: string, files: ((path: string) => Promise<string | Uint8Array | null>) | null): Promise<{ record: VerdictRecord; requests: number } | { error: string }>;
  signal?: AbortSignal;
}

/** The whole merge: the review model writes, the gate measures all three, the rule decides. */
export async function mergeTwins(deps: TwinMergeDeps, job: Pick<TwinMergeJob, 'a' | 'b'>): Promise<TwinMergeOutcome> {
  const [a, b] = await Promise.all([deps.read(job.a), deps.read(job.b)]);
  if (!a || !b) return { kind: 'refused', reason: `${!a ? job.a : job.b} no longer exists`, requests: 0 };
  const messages = twinMergeMessages(a, b);
  const tooLong = deps.fits(messages, TWIN_MERGE_MAX_TOKENS);
  if (tooLong) return { kind: 'refused', reason: tooLong, requests: 0 };
  let answer = '';
  try {
    const stream = deps.provider.stream({ messages, maxTokens: TWIN_MERGE_MAX_TOKENS, temperature: 0, signal: deps.signal });
    for await (const part of stream) if (part.type === 'text-delta') answer += part.text;
  } catch (error) {
    return { kind: 'refused', reason: error instanceof Error ? error.message : String(error), requests: 1 };
  }
  let requests = 1;
  const merged = mergedSkillOf(answer, deps.names());
  if ('error' in merged) return { kind: 'refused', reason: merged.error, requests };
  const union = unionCases(a, b, merged.name);
  if ('error' in union) return { kind: 'refused', reason: union.error, requests };
  const mergedFiles = async (path: string) => (path === 'SKILL.md' ? merged.markdown : path === 'evals/evals.json' ? union.evals : null);
  const runs = [];
  for (const [skill, files] of [
    [merged.name, mergedFiles],
    [a.name, null],
    [b.name, null],
  ] as const) {
    const run = await deps.verify(skill, files);
    if ('error' in run) return { kind: 'refused', reason: `the gate could not measure ${skill}: ${run.error}`, requests };
    requests += run.requests;
    runs.push(run.record);
  }
  const scores = ownCaseScores(runs[0]!, [
    { name: a.name, record: runs[1]! },
    { name: b.name, record: runs[2]! },
  ]);
  const decision = mergeIsOffered(scores);
  if (!decision.offered) return { kind: 'refused', reason: decision.reason, scores, requests };
  return { kind: 'offered', name: merged.name, markdown: merged.markdown, evals: union.evals, scores, requests };
}
