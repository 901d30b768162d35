/**
 * Frontmatter typing (frontmatterSchema.ts, docs/frontmatter.md): a value reads back as it was
 * written. Checked through `parseSkillFile`, the parser every reader and validator uses, and
 * through an edit that re-writes the frontmatter.
 */
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { parseSkillFile, setFrontmatterFields } from '../../src/skills/frontmatter';
import { FRONTMATTER_YAML_OPTIONS } from '../../src/skills/frontmatterSchema';
import { entryFromSkillMd } from '../../src/skills/skillCatalog';

function fields(yaml: string): Record<string, unknown> {
  const result = parseSkillFile(`---\nname: x\ndescription: d\n${yaml}\n---\nbody\n`);
  if (!result.ok) throw new Error(result.message);
  return result.frontmatter;
}

describe('values are typed so they read back as written', () => {
  it('yes/no/on/off and other YAML 1.1 booleans stay text', () => {
    expect(fields('a: yes\nb: no\nc: on\nd: off\ne: Yes\nf: NO\ng: y\nh: True\ni: FALSE')).toMatchObject({
      a: 'yes', b: 'no', c: 'on', d: 'off', e: 'Yes', f: 'NO', g: 'y', h: 'True', i: 'FALSE',
    });
  });

  it('true and false are booleans', () => {
    expect(fields('a: true\nb: false')).toMatchObject({ a: true, b: false });
  });

  it('octal, hexadecimal and other number spellings stay text', () => {
    expect(fields('a: 0755\nb: 0o755\nc: 0x1F\nd: 1.0\ne: 1e3\nf: +1\ng: .inf\nh: -.inf\ni: .nan\nj: 1_000\nk: -0\nl: 2.50')).toMatchObject({
      a: '0755', b: '0o755', c: '0x1F', d: '1.0', e: '1e3', f: '+1', g: '.inf', h: '-.inf', i: '.nan', j: '1_000', k: '-0', l: '2.50',
    });
  });

  it('numbers whose own text is what was written are numbers', () => {
    expect(fields('a: 12\nb: -3\nc: 1.5\nd: 0\ne: 0.25\nf: -0.5\ng: 123456789012345')).toMatchObject({ a: 12, b: -3, c: 1.5, d: 0, e: 0.25, f: -0.5, g: 123456789012345 });
  });

  it('numbers JavaScript cannot hold exactly stay text', () => {
    expect(fields('a: 12345678901234567890\nb: 0.1000000000000000055511')).toMatchObject({ a: '12345678901234567890', b: '0.1000000000000000055511' });
  });

  it('dates and times stay as written, never a Date or an ISO timestamp', () => {
    const fm = fields('a: 2026-01-02\nb: 2026-01-02T10:30:00Z\nc: 2026-01-02 10:30:00 +01:00\nd: !!timestamp 2026-01-02');
    expect(fm).toMatchObject({ a: '2026-01-02', b: '2026-01-02T10:30:00Z', c: '2026-01-02 10:30:00 +01:00', d: '2026-01-02' });
    for (const value of Object.values(fm)) expect(value).not.toBeInstanceOf(Date);
  });

  it('null, ~ and an empty value are no value', () => {
    expect(fields('a: null\nb: ~\nc:\nd: Null')).toMatchObject({ a: null, b: null, c: null, d: null });
  });

  it('explicit YAML 1.1 tags are not resolved: their values stay text', () => {
    expect(fields('a: !!binary aGk=\nb: !!int 0755\nc: !!bool yes\nd: !!float 1.0')).toMatchObject({ a: 'aGk=', b: '0755', c: 'yes', d: '1.0' });
  });

  it('a %YAML 1.1 directive does not switch the typing back', () => {
    // Inside a SKILL.md the directive's own `---` would close the frontmatter, so check the options directly.
    const doc = parseDocument('%YAML 1.1\n---\nflag: yes\nmode: 0755\nday: 2026-01-02\n', FRONTMATTER_YAML_OPTIONS);
    expect(doc.errors).toEqual([]);
    expect(doc.toJS()).toEqual({ flag: 'yes', mode: '0755', day: '2026-01-02' });
  });

  it('keys are typed the same way', () => {
    expect(Object.keys(fields('1.0: a\nyes: b\n0755: c'))).toEqual(expect.arrayContaining(['1.0', 'yes', '0755']));
  });

  it('nested values and lists follow the same rule', () => {
    expect(fields('metadata:\n  hermes:\n    version: 1.0\n    tags: [yes, 0755, 2026-01-02, 3]')).toMatchObject({
      metadata: { hermes: { version: '1.0', tags: ['yes', '0755', '2026-01-02', 3] } },
    });
  });

  it('re-writing the frontmatter leaves values as written and unquoted', () => {
    const content = '---\nname: x\ndescription: d\nversion: 1.0\nmode: 0755\nflag: yes\nday: 2026-01-02\nmetadata:\n  a: 1\n---\nbody\n';
    // A nested value forces the re-serialising path rather than the in-place splice.
    const edited = setFrontmatterFields(content, { metadata: { a: 2 } });
    if (!edited.ok) throw new Error(edited.message);
    expect(edited.content).toContain('version: 1.0\nmode: 0755\nflag: yes\nday: 2026-01-02\n');
    expect(edited.content).toContain('metadata:\n  a: 2\n');
  });

  it('the catalogue entry the index shows carries the text as written', () => {
    const entry = entryFromSkillMd('skills/ops/2026-01-02', '---\nname: 2026-01-02\ndescription: yes\ntags: [on, 0755]\n---\nbody\n');
    expect(entry).toMatchObject({ frontmatterName: '2026-01-02', description: 'yes', tags: ['on', '0755'] });
  });
});
