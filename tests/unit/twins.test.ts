/**
 * Twins (docs/learning-loop.md, "Possible duplicates"): pairs found by their rarest shared words and scored
 * by word overlap per part; a merge offered only when the merged skill, measured on the union of
 * both skills' cases, is at least as good as each original on its own cases.
 */
import { describe, expect, it } from 'vitest';
import { findTwins, overlapOf, wordsOf, type TwinInput } from '../../src/curator/twins';
import { mergeIsOffered, mergeTwins, mergedSkillOf, ownCaseScores, unionCases, type TwinSkill } from '../../src/review/twinMerge';
import type { VerdictRecord } from '../../src/gate/types';
import { parseEvalsFile } from '../../src/gate/evalCases';
import { fakeProvider } from './helpers/fakeProvider';

const CSV_BODY = 'Read the CSV file, detect the delimiter, trim whitespace in every header cell, drop empty rows, and write UTF-8 output with a header row.';
const library: TwinInput[] = [
  { name: 'csv-cleanup', description: 'Clean a CSV export: fix headers and drop empty rows.', body: CSV_BODY, casePrompts: ['Clean this CSV export'] },
  { name: 'tidy-csv', description: 'Tidy CSV exports: fix header cells and drop empty rows.', body: `${CSV_BODY} Quote fields that contain the delimiter.`, casePrompts: ['Tidy this CSV export please'] },
  { name: 'tea', description: 'Brew green tea.', body: 'Heat water to 80 degrees and steep for two minutes.', casePrompts: [] },
];

describe('findTwins', () => {
  it('lists the overlapping pair once, with the overlap per part, and leaves unrelated skills out', () => {
    const pairs = findTwins(library);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).toMatchObject({ a: 'csv-cleanup', b: 'tidy-csv' });
    expect(pairs[0]!.overlap.body).toBe(1);
    expect(pairs[0]!.overlap.score).toBeGreaterThanOrEqual(0.6);
    expect(pairs[0]!.overlap.cases).not.toBeNull();
  });

  it('counts shared words over the smaller side, without common words', () => {
    expect([...wordsOf('The CSV and the header')]).toEqual(['csv', 'header']);
    expect(overlapOf(new Set(['a', 'b']), new Set(['a', 'b', 'c', 'd']))).toBe(1);
    expect(overlapOf(new Set(), new Set(['a']))).toBe(0);
    expect(findTwins([library[0]!])).toEqual([]);
  });

  it('finds a twin pair among 1,500 skills written in one house style, and no pair from the shared style alone', () => {
    // Every skill uses the same 40 words; each also has words of its own. Only the two CSV
    // skills share words that few others have.
    const house = Array.from({ length: 40 }, (_, i) => `house${i}word`).join(' ');
    const big: TwinInput[] = Array.from({ length: 1_500 }, (_, i) => ({
      name: `skill-${String(i).padStart(4, '0')}`,
      description: `Handle topic${i}alpha and topic${i}beta.`,
      body: `${house} topic${i}alpha topic${i}beta topic${i}gamma`,
      casePrompts: [],
    }));
    big[700] = { ...library[0]!, body: `${house} ${CSV_BODY}` };
    big[1_200] = { ...library[1]!, body: `${house} ${CSV_BODY}` };
    const pairs = findTwins(big);
    expect(pairs.map((pair) => [pair.a, pair.b])).toEqual([['csv-cleanup', 'tidy-csv']]);
  });
});

const evals = (...prompts: string[]) => JSON.stringify({ evals: prompts.map((prompt, i) => ({ id: i + 1, prompt, checks: [{ type: 'icontains', value: 'header' }] })) });
const A: TwinSkill = { name: 'csv-cleanup', markdown: `---\nname: csv-cleanup\ndescription: Clean CSV.\n---\n\n${CSV_BODY}\n`, evals: evals('Clean this CSV', 'Fix my export') };
const B: TwinSkill = { name: 'tidy-csv', markdown: `---\nname: tidy-csv\ndescription: Tidy CSV.\n---\n\n${CSV_BODY}\n`, evals: evals('Tidy this CSV') };
const MERGED = '---\nname: csv-tidy-up\ndescription: Clean and tidy CSV exports.\n---\n\n' + CSV_BODY + '\n';

/** A verdict whose skill arm passed `passed[id]` of one check per case. */
function record(passed: Record<string, number>): VerdictRecord {
  return { cases: Object.entries(passed).map(([id, n]) => ({ id, side: 'dev', checks: 1, base: { passed: 0 }, skill: { passed: n }, outcome: 'tie', flags: [] })) } as unknown as VerdictRecord;
}

describe('the merge rule', () => {
  it('reads the merged SKILL.md and refuses a taken or invalid name', () => {
    expect(mergedSkillOf('Here it is:\n```markdown\n' + MERGED + '```', ['csv-cleanup'])).toMatchObject({ name: 'csv-tidy-up' });
    expect(mergedSkillOf(MERGED, ['csv-tidy-up'])).toMatchObject({ error: expect.stringContaining('already taken') });
    expect(mergedSkillOf('no skill here', [])).toHaveProperty('error');
    expect(mergedSkillOf(MERGED.replace('Clean and tidy CSV exports.', 'x'.repeat(61)), [])).toMatchObject({ error: expect.stringContaining('at most 60') });
  });

  it('unites both skills’ cases with ids that name their skill, and refuses a skill without cases', () => {
    const union = unionCases(A, B, 'csv-tidy-up');
    if ('error' in union) throw new Error(union.error);
    const parsed = parseEvalsFile(union.evals);
    expect(parsed.ok && parsed.file.evals.map((item) => item.id)).toEqual(['csv-cleanup:1', 'csv-cleanup:2', 'tidy-csv:1']);
    expect(unionCases(A, { ...B, evals: null }, 'x')).toHaveProperty('error');
  });

  it('offers only when the merged skill passes at least as many checks as each original on its own cases', () => {
    const merged = record({ 'csv-cleanup:1': 1, 'csv-cleanup:2': 1, 'tidy-csv:1': 1 });
    const scores = ownCaseScores(merged, [
      { name: 'csv-cleanup', record: record({ 1: 1, 2: 0 }) },
      { name: 'tidy-csv', record: record({ 1: 1 }) },
    ]);
    expect(scores).toEqual([
      { skill: 'csv-cleanup', cases: 2, checks: 2, original: 1, merged: 2 },
      { skill: 'tidy-csv', cases: 1, checks: 1, original: 1, merged: 1 },
    ]);
    expect(mergeIsOffered(scores).offered).toBe(true);
    const worse = ownCaseScores(record({ 'csv-cleanup:1': 1, 'csv-cleanup:2': 1, 'tidy-csv:1': 0 }), [
      { name: 'csv-cleanup', record: record({ 1: 1, 2: 1 }) },
      { name: 'tidy-csv', record: record({ 1: 1 }) },
    ]);
    expect(mergeIsOffered(worse)).toMatchObject({ offered: false, reason: expect.stringContaining("tidy-csv's cases") });
  });

  it('runs the whole merge: one request to write it, three gate runs, the merged files only in memory', async () => {
    const fake = fakeProvider([{ text: MERGED }]);
    const measured: string[] = [];
    const outcome = await mergeTwins(
      {
        read: async (name) => (name === A.name ? A : name === B.name ? B : null),
        names: () => [A.name, B.name],
        provider: fake.provider,
        fits: () => null,
        verify: async (skill, files) => {
          measured.push(skill);
          if (files) {
            expect(await files('SKILL.md')).toBe(MERGED);
            return { record: record({ 'csv-cleanup:1': 1, 'csv-cleanup:2': 1, 'tidy-csv:1': 1 }), requests: 6 };
          }
          return { record: skill === A.name ? record({ 1: 1, 2: 1 }) : record({ 1: 0 }), requests: 4 };
        },
      },
      { a: A.name, b: B.name },
    );
    expect(measured).toEqual(['csv-tidy-up', 'csv-cleanup', 'tidy-csv']);
    expect(outcome).toMatchObject({ kind: 'offered', name: 'csv-tidy-up', requests: 15 });
  });
});
