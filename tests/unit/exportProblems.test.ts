import { describe, expect, it } from 'vitest';
import { strToU8 } from 'fflate';
import { checkExportSkill, groupProblems, PROBLEM_KINDS, skillMdProblems, type ProblemKindId } from '../../src/skills/exportProblems';
import { generateCorpus } from '../fixtures/skillCorpus';
import { skillContent } from './helpers/skillTestEngine';

const kinds = (folder: string, text: string) => skillMdProblems(folder, strToU8(text)).map((p) => p.kind);

describe('export problem kinds', () => {
  it('is a closed list with a class, who refuses it and what to change', () => {
    expect(new Set(PROBLEM_KINDS.map((k) => k.id)).size).toBe(PROBLEM_KINDS.length);
    for (const kind of PROBLEM_KINDS) {
      expect(['incompatible', 'advisory']).toContain(kind.class);
      expect(kind.change.length).toBeGreaterThan(10);
    }
    expect(PROBLEM_KINDS.filter((k) => k.class === 'advisory').map((k) => k.id)).toEqual(['unexpected-fields']);
  });

  it('passes a valid skill, and flow-style YAML is not a problem', () => {
    expect(kinds('alpha', skillContent('alpha'))).toEqual([]);
    expect(kinds('alpha', '---\nname: alpha\ndescription: x\nmetadata:\n  tags: [x, y]\n---\nB\n')).toEqual([]);
  });

  it('reports name format, folder mismatch and lengths, with the fix where it is mechanical', () => {
    const text = `---\nname: Bad--Name-\ndescription: ${'x'.repeat(1030)}\nversion: "1.0"\nrequires: {mcp: [rube]}\ncompatibility: ${'y'.repeat(501)}\n---\n\nBody\n`;
    const problems = skillMdProblems('other', strToU8(text));
    expect(problems.map((p) => [p.kind, p.fix])).toEqual([
      ['name-format', 'use-folder-name'],
      ['name-folder-mismatch', 'use-folder-name'],
      ['description-too-long', 'trim-description'],
      ['compatibility-invalid', 'trim-compatibility'],
      ['unexpected-fields', 'move-to-metadata'],
    ]);
    expect(problems.find((p) => p.kind === 'unexpected-fields')!.detail).toMatch(/requires, version \(version is read by Claude Code or Hermes/);
  });

  it('has no folder fix when the folder is not a valid name either', () => {
    const [problem] = skillMdProblems('zoho_books', strToU8('---\nname: zoho_books\ndescription: x\n---\n'));
    expect(problem).toMatchObject({ kind: 'name-format', fix: null });
  });

  it('reports the Claude.ai refusals: reserved words, angle brackets, list allowed-tools, several SKILL.md, plugin manifest', () => {
    const text = '---\nname: claude-helper\ndescription: Wraps <tool> calls\nallowed-tools:\n  - Read\n---\n\nBody\n';
    const problems = checkExportSkill('claude-helper', [
      { path: 'SKILL.md', bytes: strToU8(text) },
      { path: 'references/old/SKILL.md', bytes: strToU8(text) },
      { path: '.claude-plugin/plugin.json', bytes: strToU8('{}') },
    ]);
    expect(problems.map((p) => [p.kind, p.fix])).toEqual([
      ['name-reserved-word', null],
      ['description-angle-brackets', 'escape-angle-brackets'],
      ['allowed-tools-list', 'join-allowed-tools'],
      ['several-skill-md', null],
      ['plugin-manifest', null],
    ]);
  });

  it('reports structure problems alone', () => {
    expect(kinds('a', '# just text\n')).toEqual(['no-frontmatter']);
    expect(kinds('a', '---\nname: a\ndescription: x\n')).toEqual(['unclosed-frontmatter']);
    expect(kinds('a', '---\nname: [a\ndescription: x\n---\n')).toEqual(['invalid-yaml']);
    expect(kinds('a', '---\nname: a\n---\nB\n')).toEqual(['missing-description']);
  });

  it('groups by kind in list order with counts and sorted skills', () => {
    const report = groupProblems([
      { name: 'b', problems: [{ kind: 'unexpected-fields', detail: 'x', fix: null }] },
      { name: 'a', problems: [{ kind: 'unexpected-fields', detail: 'x', fix: null }, { kind: 'name-format', detail: 'y', fix: null }] },
      { name: 'c', problems: [] },
    ]);
    expect(report.kinds.map((k) => [k.kind.id, k.count, k.skills.map((s) => s.name)])).toEqual([
      ['name-format', 1, ['a']],
      ['unexpected-fields', 2, ['a', 'b']],
    ]);
    expect(report).toMatchObject({ total: 3, incompatible: 1, advisoryOnly: 1 });
  });
});

describe('the synthetic public-collection corpus (tests/fixtures/skillCorpus.ts)', () => {
  it('gives these counts per kind on 1,400 skills', () => {
    const corpus = generateCorpus({ count: 1400 });
    const report = groupProblems(corpus.map((skill) => ({ name: skill.folder, problems: checkExportSkill(skill.folder, skill.files.map((f) => ({ path: f.path, bytes: strToU8(f.text) }))) })));
    const counts = Object.fromEntries(report.kinds.map((k) => [k.kind.id, k.count])) as Partial<Record<ProblemKindId, number>>;
    expect(counts).toEqual({
      'no-frontmatter': 4,
      'name-format': 84,
      'name-folder-mismatch': 112,
      'name-reserved-word': 7,
      'description-too-long': 5,
      'description-angle-brackets': 7,
      'allowed-tools-list': 7,
      'several-skill-md': 3,
      'unexpected-fields': 1032,
    });
    expect(report.incompatible).toBe(145);
    expect(report.advisoryOnly).toBe(891);
  });
});
