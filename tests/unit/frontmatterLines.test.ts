/**
 * The `key: value` line reader that shows a skill whose frontmatter YAML does not parse
 * (frontmatterLines.ts), and what the catalogue, the index and skill_manage make of such a file.
 */
import { describe, expect, it } from 'vitest';
import { readFrontmatterLines } from '../../src/skills/frontmatterLines';
import { readSkillMeta } from '../../src/skills/skillDocument';
import { entryFromSkillMd } from '../../src/skills/skillCatalog';
import { validateFrontmatter } from '../../src/skills/validation';

describe('readFrontmatterLines', () => {
  it('reads top-level key: value lines, splitting at the first colon', () => {
    expect(readFrontmatterLines('name: deploy\ndescription: Use when: deploying: to prod\n')).toEqual({
      name: 'deploy',
      description: 'Use when: deploying: to prod',
    });
  });

  it('keeps values as written: no typing, only outer quotes and trailing comments removed', () => {
    expect(readFrontmatterLines('a: yes\nb: 0755\nc: 2026-01-02\nd: "quoted: value"\ne: \'single\'\nf: text # note\ng: C# and F#\nh: "x" # c')).toEqual({
      a: 'yes', b: '0755', c: '2026-01-02', d: 'quoted: value', e: 'single', f: 'text', g: 'C# and F#', h: '"x"',
    });
  });

  it('skips comments, blank, indented and list lines, and keys without a value', () => {
    const raw = '# comment\n\nname: x\nmetadata:\n  hermes:\n    tags: [a, b]\n- item\n  indented: no\ntags: [a, b]\n';
    expect(readFrontmatterLines(raw)).toEqual({ name: 'x', tags: '[a, b]' });
  });

  it('reads | and > block values from the indented lines below them', () => {
    expect(readFrontmatterLines('description: |\n  first: line\n  second line\n\nname: x')).toEqual({ description: 'first: line\nsecond line', name: 'x' });
    expect(readFrontmatterLines('description: >-\n  folded: one\n  two\n\n  three\nname: x')).toEqual({ description: 'folded: one two\n\nthree', name: 'x' });
  });

  it('handles CRLF, repeated keys (last wins) and URLs that are not keys', () => {
    expect(readFrontmatterLines('name: a\r\nname: b\r\nhttps://example.org/x\r\nurl: https://example.org/y\r\n')).toEqual({ name: 'b', url: 'https://example.org/y' });
  });

  it('a __proto__ key stays plain data', () => {
    const read = readFrontmatterLines('__proto__: polluted\nname: x');
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.keys(read)).toEqual(['__proto__', 'name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads nothing from text without key: value lines', () => {
    expect(readFrontmatterLines('')).toEqual({});
    expect(readFrontmatterLines('just text\n  : [\n')).toEqual({});
  });
});

describe('a SKILL.md whose YAML breaks', () => {
  const BROKEN = '---\nname: deploy-helper\ndescription: Use when: deploying to prod\ntags: [deploy, ops]\nsee: [unclosed\n---\n# Deploy\n\nSteps.\n';

  it('keeps its name, description and tags in the catalogue and index, with the problem noted', () => {
    const meta = readSkillMeta(BROKEN);
    expect(meta).toMatchObject({ name: 'deploy-helper', description: 'Use when: deploying to prod', tags: ['deploy', 'ops'], body: '# Deploy\n\nSteps.\n' });
    expect(meta.error).toBeUndefined();
    expect(meta.yamlProblem).toMatch(/key: value lines/);
    const entry = entryFromSkillMd('skills/devops/deploy-helper', BROKEN);
    expect(entry).toMatchObject({ name: 'deploy-helper', category: 'devops', frontmatterName: 'deploy-helper', description: 'Use when: deploying to prod' });
    expect(entry.parseError).toBeUndefined();
  });

  it('is still refused as a write through skill_manage', () => {
    expect(validateFrontmatter(BROKEN)).toMatch(/^YAML frontmatter parse error: /);
  });

  it('a file without frontmatter still reports the error', () => {
    expect(readSkillMeta('# Only a heading\n\nText.\n')).toMatchObject({ name: null, description: null, error: expect.stringMatching(/frontmatter fence/) });
  });
});
