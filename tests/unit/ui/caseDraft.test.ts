import { describe, expect, it } from 'vitest';
import type { CheckType, EvalCase } from '../../../src/gate/types';
import {
  boundsFrom,
  CHECK_TYPES,
  checkErrors,
  cleanCase,
  convertCheck,
  listText,
  newCase,
  nextCaseId,
  normaliseErrorKeys,
  otherErrors,
  textList,
  toggleFlag,
  valueKind,
} from '../../../src/ui/components/gate/caseDraft';

describe('case editor helpers', () => {
  it('offers every check type exactly once, each with an input kind', () => {
    const all: CheckType[] = [
      'contains', 'not_contains', 'icontains', 'not_icontains', 'contains_any', 'icontains_any', 'contains_all',
      'icontains_all', 'regex', 'not_regex', 'equals', 'starts_with', 'ends_with', 'is_json', 'length',
    ];
    expect([...CHECK_TYPES].sort()).toEqual([...all].sort());
    expect(valueKind('icontains_any')).toBe('list');
    expect(valueKind('contains_all')).toBe('list');
    expect(valueKind('not_regex')).toBe('pattern');
    expect(valueKind('length')).toBe('bounds');
    expect(valueKind('is_json')).toBe('none');
    expect(valueKind('ends_with')).toBe('text');
  });

  it('keeps what it can of a value when the type changes', () => {
    expect(convertCheck({ type: 'icontains', value: 'Pretendard' }, 'contains_any')).toEqual({ type: 'contains_any', value: ['Pretendard'] });
    expect(convertCheck({ type: 'contains_all', value: ['a', 'b'] }, 'equals')).toEqual({ type: 'equals', value: 'a' });
    expect(convertCheck({ type: 'contains_all', value: ['a', 'b'] }, 'icontains_any')).toEqual({ type: 'icontains_any', value: ['a', 'b'] });
    expect(convertCheck({ type: 'regex', value: '^a', flags: 'i' }, 'not_regex')).toEqual({ type: 'not_regex', value: '^a', flags: 'i' });
    expect(convertCheck({ type: 'regex', value: '^a', flags: 'i' }, 'contains')).toEqual({ type: 'contains', value: '^a' });
    expect(convertCheck({ type: 'contains', value: 'x' }, 'is_json')).toEqual({ type: 'is_json' });
    expect(convertCheck({ type: 'contains', value: 'x' }, 'length')).toEqual({ type: 'length', value: {} });
    expect(convertCheck({ type: 'is_json' }, 'icontains_all')).toEqual({ type: 'icontains_all', value: [''] });
  });

  it('writes regex flags from the allowed set only, in a fixed order', () => {
    expect(toggleFlag(undefined, 'i', true)).toBe('i');
    expect(toggleFlag('u', 'i', true)).toBe('iu');
    expect(toggleFlag('imu', 'm', false)).toBe('iu');
    expect(toggleFlag('i', 'g', true)).toBe('i');
  });

  it('round-trips list text while typing and drops blank lines when cleaning', () => {
    expect(listText(['a', 'b', ''])).toBe('a\nb\n');
    expect(textList('a\nb\n')).toEqual(['a', 'b', '']);
    const draft: EvalCase = {
      id: 1,
      prompt: 'p',
      expected_output: '',
      expectations: ['x', ' '],
      checks: [{ type: 'contains_any', value: ['a', '', 'b'] }, { type: 'icontains', value: 'c' }],
      custom: { kept: true },
    };
    expect(cleanCase(draft)).toEqual({
      id: 1,
      prompt: 'p',
      expectations: ['x'],
      checks: [{ type: 'contains_any', value: ['a', 'b'] }, { type: 'icontains', value: 'c' }],
      custom: { kept: true },
    });
    expect(draft.checks?.[0].value).toEqual(['a', '', 'b']);
  });

  it('reads length bounds from number inputs, leaving an empty one out', () => {
    expect(boundsFrom({}, 'min', '10')).toEqual({ min: 10 });
    expect(boundsFrom({ min: 10, max: 20 }, 'min', '')).toEqual({ max: 20 });
    expect(boundsFrom(undefined, 'max', 'x')).toEqual({});
  });

  it('numbers new cases after the largest integer id', () => {
    expect(nextCaseId([])).toBe(1);
    expect(nextCaseId([{ id: 3, prompt: '' }, { id: 'named', prompt: '' }, { id: 7, prompt: '' }])).toBe(8);
    const fresh = newCase([{ id: 1, prompt: 'a' }], '2026-12-01T10:00:00Z');
    expect(fresh).toEqual({ id: 2, prompt: '', checks: [{ type: 'icontains', value: '' }], knack: { origin: 'user', created_at: '2026-12-01T10:00:00Z' } });
  });

  it('files validator messages under the fields the form shows, whatever the key style', () => {
    const errors = normaliseErrorKeys({ 'checks[1].value': 'empty', prompt: 'required', 'checks.0.flags': 'g refused', files: 'missing', blank: '' });
    expect(errors).toEqual({ 'checks.1.value': 'empty', prompt: 'required', 'checks.0.flags': 'g refused', files: 'missing' });
    expect(checkErrors(errors, 1)).toEqual(['empty']);
    expect(checkErrors(errors, 0)).toEqual(['g refused']);
    expect(otherErrors(errors, 2)).toEqual(['files: missing']);
    expect(otherErrors({ 'checks.5.value': 'x' }, 2)).toEqual(['checks.5.value: x']);
  });
});
