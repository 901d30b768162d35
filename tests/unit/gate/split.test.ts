/**
 * The dev/holdout split: sizes for every n, pinned rounding, independence from order, ids and
 * checks, teaching prompts kept in dev, duplicates excluded, the cost cap and fixed key vectors.
 */
import { describe, expect, it } from 'vitest';
import {
  casesNeededToPromote,
  holdoutSize,
  MAX_CASES_PER_RUN,
  splitCases,
  splitKey,
} from '../../../src/gate/split';
import type { ScorableCase, Split } from '../../../src/gate/types';
import { mulberry32, scorableCase, scorableCases, sha256OfText, shuffled } from './helpers/cases';

const NO_CAP = Number.POSITIVE_INFINITY;
const prompts = (cases: { prompt: string }[]) => cases.map((c) => c.prompt);
const sides = (split: Split) => ({ dev: prompts(split.dev), holdout: prompts(split.holdout) });

describe('holdoutSize', () => {
  it('follows the published table (round half up, at least 1, never all)', () => {
    const table: [number, number][] = [[0, 0], [1, 0], [2, 1], [3, 1], [4, 1], [5, 1], [6, 2], [7, 2], [8, 2], [9, 2], [10, 3], [12, 3], [14, 4], [16, 4], [18, 5], [20, 5]];
    for (const [n, h] of table) expect(holdoutSize(n), `n = ${n}`).toBe(h);
  });

  it('refuses a ratio outside (0, 1) and a non-integer n', () => {
    expect(() => holdoutSize(8, 0)).toThrow(RangeError);
    expect(() => holdoutSize(8, 1)).toThrow(RangeError);
    expect(() => holdoutSize(2.5)).toThrow(RangeError);
  });
});

describe('casesNeededToPromote', () => {
  it('is 6 for two held-out cases at ratio 0.25, and ceil((minHoldout − 0.5)/ratio) in general', () => {
    expect(casesNeededToPromote(2)).toBe(6);
    for (let minHoldout = 1; minHoldout <= 10; minHoldout++) {
      expect(casesNeededToPromote(minHoldout, 0.25)).toBe(Math.max(2, Math.ceil((minHoldout - 0.5) / 0.25)));
    }
  });

  it('is the smallest n whose split holds out enough, for any ratio', () => {
    for (const ratio of [0.2, 0.25, 0.3, 1 / 3, 0.5]) {
      for (let minHoldout = 1; minHoldout <= 6; minHoldout++) {
        const n = casesNeededToPromote(minHoldout, ratio);
        expect(holdoutSize(n, ratio)).toBeGreaterThanOrEqual(minHoldout);
        expect(holdoutSize(n - 1, ratio)).toBeLessThan(minHoldout);
      }
    }
  });
});

describe('splitCases', () => {
  it('for n = 2…101: both sides non-empty, sizes sum to n, holdout = holdoutSize(n)', async () => {
    for (let n = 2; n <= 101; n++) {
      const split = await splitCases(scorableCases(n), 0.25, NO_CAP);
      expect(split.holdout.length, `n = ${n}`).toBe(holdoutSize(n));
      expect(split.dev.length).toBeGreaterThan(0);
      expect(split.holdout.length).toBeGreaterThan(0);
      expect(split.dev.length + split.holdout.length).toBe(n);
      expect(split.excluded).toEqual([]);
      expect(split.notRun).toEqual([]);
    }
  });

  it('puts the smallest keys in holdout, each case marked with its side and key', async () => {
    const split = await splitCases(scorableCases(12));
    const all = [...split.holdout, ...split.dev];
    const keys = all.map((c) => c.key);
    expect(keys.every((key) => /^[0-9a-f]{64}$/.test(key))).toBe(true);
    expect(keys).toEqual([...keys].sort());
    expect(split.holdout.every((c) => c.side === 'holdout')).toBe(true);
    expect(split.dev.every((c) => c.side === 'dev')).toBe(true);
  });

  it('does not depend on the order of the file (50 shuffles)', async () => {
    const cases = scorableCases(20);
    const reference = sides(await splitCases(cases));
    const random = mulberry32(2026);
    for (let round = 0; round < 50; round++) expect(sides(await splitCases(shuffled(cases, random)))).toEqual(reference);
  });

  it('does not move a case when ids are renumbered', async () => {
    const cases = scorableCases(16);
    const before = sides(await splitCases(cases));
    const renumbered = cases.map((c, i) => ({ ...c, id: `case-${100 - i}` }));
    expect(sides(await splitCases(renumbered))).toEqual(before);
  });

  it('does not move a case when its checks or expected_output are edited', async () => {
    const cases = scorableCases(16);
    const before = sides(await splitCases(cases));
    const edited = cases.map((c, i) => ({
      ...c,
      checks: i % 2 ? [{ type: 'regex' as const, value: `fixed typo ${i}`, flags: 'i' }] : [],
      expected_output: `Names the house font (${i}).`,
      expectations: ['edited'],
    }));
    expect(sides(await splitCases(edited as ScorableCase[]))).toEqual(before);
  });

  it('gives an edited prompt a new key', async () => {
    const a = scorableCase(1);
    expect(await splitKey({ ...a, prompt: `${a.prompt} Be brief.` })).not.toBe(await splitKey(a));
    expect(await splitKey({ ...a, messages: [{ role: 'user', content: 'context' }] })).not.toBe(await splitKey(a));
  });

  it('keeps cases marked as the teaching prompt in dev; the next key takes their holdout place', async () => {
    const cases = scorableCases(8);
    const plain = await splitCases(cases);
    const firstHeldOut = plain.holdout[0].id;
    const marked = cases.map((c) => (c.id === firstHeldOut ? { ...c, source: true } : c));
    const split = await splitCases(marked);
    expect(split.dev.map((c) => c.id)).toContain(firstHeldOut);
    expect(split.holdout.length).toBe(plain.holdout.length);
    const byKey = [...plain.holdout, ...plain.dev].filter((c) => c.id !== firstHeldOut).map((c) => c.id);
    expect(split.holdout.map((c) => c.id)).toEqual(byKey.slice(0, plain.holdout.length));
  });

  it('holds out cases from the user\'s later chats first, then the others in key order', async () => {
    const cases = scorableCases(12);
    const plain = await splitCases(cases);
    expect(plain.holdout).toHaveLength(3);
    // Two independent cases that the plain split keeps in dev.
    const chosen = plain.dev.slice(-2).map((c) => c.id);
    const split = await splitCases(cases.map((c) => (chosen.includes(c.id) ? { ...c, independent: true } : c)));
    expect(split.holdout.filter((c) => c.independent).map((c) => c.id).sort()).toEqual([...chosen].sort());
    // The third place goes to the first case in key order, as before.
    expect(split.holdout.filter((c) => !c.independent).map((c) => c.id)).toEqual([plain.holdout[0].id]);
    // More independent cases than places: the first in key order, and a teaching prompt never.
    const many = await splitCases(cases.map((c, i) => ({ ...c, independent: true, source: i === 0 })));
    expect(many.holdout.map((c) => c.id)).toEqual(plain.holdout.concat(plain.dev).filter((c) => c.id !== cases[0].id).slice(0, 3).map((c) => c.id));
  });

  it('leaves the holdout short rather than hold out a teaching prompt', async () => {
    const cases = scorableCases(4).map((c, i) => ({ ...c, source: i > 0 }));
    const split = await splitCases(cases);
    expect(split.holdout.map((c) => c.id)).toEqual([1]);
    const allSource = await splitCases(scorableCases(4).map((c) => ({ ...c, source: true })));
    expect(allSource.holdout).toEqual([]);
    expect(allSource.dev).toHaveLength(4);
  });

  it('excludes duplicates of an earlier case (in file order) with a reason, after normalising text', async () => {
    const base = scorableCase(3, { prompt: 'Pick a font for the caption.', messages: [{ role: 'user', content: 'We use the house font.' }] });
    const cases: ScorableCase[] = [
      scorableCase(1),
      base,
      { ...base, id: 5, prompt: 'Pick a font for the caption.  \r\n', checks: [{ type: 'contains', value: 'x' }] },
      { ...base, id: 6, messages: [{ role: 'user', content: 'We use the house font.\r\n' }] },
      { ...base, id: 7, prompt: base.prompt.replace('for', 'fór'.normalize('NFD')) },
      { ...base, id: 8, prompt: base.prompt.replace('for', 'fór'.normalize('NFC')) },
      { ...base, id: 9, messages: [] },
      scorableCase(10),
    ];
    const split = await splitCases(cases);
    expect(split.excluded).toEqual([
      { id: 5, reason: 'duplicate of case 3' },
      { id: 6, reason: 'duplicate of case 3' },
      { id: 8, reason: 'duplicate of case 7' },
    ]);
    expect(split.dev.length + split.holdout.length).toBe(5);
  });

  it('tells cases with the same file path but different file contents apart', async () => {
    const withFile = (id: number, text: string) =>
      scorableCase(1, { id, files: [{ path: 'notes/style.md', text, sha256: sha256OfText(text) }] });
    const split = await splitCases([withFile(1, 'Use Pretendard.'), withFile(2, 'Use Arial.'), withFile(3, 'Use Pretendard.'), scorableCase(4), scorableCase(5)]);
    expect(split.excluded).toEqual([{ id: 3, reason: 'duplicate of case 1' }]);
  });

  it('computes fixed keys (salted SHA-256 of the canonical question), the same on every run', async () => {
    const plain = scorableCase(1, { prompt: 'Pick a font for the caption of diagram A.' });
    expect(await splitKey(plain)).toBe('17323638fa1fa447de2672c5bca6d97190ca6ad897626a65f98838b499222811');
    const fileText = 'Captions use Pretendard.\n';
    const rich = scorableCase(2, {
      prompt: 'Which font for the legend?',
      messages: [{ role: 'user', content: 'Earlier: we use the house font.' }],
      files: [{ path: 'notes/style.md', text: fileText, sha256: sha256OfText(fileText) }],
    });
    expect(rich.files[0].sha256).toBe('8c0fd56f07f231ad9f0da85dd010ef8cba4fbdb4d9dced8ea12d8964ee177572');
    expect(await splitKey(rich)).toBe('9b8a195b06080fed34dd4e4d694540a25cb70fa12bdb488ebf4f4241d3ad26e8');
    const cases = scorableCases(10);
    expect(await splitCases(cases)).toEqual(await splitCases(cases));
  });

  it(`runs at most ${MAX_CASES_PER_RUN} cases: all holdout and the first dev cases in key order`, async () => {
    const full = await splitCases(scorableCases(30), 0.25, NO_CAP);
    const capped = await splitCases(scorableCases(30));
    expect(capped.holdout).toEqual(full.holdout);
    expect(capped.dev).toEqual(full.dev.slice(0, MAX_CASES_PER_RUN - full.holdout.length));
    expect(capped.notRun).toEqual(full.dev.slice(MAX_CASES_PER_RUN - full.holdout.length));
    expect(capped.dev.length + capped.holdout.length).toBe(MAX_CASES_PER_RUN);
  });

  it('keeps at most half the cap for holdout so a large file still runs dev cases', async () => {
    const full = await splitCases(scorableCases(100), 0.25, NO_CAP);
    const capped = await splitCases(scorableCases(100));
    expect(full.holdout).toHaveLength(25);
    expect(capped.holdout).toEqual(full.holdout.slice(0, 12));
    expect(capped.dev).toEqual(full.dev.slice(0, 12));
    expect(capped.notRun).toHaveLength(76);
    expect(capped.notRun?.filter((c) => c.side === 'holdout')).toHaveLength(13);
  });

  it('returns nothing held out for fewer than two cases', async () => {
    expect(sides(await splitCases([]))).toEqual({ dev: [], holdout: [] });
    const one = await splitCases([scorableCase(1)]);
    expect(one.holdout).toEqual([]);
    expect(one.dev).toHaveLength(1);
  });
});
