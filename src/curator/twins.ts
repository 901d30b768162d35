/**
 * Twins: pairs of skills that do the same thing under different names (docs/learning-loop.md, "Possible
 * duplicates"). Learning adds them and registries add more, and a small model's index cannot
 * afford both.
 *
 * Candidates come from MiniSearch (the full-text index session search already uses): each skill's
 * own words are looked up in an index of all skills, so a library of thousands costs one query
 * per skill instead of comparing every pair. The difflib ratio in skills/textSimilarity.ts is not
 * used here: it compares character sequences, quadratic in the text length, and two skills that
 * say the same thing in another order score low on it. The overlap shown is then counted on
 * words, per part: description, body and case prompts. Plain TypeScript, no DOM.
 */
import MiniSearch from 'minisearch';

export interface TwinInput {
  name: string;
  description: string;
  /** SKILL.md without its frontmatter. */
  body: string;
  /** The prompts of the skill's cases (evals/evals.json); empty when it has none. */
  casePrompts: string[];
}

/** Word overlap of one part, 0–1 (shared words over the smaller side's words). */
export interface TwinOverlap {
  description: number;
  body: number;
  /** Null when either skill has no cases. */
  cases: number | null;
  /** The weighted mean the pair is ranked by. */
  score: number;
}

export interface TwinPair {
  /** The two names, in alphabetical order. */
  a: string;
  b: string;
  overlap: TwinOverlap;
}

/** A pair at or above this score is listed. */
export const TWIN_THRESHOLD = 0.6;
/** How many neighbours of each skill are scored. */
const CANDIDATES_PER_SKILL = 5;
const WEIGHTS = { description: 0.3, body: 0.5, cases: 0.2 } as const;

const STOP = new Set(
  'the and for with that this from into your you are was were will when what which have has had not but use uses using step steps then them they their there here over more most than also each such only just like can may must should would could about after before while where how why who its it’s our out all any one two'.split(
    ' ',
  ),
);

/** Distinct words of three letters or more, lower case, without common words. */
export function wordsOf(text: string): Set<string> {
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 3 && !STOP.has(word)),
  );
}

/** Shared words over the smaller set's size: a short skill wholly inside a long one is a twin. */
export function overlapOf(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / small.size;
}

interface Prepared {
  description: Set<string>;
  body: Set<string>;
  cases: Set<string>;
}

function prepare(input: TwinInput): Prepared {
  return { description: wordsOf(input.description), body: wordsOf(input.body), cases: wordsOf(input.casePrompts.join(' ')) };
}

export function pairOverlap(a: Prepared, b: Prepared): TwinOverlap {
  const description = overlapOf(a.description, b.description);
  const body = overlapOf(a.body, b.body);
  const cases = a.cases.size > 0 && b.cases.size > 0 ? overlapOf(a.cases, b.cases) : null;
  const score =
    cases === null
      ? (description * WEIGHTS.description + body * WEIGHTS.body) / (WEIGHTS.description + WEIGHTS.body)
      : description * WEIGHTS.description + body * WEIGHTS.body + cases * WEIGHTS.cases;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { description: round(description), body: round(body), cases: cases === null ? null : round(cases), score: round(score) };
}

/** The pairs of skills that overlap strongly, best first. */
export function findTwins(skills: readonly TwinInput[], threshold = TWIN_THRESHOLD): TwinPair[] {
  if (skills.length < 2) return [];
  const index = new MiniSearch<{ id: number; description: string; body: string; cases: string }>({ fields: ['description', 'body', 'cases'] });
  index.addAll(skills.map((skill, id) => ({ id, description: skill.description, body: skill.body, cases: skill.casePrompts.join('\n') })));
  const prepared = skills.map(prepare);
  const seen = new Set<string>();
  const pairs: TwinPair[] = [];
  skills.forEach((skill, i) => {
    const query = [...prepared[i]!.description, ...prepared[i]!.body].slice(0, 200).join(' ');
    if (!query) return;
    const neighbours = index
      .search(query, { combineWith: 'OR', boost: { description: 2 } })
      .filter((hit) => hit.id !== i)
      .slice(0, CANDIDATES_PER_SKILL);
    for (const hit of neighbours) {
      const j = hit.id as number;
      const [a, b] = skill.name < skills[j]!.name ? [skill.name, skills[j]!.name] : [skills[j]!.name, skill.name];
      const key = `${a}\u0000${b}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const overlap = pairOverlap(prepared[i]!, prepared[j]!);
      if (overlap.score >= threshold) pairs.push({ a, b, overlap });
    }
  });
  return pairs.sort((x, y) => y.overlap.score - x.overlap.score || x.a.localeCompare(y.a));
}
