import { describe, expect, it } from 'vitest';
import { formatBytes, formatShare, occurrenceKeys } from '../../../src/ui/format';

describe('storage figures', () => {
  it('formats byte counts in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024 ** 3)).toBe('10 GB');
    expect(formatBytes(Number.NaN)).toBe('unknown');
    expect(formatBytes(-1)).toBe('unknown');
  });

  it('formats the share of quota, never rounding real usage down to 0%', () => {
    expect(formatShare(0, 100)).toBe('0%');
    expect(formatShare(1, 10_000)).toBe('< 1%');
    expect(formatShare(50, 100)).toBe('50%');
    expect(formatShare(5, 0)).toBe('unknown');
  });
});

describe('occurrence keys', () => {
  it('makes repeated texts distinct and keeps the key of a text when an earlier different one goes', () => {
    const keys = occurrenceKeys(['tea', 'coffee', 'tea', 'tea']);
    expect(new Set(keys).size).toBe(4);
    expect(occurrenceKeys(['coffee', 'tea'])[1]).toBe(keys[0]);
    expect(occurrenceKeys(['tea', 'tea'])).toEqual(keys.filter((_, i) => i !== 1).slice(0, 2));
  });
});
