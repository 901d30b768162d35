import { beforeEach, describe, expect, it } from 'vitest';
import { checkToolCode, offeredToolName, parseJsonWithLine, parseToolManifest, toolPathKind, validateToolName } from '../../../src/skills/forgedTools';
import { schemaProblems, valueProblem } from '../../../src/skills/jsonSchemaSubset';
import { casesAgainstManifest, parseToolCasesFile } from '../../../src/gate/toolCases';
import { forgedToolFileRule } from '../../../src/gate/toolFileRules';
import { checkFilePath } from '../../../src/skills/validation';
import { buildSkillsZip, collectSkill } from '../../../src/skills/zipExport';
import { applyImport, planImport } from '../../../src/skills/zipImport';
import { strFromU8, unzipSync } from 'fflate';
import { createTestEngine, skillContent } from '../helpers/skillTestEngine';

const manifest = {
  name: 'vat-total',
  description: 'Use for a price after a discount and VAT, rounded to cents.',
  input_schema: { type: 'object', properties: { net: { type: 'number' }, discount_pct: { type: 'number' } }, required: ['net'] },
  output_schema: { type: 'number' },
};

describe('tool paths and names', () => {
  it('knows each forged-tool file by its path', () => {
    expect(toolPathKind('tools/vat-total.js')).toEqual({ kind: 'code', tool: 'vat-total' });
    expect(toolPathKind('tools/vat-total.json')).toEqual({ kind: 'manifest', tool: 'vat-total' });
    expect(toolPathKind('evals/tool-cases.json')).toEqual({ kind: 'cases' });
    expect(toolPathKind('evals/evals.json')).toBeNull();
    expect(toolPathKind('tools/lib/x.js')).toMatchObject({ kind: 'other' });
    expect(toolPathKind('tools/Bad.js')).toMatchObject({ kind: 'other', error: expect.stringContaining('Invalid tool name') });
  });

  it('lets skill_manage write under tools/', () => {
    expect(checkFilePath('tools/vat-total.js')).toEqual({ ok: true, path: 'tools/vat-total.js' });
  });

  it('refuses names outside the charset or too long', () => {
    expect(validateToolName('vat_total-2')).toBeNull();
    expect(validateToolName('vat.total')).toMatch(/Invalid tool name/);
    expect(validateToolName('x'.repeat(41))).toMatch(/exceeds 40/);
  });

  it('offers a tool as <skill>__<tool> in the provider charset, at most 64 characters', () => {
    expect(offeredToolName('pricing.eu', 'vat-total')).toBe('pricing_eu__vat-total');
    expect(offeredToolName('s'.repeat(64), 'vat')).toHaveLength(64);
  });
});

describe('tool code', () => {
  it('accepts a plain run function', () => {
    expect(checkToolCode('function run(input) { return input.a * 2; }', 'tools/x.js')).toBeNull();
    expect(checkToolCode('const run = (input) => input.a;', 'tools/x.js')).toBeNull();
  });

  it('refuses module syntax with its line, but not the words inside strings or comments', () => {
    expect(checkToolCode('function run() {}\nconst fs = require("fs");', 'tools/x.js')).toMatch(/require\(\) at line 2/);
    expect(checkToolCode('import x from "y";\nfunction run() {}', 'tools/x.js')).toMatch(/import at line 1/);
    expect(checkToolCode('export function run() {}', 'tools/x.js')).toMatch(/export at line 1/);
    expect(checkToolCode('// import x\nfunction run() { return "require(1)"; }', 'tools/x.js')).toBeNull();
  });

  it('refuses empty code, code without run and oversize code', () => {
    expect(checkToolCode('  ', 'tools/x.js')).toMatch(/empty/);
    expect(checkToolCode('function walk() {}', 'tools/x.js')).toMatch(/does not define run/);
    expect(checkToolCode(`function run() {}\n${'//'.repeat(10_001)}`, 'tools/x.js')).toMatch(/limit: 20,000/);
  });
});

describe('tool manifest', () => {
  it('accepts a manifest in the schema subset', () => {
    expect(parseToolManifest(JSON.stringify(manifest), 'vat-total')).toMatchObject({ ok: true });
  });

  it('reports a JSON error with its line and column', () => {
    const result = parseToolManifest('{\n  "name": "vat-total",\n  "description": oops\n}', 'vat-total');
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/line 3, column \d+/) });
  });

  it('refuses a name that differs from the file, a long description and unsupported keywords', () => {
    expect(parseToolManifest(JSON.stringify({ ...manifest, name: 'other' }), 'vat-total')).toMatchObject({ ok: false, error: expect.stringContaining('"name" must be "vat-total"') });
    expect(parseToolManifest(JSON.stringify({ ...manifest, description: 'x'.repeat(161) }), 'vat-total')).toMatchObject({ ok: false, error: expect.stringContaining('limit: 160') });
    const bad = { ...manifest, input_schema: { type: 'object', properties: { net: { type: 'number', pattern: 'x' } } } };
    expect(parseToolManifest(JSON.stringify(bad), 'vat-total')).toMatchObject({ ok: false, error: expect.stringContaining('input_schema.properties.net.pattern: not supported') });
    expect(parseToolManifest(JSON.stringify({ ...manifest, input_schema: { type: 'number' } }), 'vat-total')).toMatchObject({ ok: false });
    const twoTypes = { ...manifest, input_schema: { type: 'object', properties: { net: { type: ['number', 'null'] } } } };
    expect(parseToolManifest(JSON.stringify(twoTypes), 'vat-total')).toMatchObject({ ok: false, error: expect.stringContaining('must be one type') });
  });
});

describe('schema subset', () => {
  it('checks values against types, required, enum, bounds and items', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } }, mode: { enum: ['a', 'b'] } }, required: ['n'], additionalProperties: false };
    expect(schemaProblems(schema)).toEqual([]);
    expect(valueProblem(schema, { n: 1, tags: ['x'], mode: 'a' })).toBeNull();
    expect(valueProblem(schema, {})).toMatch(/missing required property 'n'/);
    expect(valueProblem(schema, { n: 1.5 })).toMatch(/expected integer, got number/);
    expect(valueProblem(schema, { n: -1 })).toMatch(/below the minimum/);
    expect(valueProblem(schema, { n: 1, tags: [1] })).toMatch(/value.tags\[0\]: expected string/);
    expect(valueProblem(schema, { n: 1, mode: 'c' })).toMatch(/must be one of/);
    expect(valueProblem(schema, { n: 1, extra: 1 })).toMatch(/'extra' is not allowed/);
    expect(valueProblem({ type: 'number' }, 3)).toBeNull();
  });

  it('refuses unknown types and keyword values of the wrong kind', () => {
    expect(schemaProblems({ type: 'float' })[0]).toMatch(/not one of/);
    expect(schemaProblems({ type: 'string', maxLength: -1 })[0]).toMatch(/non-negative integer/);
    expect(schemaProblems([])[0]).toMatch(/must be a JSON object/);
  });
});

describe('evals/tool-cases.json', () => {
  const file = { tool: 'vat-total', cases: [{ id: 1, input: { net: 100 }, expect: 119 }, { id: 'b', input: { net: 10 }, checks: [{ type: 'contains', value: '11' }] }] };

  it('parses one case list or a list of them', () => {
    expect(parseToolCasesFile(JSON.stringify(file))).toMatchObject({ ok: true, sets: [{ tool: 'vat-total' }] });
    expect(parseToolCasesFile(JSON.stringify([file, { ...file, tool: 'other' }]))).toMatchObject({ ok: true });
  });

  it('names each problem by its case', () => {
    const bad = { tool: 'vat-total', cases: [{ id: 1, input: 3, expect: 1 }, { id: 1, input: {} }, { id: 2, input: {}, checks: [{ type: 'nope' }] }] };
    const result = parseToolCasesFile(JSON.stringify(bad));
    expect(result.ok).toBe(false);
    const problems = (result as { problems: string[] }).problems;
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('cases[0].input: must be an object'),
        expect.stringContaining('cases[1].id: 1 is used twice'),
        expect.stringContaining('cases[1]: give "expect"'),
        expect.stringContaining('cases[2].checks[0].type'),
      ]),
    );
    expect(parseToolCasesFile('{"tool": "x",\n "cases": [}')).toMatchObject({ ok: false, error: expect.stringContaining('line 2') });
  });

  it('checks each input and expect against the manifest', () => {
    const set = { tool: 'vat-total', cases: [{ id: 1, input: { discount_pct: 5 }, expect: 'x' }] };
    const problems = casesAgainstManifest(set, manifest);
    expect(problems[0]).toMatch(/cases\[0\].input: missing required property 'net'/);
    expect(problems[1]).toMatch(/cases\[0\].expect: expected number, got string/);
  });
});

describe('the file rule of skill_manage', () => {
  const files = new Map<string, string>();
  const context = { skill: 'pricing', readFile: async (path: string) => (files.has(path) ? new TextEncoder().encode(files.get(path)!) : null) };
  beforeEach(() => files.clear());

  it('leaves other files alone', async () => {
    expect(await forgedToolFileRule('references/a.md', 'x', context)).toBeNull();
  });

  it('refuses bad code and uses the compile check when given', async () => {
    expect(await forgedToolFileRule('tools/vat-total.js', 'function walk() {}', context)).toMatchObject({ error: expect.stringContaining('does not define run') });
    const compile = async () => 'tools/vat-total.js does not compile: SyntaxError at line 2: unexpected token';
    expect(await forgedToolFileRule('tools/vat-total.js', 'function run() {\n +}', context, compile)).toMatchObject({ error: expect.stringContaining('line 2') });
    expect(await forgedToolFileRule('tools/vat-total.js', 'function run() { return 1; }', context)).toMatchObject({ warnings: [expect.stringContaining('tools/vat-total.json')] });
  });

  it('needs the manifest before the cases, then checks cases against it', async () => {
    const cases = JSON.stringify({ tool: 'vat-total', cases: [{ id: 1, input: { net: 1 }, expect: 1.19 }] });
    expect(await forgedToolFileRule('evals/tool-cases.json', cases, context)).toMatchObject({ error: expect.stringContaining('write the tool') });
    files.set('tools/vat-total.json', JSON.stringify(manifest));
    expect(await forgedToolFileRule('evals/tool-cases.json', cases, context)).toMatchObject({ warnings: [expect.stringContaining('needs 6')] });
    const wrong = JSON.stringify({ tool: 'vat-total', cases: [{ id: 1, input: { net: 'one' }, expect: 1 }] });
    expect(await forgedToolFileRule('evals/tool-cases.json', wrong, context)).toMatchObject({ error: expect.stringContaining('expected number, got string') });
  });
});

describe('JSON errors', () => {
  it('turn a position into a line and column', () => {
    expect(parseJsonWithLine('[1,\n2,\n,]', 'x.json')).toMatchObject({ ok: false, error: expect.stringMatching(/line 3, column 1/) });
  });
});

describe('export and import carry a skill’s forged tools', () => {
  it('tools/ and evals/tool-cases.json go out in the zip and come back in, byte for byte, with no proof', async () => {
    const files = {
      'tools/vat-total.js': 'function run(input) { return Math.round(input.net * 119) / 100; }',
      'tools/vat-total.json': JSON.stringify(manifest, null, 2),
      'evals/tool-cases.json': JSON.stringify({ tool: 'vat-total', cases: [{ id: 1, input: { net: 10 }, expect: 11.9 }] }, null, 2),
    };
    const source = createTestEngine();
    expect(await source.manage({ action: 'create', name: 'pricing', content: skillContent('pricing') })).toMatchObject({ success: true });
    for (const [path, content] of Object.entries(files)) {
      expect(await source.manage({ action: 'write_file', name: 'pricing', file_path: path, file_content: content })).toMatchObject({ success: true });
    }
    const zip = await buildSkillsZip([(await collectSkill(source.engine, 'pricing'))!]);
    const entries = unzipSync(zip);
    for (const [path, content] of Object.entries(files)) expect(strFromU8(entries[`pricing/${path}`]!)).toBe(content);

    const target = createTestEngine();
    const plan = planImport(zip);
    await applyImport(target.engine, plan, { [plan.skills[0]!.id]: { include: true } });
    for (const [path, content] of Object.entries(files)) expect(await target.files.readText(`skills/pricing/${path}`)).toBe(content);
    // Proven here or not at all: an imported tool carries no proof, so it is not offered yet.
    expect((await target.engine.usage.find('pricing'))?.tools).toBeUndefined();
  });
});
