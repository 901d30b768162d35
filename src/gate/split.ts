import { sha256Hex } from '../skills/ledger';
import { canonicalJson } from './canonicalJson';
import type { CaseMessage, ExcludedCase, ScorableCase, Split, SplitCase } from './types';

/**
 * The dev/holdout split (docs/gate.md, "Split"). The only place in Knack that orders cases by
 * their split key: a case's side depends on the content of its question alone, never on its id,
 * its position in the file or its checks, so fixing a check's typo, renumbering cases or
 * reordering the file moves nothing across sides.
 */

/** Versioned salt: changing how keys are computed must change every key. */
export const SPLIT_SALT = 'knack.split.v1';
export const DEFAULT_HOLDOUT_RATIO = 0.25;
/** Cost cap per run; larger case sets run a stable subset (see `applyCaseCap`). */
export const MAX_CASES_PER_RUN = 24;

/** Text as it is compared: NFC, LF line ends, no outer whitespace. */
function normaliseText(text: string): string {
  return text.normalize('NFC').replace(/\r\n?/g, '\n').trim();
}

/** The question a case asks, the part its key and duplicate detection are made of. */
function questionOf(testCase: ScorableCase): { prompt: string; messages: CaseMessage[]; files: { path: string; sha256: string }[] } {
  return {
    prompt: normaliseText(testCase.prompt),
    messages: testCase.messages.map((message) => ({ role: message.role, content: normaliseText(message.content) })),
    files: testCase.files.map((file) => ({ path: file.path, sha256: file.sha256 })),
  };
}

/** Hex SHA-256 of the salted canonical question. Two cases with the same key are duplicates. */
export async function splitKey(testCase: ScorableCase): Promise<string> {
  const text = `${SPLIT_SALT}\n${canonicalJson(questionOf(testCase))}`;
  return sha256Hex(new TextEncoder().encode(text));
}

/**
 * Number of held-out cases for n scorable cases: round half up (pinned, no banker's rounding),
 * at least one, and never all of them.
 */
export function holdoutSize(n: number, ratio = DEFAULT_HOLDOUT_RATIO): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  if (!(ratio > 0 && ratio < 1)) throw new RangeError(`ratio must be between 0 and 1, got ${ratio}`);
  if (n < 2) return 0;
  return Math.min(n - 1, Math.max(1, Math.floor(n * ratio + 0.5)));
}

/**
 * The smallest number of scorable cases whose split holds out at least `minHoldout` cases
 * (6 for 2 at ratio 0.25, i.e. ceil((minHoldout − 0.5) / ratio)). Found by asking
 * `holdoutSize` itself, so the "add N cases" advice can never disagree with the split.
 */
export function casesNeededToPromote(minHoldout: number, ratio = DEFAULT_HOLDOUT_RATIO): number {
  if (!Number.isInteger(minHoldout) || minHoldout < 1) throw new RangeError(`minHoldout must be a positive integer, got ${minHoldout}`);
  let n = 2;
  while (holdoutSize(n, ratio) < minHoldout) n++;
  return n;
}

const idText = (id: string | number) => String(id);

/** Ascending by key; ids only break ties (which dedup makes impossible short of a collision). */
function byKey(a: SplitCase, b: SplitCase): number {
  if (a.key !== b.key) return a.key < b.key ? -1 : 1;
  const ia = idText(a.id);
  const ib = idText(b.id);
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/**
 * Keeps at most `maxCases` cases in a run: all held-out cases and the first dev cases in key
 * order, so the subset is stable. The holdout keeps at most half the cap, so a very large file
 * still leaves room for the dev cases the verdict is built on.
 */
function applyCaseCap(dev: SplitCase[], holdout: SplitCase[], maxCases: number): Pick<Split, 'dev' | 'holdout' | 'notRun'> {
  if (dev.length + holdout.length <= maxCases) return { dev, holdout, notRun: [] };
  const holdoutRun = Math.min(holdout.length, Math.floor(maxCases / 2));
  const devRun = Math.min(dev.length, maxCases - holdoutRun);
  const notRun = [...dev.slice(devRun), ...holdout.slice(holdoutRun)].sort(byKey);
  return { dev: dev.slice(0, devRun), holdout: holdout.slice(0, holdoutRun), notRun };
}

/**
 * Splits scorable cases (in file order) into dev and holdout.
 *
 * 1. Duplicates (same normalised prompt, messages and files-by-hash as an earlier case) are
 *    excluded with "duplicate of case {id}": they are not independent evidence.
 * 2. The rest are sorted by key; `holdoutSize(n)` of them go to holdout: independent cases
 *    (requests from the user's later chats, docs/gate.md "Independent cases") first, then the
 *    others, each group in key order. Cases marked `source` (the literal teaching prompt:
 *    testing it measures memorisation) stay in dev while the next case takes their place.
 * 3. The cost cap keeps the run to `maxCases`; the cases left out are listed in `notRun`.
 *
 * `excluded` holds duplicates only; reasons found while parsing are the caller's to add.
 */
export async function splitCases(cases: ScorableCase[], ratio = DEFAULT_HOLDOUT_RATIO, maxCases = MAX_CASES_PER_RUN): Promise<Split> {
  if (!(maxCases >= 2)) throw new RangeError(`maxCases must be at least 2, got ${maxCases}`);
  const keys = await Promise.all(cases.map(splitKey));
  const firstWithKey = new Map<string, ScorableCase>();
  const excluded: ExcludedCase[] = [];
  const unique: SplitCase[] = [];
  cases.forEach((testCase, i) => {
    const earlier = firstWithKey.get(keys[i]);
    if (earlier) {
      excluded.push({ id: testCase.id, reason: `duplicate of case ${idText(earlier.id)}` });
      return;
    }
    firstWithKey.set(keys[i], testCase);
    unique.push({ ...testCase, side: 'dev', key: keys[i] });
  });
  unique.sort(byKey);

  let holdoutLeft = holdoutSize(unique.length, ratio);
  const held = new Set<SplitCase>();
  // Independent cases first (requests from later chats: the author could not fit them), then
  // the rest, each group in key order.
  for (const testCase of [...unique.filter((c) => c.independent), ...unique.filter((c) => !c.independent)]) {
    if (holdoutLeft === 0) break;
    if (testCase.source) continue;
    held.add(testCase);
    holdoutLeft--;
  }
  const dev = unique.filter((testCase) => !held.has(testCase));
  const holdout = unique.filter((testCase) => held.has(testCase)).map((testCase): SplitCase => ({ ...testCase, side: 'holdout' }));
  return { ...applyCaseCap(dev, holdout, maxCases), excluded };
}
