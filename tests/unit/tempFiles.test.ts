import { describe, expect, it } from 'vitest';
import { TEMP_SUFFIX, parentOf } from '../../src/storage/fileStore';
import { FixedLiveness } from '../../src/storage/liveness';
import { MemoryFileStore } from '../../src/storage/memoryFileStore';
import { isTempPath, sweepTempFiles, tempOwner, tempPathFor } from '../../src/storage/tempFiles';

describe('temp files', () => {
  it('live next to their target and name their owner', () => {
    const temp = tempPathFor('skills/git/SKILL.v2.md', 'ownerA', 'x1');
    expect(temp).toBe(`skills/git/SKILL.v2.md.ownerA.x1${TEMP_SUFFIX}`);
    expect(parentOf(temp)).toBe('skills/git');
    expect(isTempPath(temp)).toBe(true);
    expect(tempOwner(temp)).toBe('ownerA');
    expect(tempOwner('skills/git/SKILL.md')).toBeNull();
    expect(tempOwner(`x${TEMP_SUFFIX}`)).toBeNull();
    expect(tempOwner(`${temp}.crswap`)).toBe('ownerA');
    expect(isTempPath(`${temp}.crswap`)).toBe(true);
    expect(isTempPath('skills/git/SKILL.md.crswap')).toBe(false);
  });

  it('the sweep spares live writers and in-flight files only', async () => {
    const files = new MemoryFileStore();
    const liveness = new FixedLiveness('me', ['otherTab']);
    const paths = {
      dead: tempPathFor('skills/a/SKILL.md', 'deadTab', 't1'),
      live: tempPathFor('skills/a/SKILL.md', 'otherTab', 't2'),
      mineIdle: tempPathFor('skills/b/SKILL.md', 'me', 't3'),
      mineBusy: tempPathFor('skills/b/SKILL.md', 'me', 't4'),
      anonymous: `memories/MEMORY.md${TEMP_SUFFIX}`,
      deadSwap: `${tempPathFor('skills/c/SKILL.md', 'deadTab', 't5')}.crswap`,
      busySwap: `${tempPathFor('skills/b/SKILL.md', 'me', 't4')}.crswap`,
      liveSwap: `${tempPathFor('skills/c/SKILL.md', 'otherTab', 't6')}.crswap`,
      foreignSwap: 'skills/c/notes.md.crswap',
      real: 'skills/a/SKILL.md',
    };
    for (const path of Object.values(paths)) await files.write(path, 'x');
    liveness.markInUse(paths.mineBusy);
    const swept = await sweepTempFiles(files, liveness);
    expect(swept).toEqual([paths.anonymous, paths.dead, paths.deadSwap, paths.mineIdle].sort());
    expect(await files.walk('')).toEqual(
      [paths.live, paths.mineBusy, paths.busySwap, paths.liveSwap, paths.foreignSwap, paths.real].sort(),
    );
  });
});
