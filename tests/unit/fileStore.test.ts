import { describe, expect, it } from 'vitest';
import { baseName, joinPath, parentOf, splitPath, toBytes } from '../../src/storage/fileStore';

describe('path helpers', () => {
  it('split, join, parent and base name', () => {
    expect(splitPath('/skills//git/./SKILL.md')).toEqual(['skills', 'git', 'SKILL.md']);
    expect(joinPath('skills/', '/git', 'SKILL.md')).toBe('skills/git/SKILL.md');
    expect(parentOf('skills/git/SKILL.md')).toBe('skills/git');
    expect(parentOf('SKILL.md')).toBe('');
    expect(baseName('skills/git/SKILL.md')).toBe('SKILL.md');
    expect(baseName('')).toBe('');
    expect(toBytes('é')).toEqual(new Uint8Array([0xc3, 0xa9]));
  });
});
