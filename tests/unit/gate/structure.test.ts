/**
 * Structural invariants of the gate, read from the source: one place orders cases by split key,
 * one place produces verdict words. A second copy of either would let two parts of Knack disagree
 * about which cases are held out or what a run concluded.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|svelte)$/.test(name) ? [path] : [];
  });
}

const SOURCES = sourceFiles(join(ROOT, 'src')).map((path) => ({
  path: relative(ROOT, path).split('\\').join('/'),
  text: readFileSync(path, 'utf8'),
}));

const filesMatching = (pattern: RegExp) => SOURCES.filter((file) => pattern.test(file.text)).map((file) => file.path);

/** A sort (or toSorted) whose comparator, on the same line or the next, reads a `.key`. */
const SORT_BY_KEY = /\.(?:sort|toSorted)\([^;]*?\.key\b|\.(?:sort|toSorted)\(\s*byKey\b/;
/**
 * A verdict word written as a verdict: `verdict: 'staged'`, `verdict = "promoted"`,
 * `'rejected' as VerdictWord`, `const word: VerdictWord = 'staged'`, or any function declared to
 * return a VerdictWord. (Other words that happen to be spelled the same, like the Skills page's
 * "rejected" group, are not verdicts.)
 */
const WORD = `['"\`](?:promoted|staged|rejected)['"\`]`;
const VERDICT_LITERAL = new RegExp(
  [`\\bverdict\\s*[:=]\\s*${WORD}`, `${WORD}\\s+as\\s+VerdictWord\\b`, `:\\s*VerdictWord\\s*=\\s*${WORD}`, `\\)\\s*:\\s*VerdictWord\\b`].join('|'),
);

describe('gate structure', () => {
  it('reads the whole source tree', () => {
    expect(SOURCES.length).toBeGreaterThan(50);
    expect(SOURCES.map((file) => file.path)).toContain('src/gate/split.ts');
  });

  it('uses patterns that recognise what they look for, and only that', () => {
    expect(SORT_BY_KEY.test('cases.sort((a, b) => (a.key < b.key ? -1 : 1));')).toBe(true);
    expect(SORT_BY_KEY.test('const ordered = cases.toSorted((a, b) =>\n  a.key.localeCompare(b.key));')).toBe(true);
    expect(SORT_BY_KEY.test('rows.sort((a, b) => a.name.localeCompare(b.name));')).toBe(false);
    expect(VERDICT_LITERAL.test("return { verdict: 'promoted', code };")).toBe(true);
    expect(VERDICT_LITERAL.test('record.verdict = "rejected";')).toBe(true);
    expect(VERDICT_LITERAL.test("const word = 'staged' as VerdictWord;")).toBe(true);
    expect(VERDICT_LITERAL.test('function wordOf(run: Run): VerdictWord {')).toBe(true);
    expect(VERDICT_LITERAL.test("if (verification === 'rejected') return 'rejected';")).toBe(false);
    expect(VERDICT_LITERAL.test("if (state.verdict === 'promoted') return '[verified]';")).toBe(false);
  });

  it('orders cases by split key only in src/gate/split.ts', () => {
    expect(filesMatching(SORT_BY_KEY)).toEqual(['src/gate/split.ts']);
    expect(filesMatching(/knack\.split\.v1/)).toEqual(['src/gate/split.ts']);
  });

  it('produces verdict words only in src/gate/decide.ts', () => {
    // types.ts declares the words and verdictLabel.ts only reads them; neither produces one.
    const producers = filesMatching(VERDICT_LITERAL).filter((path) => path !== 'src/gate/types.ts' && path !== 'src/gate/verdictLabel.ts');
    expect(producers).toEqual(['src/gate/decide.ts']);
  });

  it('has one decide, one splitCases and one verdictLabel', () => {
    expect(filesMatching(/export (?:async )?function decide\b/)).toEqual(['src/gate/decide.ts']);
    expect(filesMatching(/export (?:async )?function splitCases\b/)).toEqual(['src/gate/split.ts']);
    expect(filesMatching(/export function verdictLabel\b/)).toEqual(['src/gate/verdictLabel.ts']);
  });
});
