/**
 * Similarity between two strings with the semantics of Python's difflib SequenceMatcher (no
 * junk heuristic), used by the approximate strategies of the fuzzy patch (docs/fuzzy-patch.md).
 *
 * The thresholds the patch uses (0.3, 0.5, 0.7, 0.8) were tuned against difflib's ratio:
 * matching blocks are found by repeatedly taking the longest common substring, and
 * ratio = 2·matched / (len(a) + len(b)).
 */
export interface MatchingBlock {
  aStart: number;
  bStart: number;
  size: number;
}

export interface EditOpcode {
  op: 'equal' | 'replace' | 'delete' | 'insert';
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Every matching block of `a` and `b`, in order, adjacent blocks merged. */
export function matchingBlocks(a: string, b: string): MatchingBlock[] {
  const la = a.length;
  const lb = b.length;
  if (la === 0 || lb === 0) return [];
  const positions = new Map<number, number[]>();
  for (let j = 0; j < lb; j++) {
    const c = b.charCodeAt(j);
    const list = positions.get(c);
    if (list) list.push(j);
    else positions.set(c, [j]);
  }
  // runLength[j + 1] = length of the common run ending at b[j] in the row stamped runRow[j + 1].
  // Stamps increase across every row of every search, so nothing needs clearing.
  const runLength = new Int32Array(lb + 1);
  const runRow = new Int32Array(lb + 1);
  let stamp = 0;

  const longest = (alo: number, ahi: number, blo: number, bhi: number): MatchingBlock => {
    let bestI = alo;
    let bestJ = blo;
    let bestSize = 0;
    let previous = -1;
    for (let i = alo; i < ahi; i++) {
      const row = ++stamp;
      const list = positions.get(a.charCodeAt(i));
      if (list) {
        // Descending j: slot j still holds the previous row's run when slot j + 1 is written.
        for (let p = list.length - 1; p >= 0; p--) {
          const j = list[p];
          if (j >= bhi) continue;
          if (j < blo) break;
          const k = runRow[j] === previous ? runLength[j] + 1 : 1;
          runLength[j + 1] = k;
          runRow[j + 1] = row;
          if (k > bestSize || (k === bestSize && i - k + 1 === bestI && j - k + 1 < bestJ)) {
            bestI = i - k + 1;
            bestJ = j - k + 1;
            bestSize = k;
          }
        }
      }
      previous = row;
    }
    return { aStart: bestI, bStart: bestJ, size: bestSize };
  };

  const found: MatchingBlock[] = [];
  const queue: Array<[number, number, number, number]> = [[0, la, 0, lb]];
  while (queue.length > 0) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const block = longest(alo, ahi, blo, bhi);
    if (block.size === 0) continue;
    found.push(block);
    if (alo < block.aStart && blo < block.bStart) queue.push([alo, block.aStart, blo, block.bStart]);
    const aAfter = block.aStart + block.size;
    const bAfter = block.bStart + block.size;
    if (aAfter < ahi && bAfter < bhi) queue.push([aAfter, ahi, bAfter, bhi]);
  }
  found.sort((x, y) => x.aStart - y.aStart);
  const merged: MatchingBlock[] = [];
  for (const block of found) {
    const last = merged[merged.length - 1];
    if (last && last.aStart + last.size === block.aStart && last.bStart + last.size === block.bStart) last.size += block.size;
    else merged.push({ ...block });
  }
  return merged;
}

/** The edit that turns `a` into `b` (difflib `get_opcodes`). */
export function editOpcodes(a: string, b: string): EditOpcode[] {
  const ops: EditOpcode[] = [];
  let i = 0;
  let j = 0;
  for (const block of [...matchingBlocks(a, b), { aStart: a.length, bStart: b.length, size: 0 }]) {
    if (i < block.aStart || j < block.bStart) {
      const op = i < block.aStart && j < block.bStart ? 'replace' : i < block.aStart ? 'delete' : 'insert';
      ops.push({ op, aStart: i, aEnd: block.aStart, bStart: j, bEnd: block.bStart });
    }
    if (block.size > 0) {
      ops.push({ op: 'equal', aStart: block.aStart, aEnd: block.aStart + block.size, bStart: block.bStart, bEnd: block.bStart + block.size });
    }
    i = block.aStart + block.size;
    j = block.bStart + block.size;
  }
  return ops;
}

/** difflib `ratio()`; two empty strings are identical (1.0). */
export function similarityRatio(a: string, b: string): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  let matched = 0;
  for (const block of matchingBlocks(a, b)) matched += block.size;
  return (2 * matched) / total;
}

const sharedCharCounts = new Map<number, number>();

/**
 * The ratio when it can reach `threshold`, else -1. Two upper bounds go first: one from the
 * lengths (difflib `real_quick_ratio`) and one from shared characters regardless of order
 * (`quick_ratio`); most unrelated line pairs stop there.
 */
export function ratioIfAtLeast(a: string, b: string, threshold: number): number {
  const total = a.length + b.length;
  if (total === 0) return 1;
  if ((2 * Math.min(a.length, b.length)) / total < threshold) return -1;
  sharedCharCounts.clear();
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    sharedCharCounts.set(c, (sharedCharCounts.get(c) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    const left = sharedCharCounts.get(c);
    if (left) {
      shared++;
      sharedCharCounts.set(c, left - 1);
    }
  }
  if ((2 * shared) / total < threshold) return -1;
  return similarityRatio(a, b);
}
