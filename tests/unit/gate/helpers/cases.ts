/** Fixture builders for the gate's unit tests. */
import { createHash } from 'node:crypto';
import type { ScorableCase } from '../../../../src/gate/types';

export const sha256OfText = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A scorable case asking question `i`, with one check; fields can be overridden. */
export function scorableCase(i: number, overrides: Partial<ScorableCase> = {}): ScorableCase {
  return {
    id: i,
    prompt: `Question ${i}: which font should caption ${i} use?`,
    messages: [],
    files: [],
    checks: [{ type: 'icontains', value: 'Pretendard' }],
    source: false,
    ...overrides,
  };
}

export const scorableCases = (n: number) => Array.from({ length: n }, (_, i) => scorableCase(i + 1));

/** The tests' one seeded PRNG (mulberry32): the same seed gives the same stream on every run. */
export { prng as mulberry32 } from '../../../fixtures/seededRandom';

export function shuffled<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}
