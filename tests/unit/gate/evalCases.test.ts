import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import {
  EVALS_LIMITS,
  lintEvalsFile,
  parseEvalsFile,
  scorableCases,
  serializeEvalsFile,
  validateEvalsFile,
  type ReadCaseFile,
} from '../../../src/gate/evalCases';
import type { EvalsFile } from '../../../src/gate/types';

const FONT_CASE = {
  id: 1,
  prompt: 'Pick a font for the caption of diagram A.',
  expected_output: 'Names the house font.',
  files: [],
  expectations: ['Names Pretendard as the font'],
  messages: [],
  checks: [
    { type: 'icontains', value: 'Pretendard' },
    { type: 'not_icontains', value: 'Arial' },
  ],
  knack: { origin: 'review', session_id: 's_1', created_at: '2026-12-01T10:00:00Z', run_id: 'rv_1', source: false },
};

function fileText(evals: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ skill_name: 'house-font', evals, ...extra }, null, 2);
}

function caseWith(fields: Record<string, unknown>, id: number | string = 1): Record<string, unknown> {
  return { ...FONT_CASE, id, prompt: `Pick a font for the caption of diagram ${id}.`, ...fields };
}

function parsed(text: string): EvalsFile {
  const result = parseEvalsFile(text);
  if (!result.ok) throw new Error(result.error);
  return result.file;
}

const noFiles: ReadCaseFile = async () => null;

function filesOf(entries: Record<string, string | Uint8Array>): ReadCaseFile {
  return async (path) => entries[path] ?? null;
}

async function errorsOf(text: string, readFile?: ReadCaseFile): Promise<string[]> {
  const result = await validateEvalsFile(text, { readFile });
  return result.ok ? [] : result.errors;
}

describe('parseEvalsFile', () => {
  it('reads the skill-creator shape with Knack fields', () => {
    const file = parsed(fileText([FONT_CASE]));
    expect(file.skill_name).toBe('house-font');
    expect(file.evals[0]).toEqual(FONT_CASE);
  });

  it('fails on broken JSON, a non-object, and a missing evals list, saying what to do', () => {
    expect(parseEvalsFile('{"evals": [')).toMatchObject({ ok: false, error: expect.stringMatching(/^evals\/evals.json is not valid JSON/) });
    expect(parseEvalsFile('[]')).toMatchObject({ ok: false, error: expect.stringMatching(/must be a JSON object/) });
    expect(parseEvalsFile('{"skill_name": "x"}')).toMatchObject({ ok: false, error: expect.stringMatching(/needs an "evals" list/) });
    expect(parseEvalsFile('{"evals": [1]}')).toMatchObject({ ok: false, error: expect.stringMatching(/^evals\[0\] must be an object/) });
  });

  it('accepts a leading byte-order mark', () => {
    expect(parseEvalsFile(`\uFEFF${fileText([FONT_CASE])}`).ok).toBe(true);
  });

  it('reads assertions as expectations, in the same key position', () => {
    const { expectations: _dropped, ...rest } = FONT_CASE;
    const withAssertions = { id: 1, prompt: rest.prompt, assertions: ['Names Pretendard'], checks: rest.checks };
    const item = parsed(fileText([withAssertions])).evals[0];
    expect(item.expectations).toEqual(['Names Pretendard']);
    expect(item.assertions).toBeUndefined();
    expect(Object.keys(item)).toEqual(['id', 'prompt', 'expectations', 'checks']);
  });

  it('keeps expectations when both names are present', () => {
    const item = parsed(fileText([{ ...FONT_CASE, assertions: ['other'] }])).evals[0];
    expect(item.expectations).toEqual(FONT_CASE.expectations);
    expect(item.assertions).toEqual(['other']);
  });

  it('maps promptfoo check names and splits their comma lists', () => {
    const checks = [
      { type: 'not-contains', value: 'Arial' },
      { type: 'icontains-any', value: 'Pretendard, Noto Sans KR' },
      { type: 'starts-with', value: 'Use' },
      { type: 'is-json' },
    ];
    expect(parsed(fileText([caseWith({ checks })])).evals[0].checks).toEqual([
      { type: 'not_contains', value: 'Arial' },
      { type: 'icontains_any', value: ['Pretendard', 'Noto Sans KR'] },
      { type: 'starts_with', value: 'Use' },
      { type: 'is_json' },
    ]);
  });

  it('keeps unknown fields at every level', () => {
    const text = fileText([caseWith({ weight: 2, checks: [{ type: 'contains', value: 'x', note: 'mine' }] })], { metadata: { by: 'me' } });
    const file = parsed(text);
    expect(file.metadata).toEqual({ by: 'me' });
    expect(file.evals[0].weight).toBe(2);
    expect(file.evals[0].checks?.[0]).toEqual({ type: 'contains', value: 'x', note: 'mine' });
  });
});

describe('serializeEvalsFile', () => {
  it('writes back an unedited file byte for byte (key order and unknown fields kept)', () => {
    const text = `${JSON.stringify({ zeta: true, evals: [{ prompt: 'p', id: 'b', custom: [1, { y: 2, x: 1 }] }], skill_name: 's' }, null, 2)}\n`;
    expect(serializeEvalsFile(parsed(text))).toBe(text);
  });

  it('writes an edit with the other fields untouched', () => {
    const file = parsed(fileText([FONT_CASE], { notes: 'keep me' }));
    file.evals[0].prompt = 'Pick a font for the legend.';
    const again = parsed(serializeEvalsFile(file));
    expect(again.notes).toBe('keep me');
    expect(again.evals[0]).toEqual({ ...FONT_CASE, prompt: 'Pick a font for the legend.' });
    expect(Object.keys(again.evals[0])).toEqual(Object.keys(FONT_CASE));
  });
});

describe('validateEvalsFile: limits', () => {
  it('accepts a good file and returns its lint warnings', async () => {
    const result = await validateEvalsFile(fileText([FONT_CASE, caseWith({}, 2)]));
    expect(result).toMatchObject({ ok: true, warnings: [] });
  });

  it('allows 100 cases and refuses 101', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => caseWith({}, i + 1));
    expect(await errorsOf(fileText(many(100)))).toEqual([]);
    expect(await errorsOf(fileText(many(101)))).toEqual(['evals: 101 cases; the limit is 100 per skill. Remove or merge some.']);
  });

  it('wants a prompt of 1 to 8,000 characters', async () => {
    expect(await errorsOf(fileText([caseWith({ prompt: '' })]))).toEqual([
      'evals[0].prompt: prompt is required: write the request a user would send.',
    ]);
    expect(await errorsOf(fileText([caseWith({ prompt: 'x'.repeat(8_000) })]))).toEqual([]);
    expect((await errorsOf(fileText([caseWith({ prompt: 'x'.repeat(8_001) })])))[0]).toMatch(
      /^evals\[0\]\.prompt: prompt is 8,001 characters; the limit is 8,000\. Shorten it/,
    );
  });

  it('allows 20 checks per case and refuses 21', async () => {
    const checks = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'contains', value: `v${i}` }));
    expect(await errorsOf(fileText([caseWith({ checks: checks(20) })]))).toEqual([]);
    expect(await errorsOf(fileText([caseWith({ checks: checks(21) })]))).toEqual([
      'evals[0].checks: 21 checks; the limit is 20 per case. Split the case in two.',
    ]);
  });

  it('names the field of a bad check value and says what to do', async () => {
    const errors = await errorsOf(fileText([FONT_CASE, caseWith({}, 2), caseWith({ checks: [{ type: 'contains', value: 'x'.repeat(501) }] }, 3)]));
    expect(errors).toEqual(['evals[2].checks[0].value: value is 501 characters; the limit is 500. Check for a shorter, distinctive phrase.']);
  });

  it('refuses regex patterns over 500 characters or that do not compile', async () => {
    const long = await errorsOf(fileText([caseWith({ checks: [{ type: 'regex', value: `a${'b'.repeat(500)}` }] })]));
    expect(long[0]).toMatch(/^evals\[0\]\.checks\[0\]\.value: value \(the pattern\) is 501 characters/);
    const broken = await errorsOf(fileText([caseWith({ checks: [{ type: 'regex', value: 'a(' }] })]));
    expect(broken[0]).toMatch(/^evals\[0\]\.checks\[0\]\.value: the pattern does not compile/);
  });

  it.each([
    ['g', /lastIndex between calls/],
    ['y', /anchors at lastIndex/],
    ['d', /only records match indices/],
    ['x', /unknown flag 'x'; allowed flags are i, m, s and u/],
  ])('refuses the regex flag %s and says why', async (flags, why) => {
    const errors = await errorsOf(fileText([caseWith({ checks: [{ type: 'regex', value: 'a', flags }] })]));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^evals\[0\]\.checks\[0\]\.flags: /);
    expect(errors[0]).toMatch(why);
  });

  it('refuses repeated ids, comparing numbers and strings apart', async () => {
    const errors = await errorsOf(fileText([caseWith({}, 1), caseWith({}, '1'), caseWith({ prompt: 'Another request.' }, 1)]));
    expect(errors).toEqual(['evals[2].id: id 1 is already used by evals[0]; give each case its own id.']);
  });

  it('checks types and value shapes', async () => {
    const checks = [
      { type: 'similar', value: 'x' },
      { type: 'icontains_any', value: [] },
      { type: 'contains_all', value: Array.from({ length: 21 }, (_, i) => `v${i}`) },
      { type: 'length', value: { min: 'short' } },
      { type: 'length', value: { max: 200 } },
    ];
    const errors = await errorsOf(fileText([caseWith({ checks })]));
    expect(errors.map((line) => line.split(':')[0])).toEqual([
      'evals[0].checks[0].type',
      'evals[0].checks[1].value',
      'evals[0].checks[2].value',
      'evals[0].checks[3].value',
    ]);
  });

  it('checks ids, messages, expectations and provenance', async () => {
    const errors = await errorsOf(
      fileText([
        caseWith({ id: undefined }),
        caseWith({ messages: [{ role: 'system', content: 'x' }] }, 2),
        caseWith({ expectations: 'Names Pretendard' }, 3),
        caseWith({ knack: { origin: 'robot' } }, 4),
      ]),
    );
    expect(errors.map((line) => line.split(':')[0])).toEqual([
      'evals[0].id',
      'evals[1].messages[0].role',
      'evals[2].expectations',
      'evals[3].knack.origin',
    ]);
  });

  it('wants case files to exist and be text of at most 100 KB', async () => {
    const readFile = filesOf({
      'evals/files/ok.md': '# notes',
      'evals/files/big.md': 'x'.repeat(EVALS_LIMITS.maxFileBytes + 1),
      'evals/files/image.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
      'evals/files/latin1.txt': new Uint8Array([0x63, 0x61, 0x66, 0xe9]),
    });
    const files = ['evals/files/ok.md', 'evals/files/missing.md', 'evals/files/big.md', 'evals/files/image.png', 'evals/files/latin1.txt'];
    const errors = await errorsOf(fileText([caseWith({ files })]), readFile);
    expect(errors).toEqual([
      "evals[0].files[1]: file 'evals/files/missing.md' does not exist in the skill folder; write it, or remove it from files.",
      expect.stringMatching(/^evals\[0\]\.files\[2\]: file 'evals\/files\/big\.md' is 102,401 bytes; a case file must be text of at most 100 KB/),
      expect.stringMatching(/^evals\[0\]\.files\[3\]: file 'evals\/files\/image\.png' is not UTF-8 text/),
      expect.stringMatching(/^evals\[0\]\.files\[4\]: file 'evals\/files\/latin1\.txt' is not UTF-8 text/),
    ]);
  });

  it('refuses file paths that leave the skill folder', async () => {
    const errors = await errorsOf(fileText([caseWith({ files: ['../other-skill/SKILL.md', '/etc/passwd'] })]), noFiles);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^evals\[0\]\.files\[0\]: Path traversal/);
    expect(errors[1]).toMatch(/^evals\[0\]\.files\[1\]: Absolute paths are not allowed/);
  });

  it('puts every problem, one per line, into the error the tool returns', async () => {
    const result = await validateEvalsFile(fileText([caseWith({ prompt: '' }), caseWith({ checks: [{ type: 'regex', value: 'a', flags: 'g' }] }, 2)]));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = result.error.split('\n');
    expect(lines[0]).toBe('evals/evals.json was not written: 2 problems.');
    expect(lines[1]).toMatch(/^- evals\[0\]\.prompt: /);
    expect(lines[2]).toMatch(/^- evals\[1\]\.checks\[0\]\.flags: /);
    expect(lines[3]).toBe('Fix them and write the whole file again.');
  });

  it('lists at most 12 problems and counts the rest', async () => {
    const evals = Array.from({ length: 15 }, (_, i) => caseWith({ prompt: '' }, i + 1));
    const result = await validateEvalsFile(fileText(evals));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toHaveLength(15);
      expect(result.error).toContain('- … and 3 more');
    }
  });

  it('passes a parse error through as the only error', async () => {
    const result = await validateEvalsFile('not json');
    expect(result).toMatchObject({ ok: false, errors: [expect.stringMatching(/not valid JSON/)] });
  });
});

describe('lint warnings', () => {
  const warningsOf = (evals: unknown[], skillName?: string) => lintEvalsFile(parsed(fileText(evals)), { skillName });

  it('warns about a regex that matches the empty string, not about ^$', () => {
    const checks = [
      { type: 'icontains', value: 'Pretendard' },
      { type: 'regex', value: 'x*' },
      { type: 'not_regex', value: '(?:)' },
      { type: 'regex', value: '^$' },
    ];
    expect(warningsOf([caseWith({ checks })])).toEqual([
      'evals[0].checks[1].value: the pattern matches the empty string, so this check always passes. Make it require some text.',
      'evals[0].checks[2].value: the pattern matches the empty string, so this check always fails. Make it require some text.',
    ]);
  });

  it('warns about a case whose checks are all negative', () => {
    const warnings = warningsOf([caseWith({ checks: [{ type: 'not_icontains', value: 'Arial' }, { type: 'not_regex', value: 'Helvetica' }] })]);
    expect(warnings).toEqual([expect.stringMatching(/^evals\[0\]\.checks: every check is negative/)]);
  });

  it('warns about two cases with the same prompt (NFC, spacing ignored)', () => {
    const warnings = warningsOf([
      caseWith({ prompt: 'Pick a font for the café menu.' }, 1),
      caseWith({ prompt: 'Pick a font for the cafe\u0301   menu. ' }, 2),
    ]);
    expect(warnings).toEqual([expect.stringMatching(/^evals\[1\]\.prompt: same prompt as evals\[0\]/)]);
  });

  it('warns about a positive check value copied from the prompt', () => {
    const warnings = warningsOf([
      caseWith({
        prompt: 'Should the caption use Pretendard or Arial?',
        checks: [
          { type: 'icontains', value: 'pretendard' },
          { type: 'not_icontains', value: 'Arial' },
          { type: 'contains', value: 'pretendard' },
          { type: 'icontains_all', value: ['caption', 'weight'] },
          { type: 'contains_any', value: ['Noto', 'Arial'] },
        ],
      }),
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^evals\[0\]\.checks\[0\]\.value: the value appears in the prompt/),
      expect.stringMatching(/^evals\[0\]\.checks\[4\]\.value: the value appears in the prompt/),
    ]);
  });

  it('warns about a case without checks and a skill_name that differs', () => {
    const warnings = warningsOf([caseWith({ checks: [] })], 'other-font');
    expect(warnings).toEqual([
      "skill_name: 'house-font' differs from the skill's name 'other-font'; set it to 'other-font'.",
      'evals[0].checks: no checks: this case is left out of verification until it has at least one.',
    ]);
  });

  it('has nothing to say about the design example', () => {
    expect(warningsOf([FONT_CASE], 'house-font')).toEqual([]);
  });

  it('reaches the write result', async () => {
    const result = await validateEvalsFile(fileText([caseWith({ checks: [{ type: 'not_contains', value: 'Arial' }] })]));
    expect(result).toMatchObject({ ok: true, warnings: [expect.stringMatching(/every check is negative/)] });
  });
});

describe('scorableCases', () => {
  it('inlines files with their SHA-256 and reads each path once', async () => {
    const readFile = vi.fn(filesOf({ 'evals/files/brief.md': 'hello' }));
    const file = parsed(fileText([caseWith({ files: ['evals/files/brief.md'] }, 1), caseWith({ files: ['evals/files/brief.md'] }, 2)]));
    const { cases, excluded } = await scorableCases(file, readFile);
    expect(excluded).toEqual([]);
    expect(cases[0].files).toEqual([
      { path: 'evals/files/brief.md', text: 'hello', sha256: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824' },
    ]);
    expect(readFile).toHaveBeenCalledTimes(1);
  });

  it('builds a scorable case from the design example', async () => {
    const { cases } = await scorableCases(parsed(fileText([FONT_CASE])), noFiles);
    expect(cases).toEqual([
      { id: 1, prompt: FONT_CASE.prompt, messages: [], files: [], checks: FONT_CASE.checks, source: false },
    ]);
  });

  it('keeps frozen messages and marks the teaching prompt as source', async () => {
    const messages = [
      { role: 'user', content: 'What did we pick last time?', extra: 1 },
      { role: 'assistant', content: 'Pretendard, per the style guide.' },
    ];
    const { cases } = await scorableCases(parsed(fileText([caseWith({ messages, knack: { origin: 'review', source: true } })])), noFiles);
    expect(cases[0].messages).toEqual([
      { role: 'user', content: 'What did we pick last time?' },
      { role: 'assistant', content: 'Pretendard, per the style guide.' },
    ]);
    expect(cases[0].source).toBe(true);
  });

  it('excludes each unscorable case with its reason, never with a score', async () => {
    const readFile = filesOf({ 'evals/files/blob.bin': new Uint8Array([0, 1, 2]), 'evals/files/big.md': 'x'.repeat(200_000) });
    const file = parsed(
      fileText([
        caseWith({ checks: [] }, 1),
        caseWith({ checks: undefined }, 2),
        caseWith({ checks: [{ type: 'similar', value: 'x' }] }, 3),
        caseWith({ checks: [{ type: 'icontains', value: 'x' }, { type: 'regex', value: '(' }] }, 4),
        caseWith({ files: ['evals/files/gone.md'] }, 5),
        caseWith({ files: ['evals/files/blob.bin'] }, 6),
        caseWith({ files: ['evals/files/big.md'] }, 7),
        caseWith({ prompt: '  ' }, 8),
        caseWith({ checks: [{ type: 'regex', value: 'a', flags: 'g' }] }, 9),
        caseWith({}, 10),
      ]),
    );
    const { cases, excluded } = await scorableCases(file, readFile);
    expect(cases.map((item) => item.id)).toEqual([10]);
    expect(excluded).toEqual([
      { id: 1, reason: expect.stringMatching(/^no checks: add at least one check/) },
      { id: 2, reason: expect.stringMatching(/^no checks/) },
      { id: 3, reason: expect.stringMatching(/^no valid checks \(checks\[0\]\.type: type 'similar' is not a check type/) },
      { id: 4, reason: expect.stringMatching(/^invalid regex in checks\[1\]: the pattern does not compile/) },
      { id: 5, reason: expect.stringMatching(/^file 'evals\/files\/gone\.md' does not exist/) },
      { id: 6, reason: expect.stringMatching(/is not UTF-8 text/) },
      { id: 7, reason: expect.stringMatching(/is 200,000 bytes; a case file must be text of at most 100 KB/) },
      { id: 8, reason: expect.stringMatching(/^prompt: prompt is required/) },
      { id: 9, reason: expect.stringMatching(/^invalid regex in checks\[0\]: flag 'g' is refused/) },
    ]);
  });

  it('leaves malformed checks out of a case that has valid ones, and says which', async () => {
    const checks = [{ type: 'icontains', value: 'Pretendard' }, { type: 'contains_any', value: 'Arial' }, { type: 'is_json' }];
    const { cases } = await scorableCases(parsed(fileText([caseWith({ checks })])), noFiles);
    expect(cases[0].checks).toEqual([{ type: 'icontains', value: 'Pretendard' }, { type: 'is_json' }]);
    expect(cases[0].ignoredChecks).toEqual([expect.stringMatching(/^checks\[1\]\.value: value must be a list of strings/)]);
  });

  it('does not exclude a case for a malformed expectation, which is never scored', async () => {
    const { cases } = await scorableCases(parsed(fileText([caseWith({ expectations: [3] })])), noFiles);
    expect(cases).toHaveLength(1);
  });

  it('excludes a repeated id and a case without an id, naming it by place', async () => {
    const file = parsed(fileText([caseWith({}, 1), caseWith({ prompt: 'Different.' }, 1), caseWith({ id: null }, 3)]));
    const { cases, excluded } = await scorableCases(file, noFiles);
    expect(cases.map((item) => item.id)).toEqual([1]);
    expect(excluded).toEqual([
      { id: 1, reason: 'id 1 is also used by evals[0]; give each case its own id.' },
      { id: 'evals[2]', reason: expect.stringMatching(/^id: id is required/) },
    ]);
  });

  it('excludes cases beyond the limit of 100', async () => {
    const file = parsed(fileText(Array.from({ length: 102 }, (_, i) => caseWith({}, i + 1))));
    const { cases, excluded } = await scorableCases(file, noFiles);
    expect(cases).toHaveLength(100);
    expect(excluded.map((item) => item.id)).toEqual([101, 102]);
    expect(excluded[0].reason).toMatch(/beyond the limit of 100 cases/);
  });

  it('scores promptfoo-named checks after import', async () => {
    const file = parsed(fileText([caseWith({ checks: [{ type: 'not-icontains', value: 'Arial' }] })]));
    const { cases } = await scorableCases(file, noFiles);
    expect(cases[0].checks).toEqual([{ type: 'not_icontains', value: 'Arial' }]);
  });
});

describe('docs/gate-cases.md', () => {
  it('shows an example file that is valid, lint-free and fully scorable', async () => {
    const doc = readFileSync(new URL('../../../docs/gate-cases.md', import.meta.url), 'utf8');
    const example = /## Example\n\n```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const result = await validateEvalsFile(example!, { readFile: noFiles, skillName: 'house-font' });
    expect(result).toMatchObject({ ok: true, warnings: [] });
    const { cases, excluded } = await scorableCases(parsed(example!), noFiles);
    expect(excluded).toEqual([]);
    expect(cases.map((item) => item.checks.length)).toEqual([2, 3]);
  });
});
