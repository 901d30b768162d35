/**
 * The frontmatter fast path (src/skills/frontmatterFastPath.ts, docs/frontmatter.md "Fast
 * path") against the `yaml` library with FRONTMATTER_YAML_OPTIONS: whenever the fast path
 * gives a value, the library must give the same value (same keys in the same order, same types)
 * and no error. Shapes the fast path is not sure of must be left to the library (null).
 */
import { describe, expect, it } from 'vitest';
import { parseSkillFile, parseYamlMapping, parseYamlMappingWithLibrary } from '../../src/skills/frontmatter';
import { readSimpleFrontmatter } from '../../src/skills/frontmatterFastPath';

/** Fast path result (or null); throws when it disagrees with the library. */
function differential(raw: string): Record<string, unknown> | null {
  const fast = readSimpleFrontmatter(raw);
  if (fast === null) return null;
  const library = parseYamlMappingWithLibrary(raw, {}, 1);
  if (!library.ok) throw new Error(`fast path read ${JSON.stringify(raw)} but the library refused it: ${library.message}`);
  expect(fast, JSON.stringify(raw)).toStrictEqual(library.value);
  expect(Object.keys(fast), JSON.stringify(raw)).toEqual(Object.keys(library.value));
  return fast;
}

const COMMON = [
  'name: pdf\ndescription: Use when working with PDF files.\n',
  'name: pdf\r\ndescription: Use when working with PDF files.\r\nlicense: Proprietary. LICENSE.txt has complete terms\r\n',
  'name: x\ndescription: "Use when: deploying"\n',
  "name: x\ndescription: 'Use when: deploying, or \"shipping\"'\n",
  'name: x\ndescription: y\nversion: 1.0.0\nauthor: Someone <a@b.c>\nlicense: MIT\nmetadata:\n  hermes:\n    tags: [git, review, code-review]\n    related_skills: [github-pr]\n',
  'name: x\ndescription: y\nallowed-tools: Read, Grep, Bash(git:*)\n',
  'name: x\ndescription: y\ntags:\n  - a\n  - b c\n',
  'name: x\ndescription: y\ntags:\n- a\n- b\nplatforms: [linux, macos]\n',
  '# a comment\nname: x\n\ndescription: y  \n',
  'name: x\ndescription: y\nversion: 2\nenabled: true\nlegacy: false\nempty:\nnothing: ~\nnull_text: null\nhalf: 0.5\nneg: -3\n',
  'name: x\ndescription: See https://example.com/a?b=c#frag for C# and [brackets] {braces}, too\n',
  'name: x\ndescription: Ünïcödé — emoji 🎉 and CJK 漢字\n',
  'name: x\nmetadata:\n  author: me\n  nested:\n    deeper: 1\n  after: 2\ndescription: y\n',
];

const TRICKY = [
  'name: x\ndescription: Use when: deploying\n',
  'name: x\nname: y\n',
  'name: x\n\tdescription: y\n',
  'name: x\ndescription:\ty\n',
  'name: x\ndescription: a long\n  continued line\n',
  'name: x\ndescription: |\n  block\n  text\n',
  'name: x\ndescription: >-\n  folded\n',
  'name: "x\\ty"\n',
  "name: 'it''s'\n",
  'name: &a x\nother: *a\n',
  'name: !!str 12\n',
  '%YAML 1.1\n---\nname: x\n',
  'name: x # comment\n',
  '? name\n: x\n',
  '"name": x\n',
  'name:x\n',
  'name : x\n',
  '  name: x\n  description: y\n',
  'name: x\nmeta:\n  a: 1\n b: 2\n',
  'name: x\nmeta:\n    a: 1\n  b: 2\n',
  'tags: [a, b\n',
  'tags: [a, [b]]\n',
  'tags: {a: 1}\n',
  'tags: [a, ]\n',
  'tags:\n  - a\n  b: c\n',
  'tags:\n  - a:\n  - b\n',
  'tags:\n  -\n  - b\n',
  'tags:\n  - a\n    continued\n',
  '\uFEFFname: x\n',
  'name: x\u2028y\n',
  'name: x\u0085y\n',
  '__proto__: x\n',
  'true: x\n',
  '1: x\n',
  '',
  '\n\n',
  '# only a comment\n',
  '- a\n- b\n',
  'just text\n',
  '...\n',
  'name: ---\n',
  'name: -x\n',
  'name: 0755\nmode: 0o755\nhex: 0x1F\nfloat: 1.0\nexp: 1e3\nplus: +1\ninf: .inf\nbig: 12345678901234567890\ndate: 2026-01-02\nyes: yes\nTrue: True\nneg0: -0\n',
  'name: 0.1000000000000000055\n',
  'name: "unclosed\n',
  'name: "a"b\n',
  "name: 'a' # c\n",
  'a: b\nc\n',
  'a: b:\n',
  'a: b\r\rc: d\n',
];

// Deterministic generator of mixed shapes (a small LCG, so failures reproduce).
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const KEYS = ['name', 'description', 'version', 'license', 'allowed-tools', 'a.b', '_x', 'k2', 'true', 'Name', 'x y', '"q"', '1', 'é', '-k', 'name'];
const SEPARATORS = [': ', ': ', ': ', ':  ', ':', ' : ', ':\t'];
const VALUES = [
  'plain text', 'Use when: x', 'C# and F#', 'a #b', 'a#b', 'x:', 'x:y', 'https://a.b/c?d#e', '"quoted"', '"with: colon"', '"esc\\n"',
  "'single'", "'it''s'", "'a\"b'", '""', "''", '[a, b]', '[]', '[ a ,b ]', '["x", \'y\']', '[a, "b, c"]', '[1, true, null, -2, 0.5]',
  '[a: b]', '[a, {b}]', '{a: 1}', 'true', 'false', 'True', 'yes', 'null', '~', 'NULL', 'nUll', '12', '-3', '0', '-0', '1.5', '1.50', '007',
  '1e3', '.5', '12345678901234567', '2026-01-02', '|', '>', '&a x', '*a', '!tag x', '%x', '@x', '`x`', '- x', '-x', '? x', ': x', ',x',
  'a [b] {c}, d', 'trailing   ', 'ünï 🎉', 'tab\there', 'x\u00a0y', 'ends with ]', '#hash', 'a "b" c', "a 'b' c", '',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

const PLAIN_KEYS = ['name', 'description', 'version', 'license', 'author'];
const PLAIN_VALUES = ['plain text', 'Use when testing.', '"with: colon"', "'single'", '[a, b]', '12', 'true', '', 'x:y', 'C# and F#'];

// Half the pieces are plain, so that many whole frontmatters take the fast path.
const key = (random: () => number) => (random() < 0.6 ? pick(random, PLAIN_KEYS) : pick(random, KEYS));
const separator = (random: () => number) => (random() < 0.7 ? ': ' : pick(random, SEPARATORS));
const value = (random: () => number) => (random() < 0.5 ? pick(random, PLAIN_VALUES) : pick(random, VALUES));

function generate(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 6);
  for (let i = 0; i < count; i++) {
    const roll = random();
    if (roll < 0.08) {
      lines.push(pick(random, ['# comment', '', '   ', '  # indented comment']));
    } else if (roll < 0.2) {
      lines.push(`${key(random)}:`);
      const indent = pick(random, ['', ' ', '  ', '    ']);
      const items = 1 + Math.floor(random() * 3);
      for (let j = 0; j < items; j++) lines.push(`${indent}- ${value(random)}`);
    } else if (roll < 0.32) {
      lines.push(`${key(random)}:`);
      const indent = pick(random, ['  ', '  ', '    ', ' ', '\t']);
      const items = 1 + Math.floor(random() * 3);
      for (let j = 0; j < items; j++) {
        const wobble = random() < 0.1 ? ' ' : '';
        lines.push(`${indent}${wobble}${key(random)}${separator(random)}${value(random)}`);
      }
    } else {
      lines.push(`${key(random)}${separator(random)}${value(random)}`);
    }
  }
  const eol = random() < 0.2 ? '\r\n' : '\n';
  return lines.join(eol) + (random() < 0.9 ? eol : '');
}

describe('frontmatter fast path', () => {
  it('reads the common plain shapes, exactly as the yaml library does', () => {
    for (const raw of COMMON) expect(differential(raw), JSON.stringify(raw)).not.toBeNull();
  });

  it('gives the typed values the schema gives (numbers and booleans only when written canonically)', () => {
    expect(readSimpleFrontmatter('a: 12\nb: 1.0\nc: true\nd: yes\ne:\nf: "12"\ng: [1, x]\n')).toStrictEqual({
      a: 12,
      b: '1.0',
      c: true,
      d: 'yes',
      e: null,
      f: '12',
      g: [1, 'x'],
    });
  });

  it('leaves every tricky shape to the library, or agrees with it', () => {
    let declined = 0;
    for (const raw of TRICKY) if (differential(raw) === null) declined++;
    // Most of these are not plain; the few that are (e.g. `name: 0755 …`) must agree.
    expect(declined).toBeGreaterThan(TRICKY.length - 3);
  });

  it('agrees with the library on 10,000 generated frontmatters', () => {
    const random = generator(21);
    let read = 0;
    for (let i = 0; i < 10_000; i++) if (differential(generate(random)) !== null) read++;
    // The generator mixes plain and tricky pieces: a fair share must take the fast path.
    expect(read).toBeGreaterThan(1_500);
  });

  it('is what parseYamlMapping and parseSkillFile use, with errors still from the library', () => {
    expect(parseYamlMapping('name: x\ndescription: y\n', {}, 1)).toStrictEqual({ ok: true, value: { name: 'x', description: 'y' } });
    expect(parseSkillFile('---\nname: x\nname: y\n---\n')).toMatchObject({ ok: false, code: 'duplicate_key' });
    expect(parseSkillFile('---\nname: x\nname: y\n---\n', { allowDuplicateKeys: true })).toMatchObject({ ok: true, frontmatter: { name: 'y' } });
    expect(parseSkillFile('---\r\nname: x\r\n---\r\nbody')).toMatchObject({ ok: true, frontmatter: { name: 'x' }, body: 'body' });
  });
});
