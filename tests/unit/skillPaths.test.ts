import { describe, expect, it } from 'vitest';
import { guessSkillDir, relativeToSkill, skillDirOfPath, skillDirsOf, skillFileList } from '../../src/skills/skillPaths';

// A skill with nested folders outside the support folders, two files of the same name and a
// nested skill (its own catalogue entry) with a nested skill of its own.
const DIR = 'skills/tools/pdf';
const WALKED = [
  `${DIR}/SKILL.md`,
  `${DIR}/agents/openai.yaml`,
  `${DIR}/references/notes.md`,
  `${DIR}/templates/notes.md`,
  `${DIR}/deep/a/b/c.txt`,
  `${DIR}/forms/SKILL.md`,
  `${DIR}/forms/references/fields.md`,
  `${DIR}/forms/inner/SKILL.md`,
  `${DIR}/references/SKILL.md`,
];
const CATALOGUED = [DIR, `${DIR}/forms`, `${DIR}/forms/inner`, 'skills/tools/other'];

describe('skillFileList', () => {
  it('lists real relative paths, SKILL.md first, each once', () => {
    const { files } = skillFileList(DIR, WALKED, CATALOGUED);
    expect(files).toEqual(['SKILL.md', 'agents/openai.yaml', 'deep/a/b/c.txt', 'references/SKILL.md', 'references/notes.md', 'templates/notes.md']);
    expect(new Set(files).size).toBe(files.length);
  });

  it('leaves a nested skill’s files out and lists the outermost nested skill as a link', () => {
    const { files, nested } = skillFileList(DIR, WALKED, CATALOGUED);
    expect(files.some((path) => path.startsWith('forms/'))).toBe(false);
    expect(nested).toEqual(['forms']);
  });

  it('lists the nested skill’s own files from its folder', () => {
    expect(skillFileList(`${DIR}/forms`, WALKED, CATALOGUED)).toEqual({ files: ['SKILL.md', 'references/fields.md'], nested: ['inner'] });
  });

  it('ignores paths outside the folder and a folder that only shares a prefix', () => {
    expect(skillFileList('skills/a', ['skills/a/SKILL.md', 'skills/ab/SKILL.md', 'skills/b/x.md'], ['skills/a', 'skills/ab'])).toEqual({
      files: ['SKILL.md'],
      nested: [],
    });
  });
});

describe('the skill folder of a changed path', () => {
  it('takes the real folders from SKILL.md paths and known folders', () => {
    const dirs = skillDirsOf([`${DIR}/SKILL.md`, `${DIR}/forms/SKILL.md`, `${DIR}/agents/openai.yaml`], ['skills/git/git']);
    expect(dirs.sort()).toEqual(['skills/git/git', DIR, `${DIR}/forms`]);
  });

  it('keeps folders outside the support folders, and the outermost skill claims a nested one’s files', () => {
    const dirs = [DIR, `${DIR}/forms`];
    expect(relativeToSkill(`${DIR}/agents/openai.yaml`, dirs)).toBe('agents/openai.yaml');
    expect(relativeToSkill(`${DIR}/forms/SKILL.md`, dirs)).toBe('forms/SKILL.md');
    expect(relativeToSkill(`${DIR}/forms/SKILL.md`, [`${DIR}/forms`])).toBe('SKILL.md');
    expect(skillDirOfPath('skills/git/git/references/x.md', ['skills/git/git'])).toBe('skills/git/git');
  });

  it('falls back to the old guess only when no folder claims the path', () => {
    expect(guessSkillDir('skills/a/b/references/x.md')).toBe('skills/a/b');
    expect(skillDirOfPath('skills/a/b/references/x.md', ['skills/other'])).toBe('skills/a/b');
  });
});
