/**
 * Twins: pairs of skills that do the same thing under different names (docs/learning-loop.md, "Possible
 * duplicates"). Learning adds them and registries add more, and a small model's index cannot
 * afford both.
 *
 * Candidates come from the words that tell skills apart: each skill's rarest words (in at most 5 %
 * of the library) are looked up in an inverted index of all skills, and the skills that share the
 * most of them are scored. A library of thousands therefore costs a few postings per skill
 * instead of comparing every pair, and words every skill uses (a library written in one house
 * style) find nothing. The difflib ratio in skills/textSimilarity.ts is not used here: it compares
 * character sequences, quadratic in the text length, and two skills that say the same thing in
 * another order score low on it. The overlap shown is then counted on words, per part:
 * description, body and case prompts. Plain TypeScript, no DOM.
 */

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
/** A word in more of the library than this share (and than COMMON_FLOOR skills) does not find neighbours. */
const COMMON_SHARE = 0.05;
const COMMON_FLOOR = 8;
/** A skill's neighbours are looked up by this many of its rarest words. */
const QUERY_WORDS = 48;
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

/**
 * For each skill, the skills sharing the most of its rarest words (each weighted by how rare it
 * is), best first: the candidates worth scoring.
 */
function neighbours(prepared: readonly Prepared[]): number[][] {
  const words = prepared.map((p) => new Set([...p.description, ...p.body, ...p.cases]));
  const postings = new Map<string, number[]>();
  words.forEach((set, i) => {
    for (const word of set) {
      const list = postings.get(word);
      if (list) list.push(i);
      else postings.set(word, [i]);
    }
  });
  const common = Math.max(COMMON_FLOOR, Math.ceil(prepared.length * COMMON_SHARE));
  return words.map((set, i) => {
    const rarest: number[][] = [];
    for (const word of set) {
      const list = postings.get(word)!;
      if (list.length >= 2 && list.length <= common) rarest.push(list);
    }
    rarest.sort((a, b) => a.length - b.length);
    const shared = new Map<number, number>();
    for (const list of rarest.slice(0, QUERY_WORDS)) {
      const weight = Math.log(prepared.length / list.length) + 1;
      for (const j of list) if (j !== i) shared.set(j, (shared.get(j) ?? 0) + weight);
    }
    return [...shared.entries()]
      .sort((x, y) => y[1] - x[1] || x[0] - y[0])
      .slice(0, CANDIDATES_PER_SKILL)
      .map(([j]) => j);
  });
}

/** The pairs of skills that overlap strongly, best first. */
export function findTwins(skills: readonly TwinInput[], threshold = TWIN_THRESHOLD): TwinPair[] {
  if (skills.length < 2) return [];
  const prepared = skills.map(prepare);
  const seen = new Set<string>();
  const pairs: TwinPair[] = [];
  neighbours(prepared).forEach((candidates, i) => {
    for (const j of candidates) {
      const [a, b] = skills[i]!.name < skills[j]!.name ? [skills[i]!.name, skills[j]!.name] : [skills[j]!.name, skills[i]!.name];
      const key = `${a}\u0000${b}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const overlap = pairOverlap(prepared[i]!, prepared[j]!);
      if (overlap.score >= threshold) pairs.push({ a, b, overlap });
    }
  });
  return pairs.sort((x, y) => y.overlap.score - x.overlap.score || x.a.localeCompare(y.a));
}
