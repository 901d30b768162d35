/** The one function that turns a stored verdict into what the skill index shows. */
import { describe, expect, it } from 'vitest';
import type { IndexLabel } from '../../../src/gate/types';
import { verdictLabel, type LabelInput } from '../../../src/gate/verdictLabel';

const ROWS: [string, LabelInput, IndexLabel][] = [
  ['promoted and fresh', { verdict: 'promoted', fresh: true }, '[verified]'],
  ['promoted, then edited', { verdict: 'promoted', fresh: false }, '[unverified]'],
  ['staged', { verdict: 'staged', fresh: true }, '[unverified]'],
  ['staged and stale', { verdict: 'staged', fresh: false }, '[unverified]'],
  ['never run', { verdict: null, fresh: false }, '[unverified]'],
  ['never run (fresh flag ignored)', { verdict: null, fresh: true }, '[unverified]'],
  ['rejected', { verdict: 'rejected', fresh: true }, null],
  ['rejected, then edited (not measured yet)', { verdict: 'rejected', fresh: false }, '[unverified]'],
  ['staged and approved by the user', { verdict: 'staged', fresh: true, approvedBy: 'user' }, '[approved]'],
  ['approved, then edited', { verdict: 'staged', fresh: false, approvedBy: 'user' }, '[unverified]'],
  ['promoted and approved', { verdict: 'promoted', fresh: true, approvedBy: 'user' }, '[verified]'],
  ['approval does not bring back a rejected skill', { verdict: 'rejected', fresh: true, approvedBy: 'user' }, null],
];

describe('verdictLabel', () => {
  it.each(ROWS)('%s', (_name, input, label) => {
    expect(verdictLabel(input)).toBe(label);
  });

  it('never labels an approved skill [verified]', () => {
    for (const fresh of [true, false]) expect(verdictLabel({ verdict: 'staged', fresh, approvedBy: 'user' })).not.toBe('[verified]');
  });
});
