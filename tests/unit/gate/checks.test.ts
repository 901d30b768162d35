import { describe, expect, it } from 'vitest';
import {
  answerText,
  CHECK_TYPES,
  checkProblems,
  normalizeCheckType,
  regexFlagsProblem,
  runRegexJob,
  scoreOutput,
  type RegexRunner,
} from '../../../src/gate/checks';
import type { Check } from '../../../src/gate/types';
import { createNodeRegexRunner, inlineRegexRunner } from '../helpers/nodeRegexRunner';

const NFC_CAFE = 'caf\u00e9';
const NFD_CAFE = 'cafe\u0301';

async function passes(answer: string, check: Check, runner: RegexRunner = inlineRegexRunner): Promise<boolean> {
  const result = await scoreOutput(answer, [check], runner);
  expect(result.unscorable).toBeUndefined();
  return result.checkPass[0];
}

describe('scoreOutput: every check type', () => {
  const answer = 'Use Pretendard for the caption.';
  const table: [Check, boolean][] = [
    [{ type: 'contains', value: 'Pretendard' }, true],
    [{ type: 'contains', value: 'pretendard' }, false],
    [{ type: 'not_contains', value: 'Arial' }, true],
    [{ type: 'not_contains', value: 'Pretendard' }, false],
    [{ type: 'icontains', value: 'PRETENDARD' }, true],
    [{ type: 'icontains', value: 'arial' }, false],
    [{ type: 'not_icontains', value: 'ARIAL' }, true],
    [{ type: 'not_icontains', value: 'pretendard' }, false],
    [{ type: 'contains_any', value: ['Arial', 'Pretendard'] }, true],
    [{ type: 'contains_any', value: ['Arial', 'pretendard'] }, false],
    [{ type: 'icontains_any', value: ['Arial', 'pretendard'] }, true],
    [{ type: 'icontains_any', value: ['Arial', 'Helvetica'] }, false],
    [{ type: 'contains_all', value: ['Use', 'caption'] }, true],
    [{ type: 'contains_all', value: ['Use', 'Caption'] }, false],
    [{ type: 'icontains_all', value: ['USE', 'Caption'] }, true],
    [{ type: 'icontains_all', value: ['use', 'Arial'] }, false],
    [{ type: 'regex', value: 'Pre\\w+dard' }, true],
    [{ type: 'regex', value: '^pretendard' }, false],
    [{ type: 'regex', value: 'PRETENDARD', flags: 'i' }, true],
    [{ type: 'not_regex', value: '\\bArial\\b' }, true],
    [{ type: 'not_regex', value: 'caption\\.$' }, false],
    [{ type: 'equals', value: 'Use Pretendard for the caption.' }, true],
    [{ type: 'equals', value: 'Use Pretendard' }, false],
    [{ type: 'starts_with', value: 'Use Pre' }, true],
    [{ type: 'starts_with', value: 'Pretendard' }, false],
    [{ type: 'ends_with', value: 'caption.' }, true],
    [{ type: 'ends_with', value: 'caption' }, false],
    [{ type: 'is_json' }, false],
    [{ type: 'length', value: { min: 10, max: 40 } }, true],
    [{ type: 'length', value: { max: 10 } }, false],
  ];

  it.each(table)('%j → %s', async (check, expected) => {
    expect(await passes(answer, check)).toBe(expected);
  });

  it('covers every check type of the table', () => {
    expect(new Set(table.map(([check]) => check.type))).toEqual(new Set(CHECK_TYPES));
  });

  it('counts passes per check, in order', async () => {
    const checks: Check[] = [
      { type: 'icontains', value: 'pretendard' },
      { type: 'contains', value: 'Arial' },
      { type: 'not_contains', value: 'Arial' },
    ];
    expect(await scoreOutput(answer, checks, inlineRegexRunner)).toEqual({ passed: 2, checkPass: [true, false, true] });
  });

  it('scores an empty list of checks as 0 of 0', async () => {
    expect(await scoreOutput(answer, [], inlineRegexRunner)).toEqual({ passed: 0, checkPass: [] });
  });
});

describe('scoreOutput: normalisation', () => {
  it('compares NFC on both sides (composed answer, decomposed value and the reverse)', async () => {
    expect(NFC_CAFE).not.toBe(NFD_CAFE);
    expect(await passes(`Meet at the ${NFC_CAFE}.`, { type: 'contains', value: NFD_CAFE })).toBe(true);
    expect(await passes(`Meet at the ${NFD_CAFE}.`, { type: 'contains', value: NFC_CAFE })).toBe(true);
    expect(await passes(`Meet at the ${NFD_CAFE}.`, { type: 'not_contains', value: NFC_CAFE })).toBe(false);
    expect(await passes(NFD_CAFE, { type: 'equals', value: NFC_CAFE })).toBe(true);
    expect(await passes(`${NFD_CAFE} au lait`, { type: 'regex', value: `^${NFC_CAFE} ` })).toBe(true);
  });

  it('folds case with toLowerCase on both sides, including non-ASCII letters', async () => {
    expect(await passes(`THE ${NFC_CAFE.toUpperCase()}`, { type: 'icontains', value: NFD_CAFE })).toBe(true);
    expect(await passes('ΣΟΦΙΑ', { type: 'icontains', value: 'σοφια' })).toBe(true);
    expect(await passes('Pretendard', { type: 'contains', value: 'PRETENDARD' })).toBe(false);
  });

  it('equals trims both sides; starts_with and ends_with look at the trimmed answer', async () => {
    expect(await passes('\n  yes \n', { type: 'equals', value: ' yes' })).toBe(true);
    expect(await passes('\n  yes, done \n', { type: 'starts_with', value: 'yes' })).toBe(true);
    expect(await passes('\n  yes, done \n', { type: 'ends_with', value: 'done' })).toBe(true);
  });

  it('length counts code points: an emoji, an astral letter and a composed é are one each', async () => {
    expect('👍'.length).toBe(2);
    expect(await passes('👍', { type: 'length', value: { min: 1, max: 1 } })).toBe(true);
    expect(await passes('𝒳𝒴', { type: 'length', value: { min: 2, max: 2 } })).toBe(true);
    expect(await passes(NFD_CAFE, { type: 'length', value: { max: 4 } })).toBe(true);
    expect(await passes('abcde', { type: 'length', value: { min: 6 } })).toBe(false);
  });

  it('is_json parses the trimmed answer, unwrapping one fenced json block', async () => {
    expect(await passes('  {"font": "Pretendard"}\n', { type: 'is_json' })).toBe(true);
    expect(await passes('```json\n{"font": "Pretendard"}\n```', { type: 'is_json' })).toBe(true);
    expect(await passes('```JSON\n[1, 2]```', { type: 'is_json' })).toBe(true);
    expect(await passes('```python\n{"a": 1}\n```', { type: 'is_json' })).toBe(false);
    expect(await passes('Here it is: {"a": 1}', { type: 'is_json' })).toBe(false);
    expect(await passes('```json\n{"a": 1}\n```\n```json\n{"b": 2}\n```', { type: 'is_json' })).toBe(false);
  });
});

describe('scoreOutput: regex rules', () => {
  it('refuses the g flag with a reason, as unscorable rather than failed', async () => {
    const result = await scoreOutput('aaa', [{ type: 'regex', value: 'a', flags: 'g' }], inlineRegexRunner);
    expect(result.passed).toBe(0);
    expect(result.checkPass).toEqual([]);
    expect(result.unscorable).toMatch(/checks\[0\]\.flags: flag 'g' is refused: .*lastIndex/);
  });

  it.each(['y', 'd', 'x', 'ii'])('refuses the flags %j', (flags) => {
    expect(regexFlagsProblem(flags)).toMatch(/flag/);
  });

  it('accepts every subset of imsu', async () => {
    for (const flags of ['', 'i', 'm', 's', 'u', 'imsu', 'su']) expect(regexFlagsProblem(flags)).toBeNull();
    expect(await passes('line one\nline two', { type: 'regex', value: 'one.line', flags: 's' })).toBe(true);
    expect(await passes('line one\nline two', { type: 'regex', value: '^line two$', flags: 'm' })).toBe(true);
  });

  it('makes an invalid regex unscorable with the reason', async () => {
    const result = await scoreOutput('x', [{ type: 'icontains', value: 'x' }, { type: 'regex', value: '(unclosed' }], inlineRegexRunner);
    expect(result.unscorable).toMatch(/^checks\[1\]\.value: the pattern does not compile/);
    expect(result.checkPass).toEqual([]);
  });

  it('makes a malformed check unscorable instead of failing it', async () => {
    const result = await scoreOutput('x', [{ type: 'contains_any', value: 'x' }], inlineRegexRunner);
    expect(result.unscorable).toMatch(/^checks\[0\]\.value: value must be a list of strings/);
  });

  it('stops a catastrophic pattern with the watchdog and makes the answer unscorable', async () => {
    const runner = createNodeRegexRunner();
    const answer = `${'a'.repeat(30)}b`;
    const result = await scoreOutput(answer, [{ type: 'icontains', value: 'a' }, { type: 'regex', value: '(a+)+$' }], runner);
    expect(result.timedOut).toBe(true);
    expect(result.passed).toBe(0);
    expect(result.checkPass).toEqual([]);
    expect(result.unscorable).toMatch(/^checks\[1\] \(regex \(a\+\)\+\$\): the regex ran longer than 1,000 ms/);
  });

  it('runs ordinary patterns through the worker runner with the same results', async () => {
    const runner = createNodeRegexRunner();
    const checks: Check[] = [
      { type: 'regex', value: 'pretendard', flags: 'i' },
      { type: 'not_regex', value: 'Arial' },
      { type: 'regex', value: '^\\d+$' },
    ];
    expect(await scoreOutput('Use Pretendard', checks, runner)).toEqual({ passed: 2, checkPass: [true, true, false] });
  });
});

describe('answerText', () => {
  it('drops reasoning so a font named only while thinking does not fail not_icontains', async () => {
    const answer = answerText('<think>Arial would be the usual pick, but…</think>Use Pretendard');
    expect(answer).toBe('Use Pretendard');
    const checks: Check[] = [
      { type: 'not_icontains', value: 'Arial' },
      { type: 'icontains', value: 'pretendard' },
    ];
    expect(await scoreOutput(answer, checks, inlineRegexRunner)).toEqual({ passed: 2, checkPass: [true, true] });
  });

  it('removes think and thinking blocks anywhere, in any letter case', () => {
    expect(answerText('A<thinking>x\ny</thinking> B <THINK>z</THINK>C')).toBe('A B C');
  });

  it('removes an unclosed reasoning block at the start (the reply ran out while thinking)', () => {
    expect(answerText('\n<think>Arial? Maybe Helvetica')).toBe('');
  });

  it('removes reasoning whose opening tag was in the prompt template', () => {
    expect(answerText('Arial is common.\n</think>\n\nUse Pretendard')).toBe('Use Pretendard');
  });

  it('removes text-protocol tool calls, closed or cut off', () => {
    expect(answerText('Let me check.<tool_call>{"name": "x", "arguments": {}}</tool_call> Done.')).toBe('Let me check. Done.');
    expect(answerText('Answer first.\n<tool_call>{"name": "x"')).toBe('Answer first.');
  });

  it('turns CRLF into LF, normalises to NFC and trims', () => {
    expect(answerText(`  line 1\r\nline 2 ${NFD_CAFE}\r\n`)).toBe(`line 1\nline 2 ${NFC_CAFE}`);
  });

  it('leaves an answer without any of these untouched apart from trimming', () => {
    expect(answerText('Plain answer with <b>tags</b>.')).toBe('Plain answer with <b>tags</b>.');
  });
});

describe('checkProblems', () => {
  const problemOf = (check: unknown) => checkProblems(check)[0]?.message ?? null;

  it('accepts well-formed checks of every type', () => {
    const checks: Check[] = [
      { type: 'contains', value: 'x' },
      { type: 'icontains_all', value: ['a', 'b'] },
      { type: 'regex', value: 'x+', flags: 'iu' },
      { type: 'is_json' },
      { type: 'length', value: { min: 0 } },
    ];
    for (const check of checks) expect(checkProblems(check)).toEqual([]);
  });

  it('names unknown types and lists the known ones', () => {
    expect(problemOf({ type: 'similar', value: 'x' })).toMatch(/type 'similar' is not a check type; use one of contains, /);
    expect(problemOf({ value: 'x' })).toMatch(/type missing/);
    expect(problemOf('contains')).toMatch(/must be an object/);
  });

  it('limits values to 1–500 characters, counted in code points', () => {
    expect(problemOf({ type: 'contains', value: '' })).toMatch(/empty/);
    expect(problemOf({ type: 'contains', value: 'x'.repeat(501) })).toMatch(/501 characters; the limit is 500/);
    expect(problemOf({ type: 'contains', value: '👍'.repeat(500) })).toBeNull();
    expect(problemOf({ type: 'contains', value: 3 })).toMatch(/must be a string/);
  });

  it('limits regex patterns to 500 characters, flagged as a regex problem', () => {
    const [problem] = checkProblems({ type: 'not_regex', value: 'a'.repeat(501) });
    expect(problem).toMatchObject({ field: 'value', regex: true });
  });

  it('wants lists of 1–20 strings for *_any and *_all', () => {
    expect(problemOf({ type: 'contains_any', value: [] })).toMatch(/0 items; give 1 to 20/);
    expect(problemOf({ type: 'contains_all', value: Array.from({ length: 21 }, (_, i) => `v${i}`) })).toMatch(/21 items/);
    expect(checkProblems({ type: 'icontains_any', value: ['ok', ''] })[0]).toMatchObject({ field: 'value[1]' });
  });

  it('wants {min?, max?} whole numbers for length', () => {
    expect(problemOf({ type: 'length', value: 40 })).toMatch(/must be an object/);
    expect(problemOf({ type: 'length', value: {} })).toMatch(/needs min, max or both/);
    expect(problemOf({ type: 'length', value: { min: 1.5 } })).toMatch(/whole number/);
    expect(problemOf({ type: 'length', value: { min: 9, max: 3 } })).toMatch(/larger than value.max/);
    expect(problemOf({ type: 'length', value: { max: 3, exact: 3 } })).toMatch(/unknown key 'exact'/);
  });

  it('refuses flags on non-regex checks and a value on is_json', () => {
    expect(checkProblems({ type: 'contains', value: 'x', flags: 'i' })[0]).toMatchObject({ field: 'flags' });
    expect(problemOf({ type: 'is_json', value: { type: 'object' } })).toMatch(/takes no value/);
  });
});

describe('normalizeCheckType', () => {
  it.each([
    ['not-contains', 'not_contains'],
    ['icontains-any', 'icontains_any'],
    ['contains-all', 'contains_all'],
    ['starts-with', 'starts_with'],
    ['ends-with', 'ends_with'],
    ['is-json', 'is_json'],
    ['not-regex', 'not_regex'],
    ['ICONTAINS', 'icontains'],
    ['not_icontains', 'not_icontains'],
  ])('%s → %s', (name, expected) => {
    expect(normalizeCheckType(name)).toBe(expected);
  });

  it('returns null for names that are no check type', () => {
    expect(normalizeCheckType('llm-rubric')).toBeNull();
    expect(normalizeCheckType(undefined)).toBeNull();
  });
});

describe('runRegexJob', () => {
  it('matches, refuses disallowed flags itself and reports a compile error', () => {
    expect(runRegexJob({ pattern: 'b', flags: '', text: 'abc' })).toEqual({ ok: true, match: true });
    expect(runRegexJob({ pattern: 'b', flags: 'g', text: 'abc' })).toMatchObject({ ok: false, reason: expect.stringMatching(/'g' is not allowed/) });
    expect(runRegexJob({ pattern: '[', flags: '', text: 'abc' })).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid regex/) });
  });
});
