/** Canonical JSON: the byte-exact serialisation every gate hash is taken of. */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/gate/canonicalJson';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it('does not depend on the order keys were inserted', () => {
    const one = { prompt: 'p', messages: [], files: [{ path: 'a', sha256: 'h' }] };
    const two = { files: [{ sha256: 'h', path: 'a' }], messages: [], prompt: 'p' };
    expect(canonicalJson(one)).toBe(canonicalJson(two));
  });

  it('keeps array order, escapes strings as JSON does and leaves undefined properties out', () => {
    expect(canonicalJson([2, 1])).toBe('[2,1]');
    expect(canonicalJson({ s: 'line\n"quote" é', u: undefined })).toBe('{"s":"line\\n\\"quote\\" é"}');
    expect(canonicalJson('')).toBe('""');
    expect(canonicalJson(-0.5)).toBe('-0.5');
  });

  it('sorts keys by code unit, not by locale', () => {
    expect(canonicalJson({ b: 1, B: 2, á: 3, a: 4 })).toBe('{"B":2,"a":4,"b":1,"á":3}');
  });

  it('refuses values with no faithful JSON form instead of writing null', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, Symbol('s'), undefined, [undefined], new Date(0), new Map()]) {
      expect(() => canonicalJson(bad)).toThrow(TypeError);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    expect(canonicalJson({ x: shared, y: [shared] })).toBe('{"x":{"a":1},"y":[{"a":1}]}');
  });
});
