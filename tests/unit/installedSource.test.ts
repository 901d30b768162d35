import { describe, expect, it } from 'vitest';
import { skillContentHash } from '../../src/skills/installedSource';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('skillContentHash', () => {
  it('does not depend on the order files were read in', async () => {
    const a = new Map([['SKILL.md', bytes('a')], ['references/x.md', bytes('x')]]);
    const b = new Map([['references/x.md', bytes('x')], ['SKILL.md', bytes('a')]]);
    expect(await skillContentHash(a)).toBe(await skillContentHash(b));
    expect(await skillContentHash(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('changes with a byte, a path or a mode', async () => {
    const base = new Map([['SKILL.md', bytes('a')], ['scripts/run.sh', bytes('#!/bin/sh')]]);
    const hash = await skillContentHash(base);
    expect(await skillContentHash(new Map([['SKILL.md', bytes('b')], ['scripts/run.sh', bytes('#!/bin/sh')]]))).not.toBe(hash);
    expect(await skillContentHash(new Map([['SKILL.md', bytes('a')], ['scripts/go.sh', bytes('#!/bin/sh')]]))).not.toBe(hash);
    expect(await skillContentHash(base, new Map([['scripts/run.sh', 0o755]]))).not.toBe(hash);
    // An unrecorded mode counts as 0o644.
    expect(await skillContentHash(base, new Map([['scripts/run.sh', 0o644]]))).toBe(hash);
  });
});
