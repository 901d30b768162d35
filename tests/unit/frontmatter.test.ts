/**
 * SKILL.md parsing: the bad-input corpus of SPEC §18 (BOM, CRLF, tabs, duplicate keys, no
 * fence, oversize, `---` inside a value, invalid UTF-8), the lenient import loader of SPEC §4,
 * field helpers and byte-preserving edits.
 *
 * Also ported, because they test the same parser, from Hermes' tests/tools/test_skills_tool.py
 * (reference/hermes-spec.md §11.2): TestParseFrontmatter (5) and TestParseTags (6). Hermes'
 * `_parse_frontmatter` returns `{}` for files without frontmatter and falls back to naive
 * `key: value` splitting on YAML errors; Knack's strict parser returns a typed error instead,
 * and `parseSkillFileLenient` (what the catalogue reads with) repairs or reads `key: value`
 * lines, so those rows assert the Knack equivalent.
 */
import { describe, expect, it } from 'vitest';
import { loadSkillLenient } from '../../src/skills/lenientSkill';
import {
  decodeSkillText,
  locateFrontmatter,
  parseSkillFile,
  parseSkillFileLenient,
  parseStringList,
  readCategory,
  readConditions,
  readDescription,
  readEnvironments,
  readName,
  readPlatforms,
  readRelatedSkills,
  readTags,
  repairFrontmatterYaml,
  replaceFrontmatterText,
  setFrontmatterFields,
  type ParsedSkillFile,
} from '../../src/skills/frontmatter';

const BASIC = '---\nname: demo\ndescription: Use when testing.\n---\n# Demo\n\nDo the thing.\n';

function parsed(content: string): ParsedSkillFile {
  const result = parseSkillFile(content);
  if (!result.ok) throw new Error(`expected a parse, got ${result.code}: ${result.message}`);
  return result;
}

describe('TestParseFrontmatter (Hermes test_skills_tool.py)', () => {
  it('TestParseFrontmatter.test_valid_frontmatter', () => {
    const r = parsed(BASIC);
    expect(r.frontmatter).toEqual({ name: 'demo', description: 'Use when testing.' });
    expect(r.body).toBe('# Demo\n\nDo the thing.\n');
  });
  it('TestParseFrontmatter.test_no_frontmatter', () => {
    const r = parseSkillFile('# Just markdown\n\nNo fence here.\n');
    expect(r).toMatchObject({ ok: false, code: 'no_frontmatter' });
  });
  it('TestParseFrontmatter.test_empty_frontmatter', () => {
    // Hermes yields {}; an empty YAML document is null, which is not a mapping.
    expect(parseSkillFile('---\n---\nbody\n')).toMatchObject({ ok: false, code: 'not_mapping' });
  });
  it('TestParseFrontmatter.test_nested_yaml', () => {
    const r = parsed('---\nname: x\ndescription: y\nmetadata:\n  hermes:\n    tags: [git, review]\n---\nbody\n');
    expect(readTags(r.frontmatter)).toEqual(['git', 'review']);
    expect((r.frontmatter.metadata as { hermes: { tags: string[] } }).hermes.tags).toEqual(['git', 'review']);
  });
  it('TestParseFrontmatter.test_malformed_yaml_fallback', () => {
    const content = '---\nname: fallback-skill\ndescription: Use when: the YAML is sloppy\n---\nbody\n';
    expect(parseSkillFile(content)).toMatchObject({ ok: false, code: 'yaml_error' });
    const loaded = loadSkillLenient(content, 'fallback-skill');
    expect(loaded).toMatchObject({ ok: true, name: 'fallback-skill', description: 'Use when: the YAML is sloppy', repaired: true });
    expect(parseSkillFileLenient(content)).toMatchObject({ ok: true, frontmatter: { name: 'fallback-skill', description: 'Use when: the YAML is sloppy' } });
  });
});

describe('TestParseTags (Hermes test_skills_tool.py)', () => {
  it('TestParseTags.test_list_passthrough', () => expect(parseStringList(['a', 'b'])).toEqual(['a', 'b']));
  it('TestParseTags.test_comma_separated_string', () => expect(parseStringList('a, b, c')).toEqual(['a', 'b', 'c']));
  it('TestParseTags.test_bracketed_string', () => expect(parseStringList('[a, b, c]')).toEqual(['a', 'b', 'c']));
  it('TestParseTags.test_empty_inputs', () => {
    expect(parseStringList('')).toEqual([]);
    expect(parseStringList(null)).toEqual([]);
    expect(parseStringList(undefined)).toEqual([]);
    expect(parseStringList([])).toEqual([]);
  });
  it('TestParseTags.test_strips_quotes', () => expect(parseStringList(`["a", 'b', c]`)).toEqual(['a', 'b', 'c']));
  it('TestParseTags.test_drops_none_and_empty_items', () => expect(parseStringList(['a', null, '', '  ', 'b'])).toEqual(['a', 'b']));
});

describe('bad-input corpus', () => {
  it('UTF-8 BOM before the opening fence', () => {
    const r = parsed(`\ufeff${BASIC}`);
    expect(r.layout.hasBom).toBe(true);
    expect(r.frontmatter.name).toBe('demo');
    expect(r.bodyOffset).toBe(BASIC.indexOf('# Demo') + 1);
  });

  it('CRLF line endings', () => {
    const crlf = BASIC.replace(/\n/g, '\r\n');
    const r = parsed(crlf);
    expect(r.frontmatter).toEqual({ name: 'demo', description: 'Use when testing.' });
    expect(r.layout.lineEnding).toBe('\r\n');
    expect(r.body).toBe('# Demo\r\n\r\nDo the thing.\r\n');
  });

  it('mixed line endings and trailing blanks on the fences', () => {
    const r = parsed('---  \r\nname: x\ndescription: y\r\n--- \t\nbody');
    expect(r.frontmatter).toEqual({ name: 'x', description: 'y' });
    expect(r.body).toBe('body');
  });

  it('tab indentation is a YAML error with a file line number', () => {
    const r = parseSkillFile('---\nname: x\nmetadata:\n\thermes: {}\ndescription: y\n---\nbody\n');
    expect(r).toMatchObject({ ok: false, code: 'yaml_error', line: 4 });
    if (!r.ok) expect(r.message).toMatch(/[Tt]ab/);
  });

  it('duplicate keys are reported clearly', () => {
    const r = parseSkillFile('---\nname: a\ndescription: d\nname: b\n---\nbody\n');
    expect(r).toMatchObject({ ok: false, code: 'duplicate_key', line: 4 });
    if (!r.ok) expect(r.message).toContain('duplicate key');
    expect(parseSkillFile('---\nname: a\nname: b\n---\nx', { allowDuplicateKeys: true })).toMatchObject({ ok: true, frontmatter: { name: 'b' } });
  });

  it('a fence may carry a YAML comment or trailing blanks', () => {
    const r = parsed('--- # start\nname: x\ndescription: y\n--- # end of frontmatter\nbody\n');
    expect(r.frontmatter).toEqual({ name: 'x', description: 'y' });
    expect(r.body).toBe('body\n');
    expect(parsed('---\nname: x\ndescription: y\n---   \nbody').body).toBe('body');
    expect(parsed('---\r\nname: x\r\ndescription: y\r\n---\t#end\r\nbody').body).toBe('body');
    // A `#` straight after the dashes is not a comment, so that line does not close it.
    expect(parseSkillFile('---\nname: x\n---#end\nbody')).toMatchObject({ ok: false, code: 'unclosed' });
    expect(parseSkillFile('---\nname: x\n--- end\nbody')).toMatchObject({ ok: false, code: 'unclosed' });
  });

  it('no opening fence, or a fence that is not alone on its line', () => {
    expect(parseSkillFile('name: x\n---\nbody')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(parseSkillFile('---name: x\n---\nbody')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(parseSkillFile('----\nname: x\n----\nbody')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(parseSkillFile(' ---\nname: x\n---\n')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(parseSkillFile('')).toMatchObject({ ok: false, code: 'no_frontmatter' });
  });

  it('unclosed frontmatter', () => {
    expect(parseSkillFile('---\nname: x\ndescription: y\n')).toMatchObject({ ok: false, code: 'unclosed' });
    expect(parseSkillFile('---')).toMatchObject({ ok: false, code: 'unclosed' });
    expect(parseSkillFile('---\nname: x\n  ---\nbody')).toMatchObject({ ok: false, code: 'unclosed' });
  });

  it('a closing fence at the very end of the file closes it with an empty body', () => {
    const r = parsed('---\nname: x\ndescription: y\n---');
    expect(r.body).toBe('');
  });

  it('--- inside a block scalar does not end the frontmatter', () => {
    const content = '---\nname: x\ndescription: |\n  first part\n  ---\n  second part\n---\nbody\n';
    const r = parsed(content);
    expect(r.frontmatter.description).toBe('first part\n---\nsecond part\n');
    expect(r.body).toBe('body\n');
  });

  it('--- inside quoted strings and inline values does not end the frontmatter', () => {
    const r = parsed('---\nname: x\ndescription: "a --- b"\nnote: >\n  x\n  --- y\ntitle: c---d\n---\nbody\n');
    expect(r.frontmatter.description).toBe('a --- b');
    expect(r.frontmatter.title).toBe('c---d');
    expect(r.body).toBe('body\n');
  });

  it('a second --- line in the body belongs to the body', () => {
    const r = parsed('---\nname: x\ndescription: y\n---\nintro\n---\nmore\n');
    expect(r.body).toBe('intro\n---\nmore\n');
  });

  it('frontmatter that is a list or a scalar is not a mapping', () => {
    expect(parseSkillFile('---\n- a\n---\nb')).toMatchObject({ ok: false, code: 'not_mapping' });
    expect(parseSkillFile('---\njust text\n---\nb')).toMatchObject({ ok: false, code: 'not_mapping' });
  });

  it('unknown fields, nested metadata and typed values are kept', () => {
    const r = parsed('---\nname: x\ndescription: y\nversion: 1.0\nlicense: MIT\nallowed-tools: Read\nx-custom:\n  deep: [1, 2]\n---\nb');
    // `1.0` stays as written (frontmatterSchema.ts); `1` and `2` are numbers.
    expect(r.frontmatter).toMatchObject({ version: '1.0', license: 'MIT', 'allowed-tools': 'Read', 'x-custom': { deep: [1, 2] } });
  });

  it('invalid UTF-8 bytes decode with replacement characters and a flag', () => {
    const bytes = new Uint8Array([...new TextEncoder().encode('---\nname: x\ndescription: caf'), 0xe9, ...new TextEncoder().encode('\n---\nbody\n')]);
    const decoded = decodeSkillText(bytes);
    expect(decoded.invalidUtf8).toBe(true);
    expect(decoded.text).toContain('caf\ufffd');
    expect(parsed(decoded.text).frontmatter.description).toBe('caf\ufffd');
    expect(decodeSkillText(new TextEncoder().encode(BASIC))).toEqual({ text: BASIC, invalidUtf8: false });
  });

  it('decoding keeps a BOM so the original bytes can be reproduced', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(BASIC)]);
    const { text } = decodeSkillText(bytes);
    expect(text.startsWith('\ufeff')).toBe(true);
    expect(new TextEncoder().encode(text)).toEqual(bytes);
  });

  it('oversize files parse (size limits are the validators’ job)', () => {
    const big = `${BASIC}${'line of body text\n'.repeat(60_000)}`;
    const r = parsed(big);
    expect(r.body.length).toBe(big.length - r.bodyOffset);
    // A huge frontmatter with no closing fence is found unclosed without blowing up.
    expect(parseSkillFile(`---\n${'key: value\n'.repeat(100_000)}`)).toMatchObject({ ok: false, code: 'unclosed' });
  });

  it('alias bombs are refused instead of expanding', () => {
    const bomb = ['---', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 8; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`);
    bomb.push('---', 'body');
    expect(parseSkillFile(bomb.join('\n'))).toMatchObject({ ok: false, code: 'yaml_error' });
  });

  it('__proto__ keys stay plain data', () => {
    const r = parsed('---\nname: x\ndescription: y\n__proto__:\n  polluted: true\n---\nb');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(r.frontmatter)).toBe(Object.prototype);
  });

  it('locateFrontmatter reports offsets into the original string', () => {
    const located = locateFrontmatter(`\ufeff---\r\nname: x\r\n---\r\nbody`);
    expect(located).toEqual({
      ok: true,
      layout: { hasBom: true, lineEnding: '\r\n', yamlStart: 6, yamlEnd: 15, bodyOffset: 20, closingFenceLine: 3 },
    });
  });
});

describe('field helpers', () => {
  const fm = parsed(
    [
      '---',
      'name: "  deploy  "',
      'description: 42',
      'tags: top, level',
      'platforms: macos',
      'environments: [docker]',
      'category: ops',
      'metadata:',
      '  hermes:',
      '    tags: "[git, \'ci\']"',
      '    related_skills: [a, b]',
      '    requires_toolsets: [web]',
      '    fallback_for_tools: web_search',
      '---',
      'b',
    ].join('\n'),
  ).frontmatter;

  it('reads name and description as trimmed text', () => {
    expect(readName(fm)).toBe('deploy');
    expect(readDescription(fm)).toBe('42');
    expect(readName({})).toBeUndefined();
    expect(readDescription({ description: '   ' })).toBeUndefined();
  });

  it('prefers metadata.hermes for tags, related skills and category', () => {
    expect(readTags(fm)).toEqual(['git', 'ci']);
    expect(readTags({ tags: 'top, level' })).toEqual(['top', 'level']);
    expect(readRelatedSkills(fm)).toEqual(['a', 'b']);
    expect(readCategory(fm)).toBe('ops');
  });

  it('reads platforms, environments and index conditions', () => {
    expect(readPlatforms(fm)).toEqual(['macos']);
    expect(readEnvironments(fm)).toEqual(['docker']);
    expect(readConditions(fm)).toEqual({
      fallbackForToolsets: [],
      fallbackForTools: ['web_search'],
      requiresToolsets: ['web'],
      requiresTools: [],
    });
    expect(readConditions({ metadata: 'not a map' })).toEqual({ fallbackForToolsets: [], fallbackForTools: [], requiresToolsets: [], requiresTools: [] });
  });
});

describe('lenient loader (imports)', () => {
  it('loads a clean skill without warnings', () => {
    expect(loadSkillLenient(BASIC, 'demo')).toMatchObject({ ok: true, name: 'demo', description: 'Use when testing.', warnings: [], repaired: false });
  });

  it('warns when the name differs from the folder, is too long or breaks the charset', () => {
    const long = 'n'.repeat(70);
    const r = loadSkillLenient(`---\nname: ${long}\ndescription: d\n---\nb`, 'folder');
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.warnings.join('\n')).toContain("differs from its folder 'folder'");
      expect(r.warnings.join('\n')).toContain('70 characters');
    }
    const odd = loadSkillLenient('---\nname: My Skill\ndescription: d\n---\nb', 'My Skill');
    expect(odd.ok && odd.warnings.some((w) => w.includes('characters outside'))).toBe(true);
  });

  it('compares names after NFKC normalisation', () => {
    const r = loadSkillLenient('---\nname: cafe\u0301\ndescription: d\n---\nb', 'caf\u00e9');
    expect(r.ok && r.warnings.some((w) => w.includes('differs'))).toBe(false);
  });

  it('uses the folder name when the frontmatter has none', () => {
    const r = loadSkillLenient('---\ndescription: d\n---\nb', 'from-folder');
    expect(r).toMatchObject({ ok: true, name: 'from-folder' });
  });

  it('refuses a missing or blank description', () => {
    expect(loadSkillLenient('---\nname: x\n---\nb', 'x')).toMatchObject({ ok: false, code: 'missing_description' });
    expect(loadSkillLenient('---\nname: x\ndescription: "  "\n---\nb', 'x')).toMatchObject({ ok: false, code: 'missing_description' });
    expect(loadSkillLenient('---\nname: x\ndescription: [a]\n---\nb', 'x')).toMatchObject({ ok: false, code: 'missing_description' });
  });

  it('refuses files without frontmatter or with unrepairable YAML', () => {
    expect(loadSkillLenient('# just text', 'x')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(loadSkillLenient('---\nname: x\ndescription: y\n', 'x')).toMatchObject({ ok: false, code: 'unclosed' });
    expect(loadSkillLenient('---\nname: [unclosed\ndescription: y\n---\nb', 'x')).toMatchObject({ ok: false, code: 'yaml_error' });
  });

  it('repairs an unquoted value containing ": " and says so', () => {
    const r = loadSkillLenient('---\nname: x\ndescription: Use when: deploying "prod" \\ stage\n---\nb', 'x');
    expect(r).toMatchObject({ ok: true, repaired: true, description: 'Use when: deploying "prod" \\ stage' });
    expect(r.ok && r.warnings.some((w) => w.includes("quoted the value of 'description'"))).toBe(true);
  });

  it('repairs tab indentation', () => {
    const r = loadSkillLenient('---\nname: x\ndescription: y\nmetadata:\n\thermes:\n\t\ttags: [a]\n---\nb', 'x');
    expect(r.ok).toBe(true);
    if (r.ok) expect(readTags(r.frontmatter)).toEqual(['a']);
  });

  it('accepts duplicate keys with a warning (last value wins)', () => {
    const r = loadSkillLenient('---\nname: x\ndescription: first\ndescription: second\n---\nb', 'x');
    expect(r).toMatchObject({ ok: true, description: 'second' });
    expect(r.ok && r.warnings.some((w) => w.includes('duplicate key'))).toBe(true);
  });

  it('warns about a BOM, a long description and a non-text description', () => {
    const r = loadSkillLenient(`\ufeff---\nname: x\ndescription: ${'d'.repeat(1100)}\n---\nb`, 'x');
    expect(r.ok && r.warnings.some((w) => w.includes('BOM'))).toBe(true);
    expect(r.ok && r.warnings.some((w) => w.includes('1100 characters'))).toBe(true);
    const n = loadSkillLenient('---\nname: x\ndescription: 12\n---\nb', 'x');
    expect(n).toMatchObject({ ok: true, description: '12' });
  });

  it('repairFrontmatterYaml leaves quoted, flow and block values alone', () => {
    const raw = 'a: "x: y"\nb: [c: d]\nc: |\n  e: f\nd: plain\n';
    expect(repairFrontmatterYaml(raw)).toEqual({ text: raw, repairs: [] });
  });
});

describe('lenient parsing (what the catalogue, index and Skills view read with)', () => {
  const SLOPPY = '---\nname: deploy-helper\ndescription: Use when: deploying to prod\n---\n# Deploy\n';
  // The repair quotes the description, but the broken flow list still fails: only the line reader reads it.
  const BROKEN = '---\nname: deploy-helper\ndescription: Use when: deploying to prod\nmetadata:\n  tags: [unclosed\nversion: 0755\n---\n# Deploy\n';

  it('valid YAML parses exactly as the strict parser does, duplicates allowed', () => {
    expect(parseSkillFileLenient(BASIC)).toEqual(parseSkillFile(BASIC));
    expect(parseSkillFileLenient('---\nname: a\nname: b\ndescription: d\n---\nx')).toMatchObject({ ok: true, frontmatter: { name: 'b' } });
  });

  it('repairs `key: value: more` and says what was wrong', () => {
    const r = parseSkillFileLenient(SLOPPY);
    expect(r).toMatchObject({ ok: true, frontmatter: { name: 'deploy-helper', description: 'Use when: deploying to prod' }, body: '# Deploy\n' });
    if (r.ok) expect(r.yamlProblem).toMatch(/read after repair \(line 3: quoted the value of 'description'/);
  });

  it('falls back to key: value lines when no repair parses, values as written', () => {
    const r = parseSkillFileLenient(BROKEN);
    expect(r).toMatchObject({ ok: true, frontmatter: { name: 'deploy-helper', description: 'Use when: deploying to prod', version: '0755' }, body: '# Deploy\n' });
    if (r.ok) {
      expect(r.frontmatter).not.toHaveProperty('metadata');
      expect(r.yamlProblem).toMatch(/read as plain key: value lines$/);
      expect(r.bodyOffset).toBe(BROKEN.indexOf('# Deploy'));
      expect(r.raw).toBe(BROKEN.slice(4, BROKEN.indexOf('---\n#')));
    }
  });

  it('the strict parser still refuses the same files', () => {
    expect(parseSkillFile(SLOPPY)).toMatchObject({ ok: false, code: 'yaml_error' });
    expect(parseSkillFile(BROKEN)).toMatchObject({ ok: false, code: 'yaml_error' });
  });

  it('files with no readable frontmatter stay errors', () => {
    expect(parseSkillFileLenient('# just text')).toMatchObject({ ok: false, code: 'no_frontmatter' });
    expect(parseSkillFileLenient('---\nname: x\n')).toMatchObject({ ok: false, code: 'unclosed' });
    expect(parseSkillFileLenient('---\n- a\n---\nb')).toMatchObject({ ok: false, code: 'not_mapping' });
    expect(parseSkillFileLenient('---\n  : [\n---\nb')).toMatchObject({ ok: false, code: 'yaml_error' });
  });
});

describe('byte-preserving edits', () => {
  const original = '\ufeff---\r\n# leading comment\r\nname: demo   # keep me\r\ndescription: "Old text."\r\ntags: [a, b]\r\n---\r\n# Body\r\n\r\nUntouched \u2014 bytes.\r\n';

  it('setting an existing one-line field splices only its value', () => {
    const r = setFrontmatterFields(original, { description: 'New text: with colon.' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.content).toBe(original.replace('"Old text."', '"New text: with colon."'));
    expect(parsed(r.content).frontmatter.description).toBe('New text: with colon.');
  });

  it('adding a field appends one line in the file’s line ending', () => {
    const r = setFrontmatterFields(original, { version: '1.2.0' });
    expect(r.ok && r.content).toBe(original.replace('tags: [a, b]\r\n', 'tags: [a, b]\r\nversion: 1.2.0\r\n'));
  });

  it('complex edits rewrite only the frontmatter; BOM, fences and body stay byte-identical', () => {
    const r = setFrontmatterFields(original, { tags: ['x', 'y'], name: undefined });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const before = parsed(original);
    const after = parsed(r.content);
    expect(r.content.startsWith('\ufeff---\r\n')).toBe(true);
    expect(r.content.slice(after.layout.yamlEnd)).toBe(original.slice(before.layout.yamlEnd));
    expect(after.frontmatter).toEqual({ description: 'Old text.', tags: ['x', 'y'] });
    expect(r.content).toContain('# leading comment');
    expect(r.content.slice(after.layout.yamlStart, after.layout.yamlEnd)).not.toMatch(/[^\r]\n/);
  });

  it('replaceFrontmatterText swaps the YAML and converts line endings', () => {
    const r = replaceFrontmatterText(original, 'name: other\ndescription: d');
    expect(r.ok && r.content).toBe('\ufeff---\r\nname: other\r\ndescription: d\r\n---\r\n# Body\r\n\r\nUntouched \u2014 bytes.\r\n');
    expect(replaceFrontmatterText('no fence', 'a: b')).toMatchObject({ ok: false, code: 'no_frontmatter' });
  });

  it('parsing never changes the text it was given', () => {
    const r = parsed(original);
    expect(original.slice(0, r.layout.yamlStart) + r.raw + original.slice(r.layout.yamlEnd)).toBe(original);
    expect(original.slice(r.bodyOffset)).toBe(r.body);
  });

  it('edits refuse files whose frontmatter does not parse', () => {
    expect(setFrontmatterFields('---\nname: [x\n---\nb', { name: 'y' })).toMatchObject({ ok: false, code: 'yaml_error' });
  });
});
