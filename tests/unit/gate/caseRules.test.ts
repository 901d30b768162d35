import { describe, expect, it } from 'vitest';
import { caseFieldProblems, caseLint, validateCaseDraft } from '../../../src/gate/caseRules';
import { validateCaseDraft as reexported } from '../../../src/gate/evalCases';

const DRAFT = {
  id: 1,
  prompt: 'Pick a font for the caption of diagram A.',
  checks: [{ type: 'icontains', value: 'Pretendard' }],
};

describe('validateCaseDraft', () => {
  it('is what evalCases exports for the editor', () => {
    expect(reexported).toBe(validateCaseDraft);
  });

  it('accepts a good draft with no errors or warnings', () => {
    expect(validateCaseDraft(DRAFT)).toEqual({ valid: true, errors: {}, warnings: {} });
  });

  it('gives one error per field, keyed by the field', () => {
    const result = validateCaseDraft({
      id: '',
      prompt: '',
      checks: [
        { type: 'regex', value: 'a', flags: 'g' },
        { type: 'icontains_all', value: ['ok', ''] },
        { type: 'length', value: { min: 5, max: 2 } },
      ],
      messages: [{ role: 'user' }],
    });
    expect(result.valid).toBe(false);
    expect(Object.keys(result.errors)).toEqual(['id', 'prompt', 'messages[0].content', 'checks[0].flags', 'checks[1].value[1]', 'checks[2].value']);
    expect(result.errors['checks[0].flags']).toMatch(/flag 'g' is refused/);
  });

  it('refuses an id used by another case of the file', () => {
    const result = validateCaseDraft(DRAFT, { others: [{ id: 1, prompt: 'Something else.' }, { id: 2, prompt: 'x' }] });
    expect(result.errors).toEqual({ id: 'id 1 is already used by another case; pick another.' });
  });

  it('warns, without blocking, about a repeated prompt and weak checks', () => {
    const result = validateCaseDraft(
      { ...DRAFT, checks: [{ type: 'not_contains', value: 'Arial' }] },
      { others: [{ id: 2, prompt: ` ${DRAFT.prompt}` }] },
    );
    expect(result.valid).toBe(true);
    expect(result.errors).toEqual({});
    expect(Object.keys(result.warnings)).toEqual(['checks', 'prompt']);
  });

  it('says a draft that is not an object is not a case', () => {
    expect(validateCaseDraft(null)).toEqual({ valid: false, errors: { '': expect.stringMatching(/must be an object/) }, warnings: {} });
  });
});

describe('caseFieldProblems and caseLint', () => {
  it('checks provenance fields', () => {
    expect(caseFieldProblems({ ...DRAFT, knack: { source: 'yes' } })).toEqual([{ field: 'knack.source', message: 'source must be true or false.' }]);
    expect(caseFieldProblems({ ...DRAFT, knack: { origin: 'user', created_at: 5 } })).toEqual([
      { field: 'knack.created_at', message: 'created_at must be a string.' },
    ]);
  });

  it('lints an empty-matching regex but not a case with a positive check', () => {
    expect(caseLint({ ...DRAFT, checks: [{ type: 'icontains', value: 'Pretendard' }, { type: 'regex', value: 'a?' }] })).toEqual([
      { field: 'checks[1].value', message: expect.stringMatching(/always passes/) },
    ]);
  });
});
