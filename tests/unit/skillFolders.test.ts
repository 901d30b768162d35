/**
 * Which folders of an archive are skills and which files are theirs (src/skills/skillFolders.ts):
 * nested skills travel inside the outermost one, a SKILL.md under a support folder is a file,
 * and a root SKILL.md owns everything.
 */
import { describe, expect, it } from 'vitest';
import { findSkillFolders, groupBySkillFolder, refusedSkillEntries } from '../../src/skills/skillFolders';
import type { ZipFile } from '../../src/skills/zipArchive';

const file = (path: string): ZipFile => ({ path, bytes: new Uint8Array() });

describe('archive skill folders', () => {
  const paths = [
    'pack/alpha/SKILL.md',
    'pack/alpha/references/guide.md',
    'pack/alpha/references/copy/SKILL.md',
    'pack/alpha/child/SKILL.md',
    'pack/alpha/child/scripts/run.sh',
    'pack/beta/SKILL.md',
    'pack/README.md',
  ];

  it('finds skill folders outermost first; a SKILL.md under a support folder is a file', () => {
    expect(findSkillFolders(paths)).toEqual(['pack/alpha', 'pack/beta', 'pack/alpha/child']);
  });

  it('gives each outermost skill its files and nested skills, relative to it, in archive order', () => {
    const { outermost, filesOf, nestedOf } = groupBySkillFolder(paths.map(file), findSkillFolders(paths));
    expect(outermost).toEqual(['pack/alpha', 'pack/beta']);
    expect(filesOf.get('pack/alpha')!.map((f) => f.path)).toEqual(['SKILL.md', 'references/guide.md', 'references/copy/SKILL.md', 'child/SKILL.md', 'child/scripts/run.sh']);
    expect(filesOf.get('pack/beta')!.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(nestedOf.get('pack/alpha')).toEqual(['child']);
    expect(nestedOf.get('pack/beta')).toEqual([]);
  });

  it('a SKILL.md at the root owns every file, and every other skill is nested in it', () => {
    const rooted = ['SKILL.md', 'docs/a.md', 'tools/x/SKILL.md', 'sub/SKILL.md', 'sub/deeper/SKILL.md'];
    const { outermost, filesOf, nestedOf } = groupBySkillFolder(rooted.map(file), findSkillFolders(rooted));
    expect(outermost).toEqual(['']);
    expect(filesOf.get('')!.map((f) => f.path)).toEqual(rooted);
    expect(nestedOf.get('')).toEqual(['sub', 'sub/deeper']);
  });

  it('a refused SKILL.md that would have made a skill of its own is reported once per folder', () => {
    const folders = new Set(['pack/alpha']);
    const refused = refusedSkillEntries(
      [
        { path: 'pack/gamma/SKILL.md', reason: 'bad checksum' },
        { path: 'pack/alpha/references/SKILL.md', reason: 'bad checksum' },
        { path: 'pack/alpha/SKILL.md', reason: 'duplicate' },
      ],
      folders,
    );
    expect(refused).toEqual([{ path: 'pack/gamma/SKILL.md', reason: 'bad checksum', folder: 'pack/gamma' }]);
  });
});
