import { describe, expect, it } from 'vitest';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { buildSkillsZip, claudeUploadCheck, collectAllSkills, collectSkill, exportChecks, strictCheck, VERIFICATION_SIDECAR_FILE } from '../../src/skills/zipExport';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { VerdictStore } from '../../src/gate/verdictStore';
import { gateVerificationSource, verificationSidecar } from '../../src/gate/verificationViews';
import { usageIndexLabel } from '../../src/gate/indexLabel';
import type { VerdictRecord } from '../../src/gate/types';
import { promotingResults, verdictRecord } from './gate/helpers/verdictRecords';
import { applyImport, planImport } from '../../src/skills/zipImport';
import { readCentralDirectory } from '../../src/skills/zipArchive';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

const CRLF_SKILL = '---\r\nname: alpha\r\ndescription: "Use for alpha: quoted, CRLF kept"\r\nmetadata:\r\n  hermes:\r\n    tags: [a, b]\r\n---\r\n\r\n# Alpha\r\n';
const SCRIPT = '#!/usr/bin/env python3\nprint("hi")\n';

describe('buildSkillsZip', () => {
  it('puts <name>/SKILL.md at the top with exec bits for scripts', () => {
    const bytes = buildSkillsZip([
      { folder: 'alpha', files: [{ path: 'SKILL.md', bytes: strToU8(CRLF_SKILL) }, { path: 'scripts/run.py', bytes: strToU8(SCRIPT), executable: true }] },
    ]);
    const entries = unzipSync(bytes);
    expect(Object.keys(entries).sort()).toEqual(['alpha/SKILL.md', 'alpha/scripts/run.py']);
    const directory = readCentralDirectory(bytes);
    if ('error' in directory) throw new Error(directory.error);
    const modes = Object.fromEntries(directory.entries.map((e) => [e.name, e.unixMode]));
    expect(modes['alpha/scripts/run.py']).toBe(0o100755);
    expect(modes['alpha/SKILL.md']).toBe(0o100644);
  });
});

describe('export → import round trip', () => {
  it('keeps every byte (CRLF, quoting, binary files, invalid UTF-8) and the exec bits', async () => {
    const source = createTestEngine();
    const binary = new Uint8Array(300).map((_, i) => (i * 37) % 256);
    const invalid = new Uint8Array([...strToU8('note '), 0xc3, 0x28, 0x0a]);
    const original = zipSync({
      'alpha/SKILL.md': strToU8(CRLF_SKILL),
      'alpha/scripts/run.py': [strToU8(SCRIPT), { os: 3, attrs: (0o100755 << 16) >>> 0 }],
      'alpha/assets/data.raw': binary,
      'alpha/references/odd.md': invalid,
    });
    const plan = planImport(original);
    expect(plan.skills[0].scan.findings.map((f) => `${f.patternId} ${f.file}`)).toEqual([]);
    const [outcome] = await applyImport(source.engine, plan, { [plan.skills[0].id]: { include: true } });
    expect(outcome.status).toBe('imported');

    const exported = await collectSkill(source.engine, 'alpha');
    expect(exported).not.toBeNull();
    const zip = buildSkillsZip([exported!]);
    const back = planImport(zip, { archiveName: 'alpha.zip' });
    expect(back.error).toBeNull();
    const files = Object.fromEntries(back.skills[0].files.map((f) => [f.path, f]));
    expect(new TextDecoder().decode(files['SKILL.md'].bytes)).toBe(CRLF_SKILL);
    expect([...files['assets/data.raw'].bytes]).toEqual([...binary]);
    expect([...files['references/odd.md'].bytes]).toEqual([...invalid]);
    expect(files['scripts/run.py'].executable).toBe(true);
    expect(files['assets/data.raw'].executable).toBe(false);

    const target = createTestEngine();
    await applyImport(target.engine, back, { [back.skills[0].id]: { include: true } });
    expect([...(await target.files.read('skills/alpha/references/odd.md'))!]).toEqual([...invalid]);
  });

  it('exports all skills as one zip of folders', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'beta', content: skillContent('beta') });
    await t.manage({ action: 'create', name: 'gamma', content: skillContent('gamma'), category: 'tools' });
    const zip = buildSkillsZip(await collectAllSkills(t.engine));
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(['beta/SKILL.md', 'gamma/SKILL.md']);
  });
});

describe('strict Agent Skills check (skills-ref rules)', () => {
  it('passes a valid skill', () => {
    expect(strictCheck('alpha', strToU8(skillContent('alpha')))).toEqual([]);
  });

  it('reports name, folder, field and length problems with skills-ref wording', () => {
    const text = `---\nname: Bad--Name-\ndescription: ${'x'.repeat(1030)}\nversion: 1.0\ncompatibility: ${'y'.repeat(501)}\n---\n\nBody\n`;
    const problems = strictCheck('other', strToU8(text));
    expect(problems).toEqual(
      expect.arrayContaining([
        "Unexpected fields in frontmatter: version. Only [allowed-tools, compatibility, description, license, metadata, name] are allowed.",
        "Skill name 'Bad--Name-' must be lowercase",
        'Skill name cannot start or end with a hyphen',
        'Skill name cannot contain consecutive hyphens',
        "Directory name 'other' must match skill name 'Bad--Name-'",
        'Description exceeds 1024 character limit (1030 chars)',
        'Compatibility exceeds 500 character limit (501 chars)',
      ]),
    );
  });

  it('reports a BOM, a missing fence, flow style and a missing description', () => {
    expect(strictCheck('a', strToU8('\uFEFF' + skillContent('a')))).toEqual(['SKILL.md must start with YAML frontmatter (---)']);
    expect(strictCheck('a', strToU8('---\nname: a\ndescription: x\n'))).toEqual(['SKILL.md frontmatter not properly closed with ---']);
    expect(strictCheck('a', strToU8('---\nname: a\ndescription: x\nmetadata:\n  tags: [x, y]\n---\nB\n')).join('\n')).toMatch(/Invalid YAML/);
    expect(strictCheck('a', strToU8('---\nname: a\n---\nB\n'))).toEqual(['Missing required field in frontmatter: description']);
  });
});

describe('Claude.ai upload check', () => {
  it('reports reserved words, angle brackets, list-form allowed-tools and plugin manifests', () => {
    const text = '---\nname: claude-helper\ndescription: Wraps <tool> calls\nallowed-tools:\n  - Read\n---\n\nBody\n';
    const problems = claudeUploadCheck({
      folder: 'claude-helper',
      files: [
        { path: 'SKILL.md', bytes: strToU8(text) },
        { path: '.claude-plugin/plugin.json', bytes: strToU8('{}') },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        "Skill name in SKILL.md cannot contain the reserved word 'claude'",
        'description cannot contain angle brackets (< or >) or XML tags',
        "'allowed-tools' must be a space-separated string, not a list",
        'A skill cannot contain a plugin manifest (.claude-plugin/plugin.json)',
      ]),
    );
  });

  it('finds nothing wrong with a clean skill', () => {
    expect(exportChecks({ folder: 'alpha', files: [{ path: 'SKILL.md', bytes: strToU8(skillContent('alpha')) }] })).toEqual({ strict: [], claude: [] });
  });
});

describe('export and import of the gate evidence', () => {
  const EVALS = '{\n  "skill_name": "alpha",\n  "evals": [{ "id": 1, "prompt": "Write a commit message", "checks": [{ "type": "icontains", "value": "feat:" }] }],\n  "x_unknown": true\n}\n';

  async function verifiedSource() {
    const source = createTestEngine();
    expect((await source.manage({ action: 'create', name: 'alpha', content: skillContent('alpha') })).success).toBe(true);
    expect((await source.manage({ action: 'write_file', name: 'alpha', file_path: 'evals/evals.json', file_content: EVALS })).success).toBe(true);
    const verdicts = new VerdictStore(new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' } }));
    const record = verdictRecord(promotingResults(), { id: 'run-1', skill: 'alpha' });
    await verdicts.put(record);
    await source.engine.usage.applyVerdict('alpha', 'promoted', 'run-1');
    source.engine.verification = gateVerificationSource({ usage: source.engine.usage, verdicts });
    return { source, record };
  }

  it('carries evals.json and verification.json; SKILL.md bytes untouched; the import is staged and the claim noted', async () => {
    const { source, record } = await verifiedSource();
    const skillMd = await source.files.read('skills/alpha/SKILL.md');
    const exported = (await collectSkill(source.engine, 'alpha'))!;
    expect(exported.files.map((f) => f.path).sort()).toEqual(['SKILL.md', 'evals/evals.json', VERIFICATION_SIDECAR_FILE]);
    const archive = buildSkillsZip([exported]);
    const entries = unzipSync(archive);
    expect(entries['alpha/SKILL.md']).toEqual(skillMd);
    expect(new TextDecoder().decode(entries['alpha/evals/evals.json'])).toBe(EVALS);
    expect(entries['alpha/evals/verification.json']).toEqual(verificationSidecar(record));

    const target = createTestEngine();
    const plan = planImport(archive);
    expect(plan.skills[0].claimed).toEqual({ verdict: 'promoted', code: 'promoted', model: 'qwen3:8b (http://localhost:11434)', date: record.finishedAt, protocol: 'gate.v1' });
    expect(plan.skills[0].warnings.join(' ')).toContain('claims: promoted by model qwen3:8b');
    const [outcome] = await applyImport(target.engine, plan, { [plan.skills[0].id]: { include: true } });
    expect(outcome).toMatchObject({ status: 'imported', claimed: { verdict: 'promoted' } });
    expect(await target.files.read('skills/alpha/SKILL.md')).toEqual(skillMd);
    expect(await target.files.readText('skills/alpha/evals/evals.json')).toBe(EVALS);
    expect(await target.files.read('skills/alpha/evals/verification.json')).toEqual(verificationSidecar(record));
    expect(await target.engine.usage.get('alpha')).toMatchObject({ verification: 'staged', verdict_id: null, approved_by: null });
    expect(usageIndexLabel((await target.engine.usage.labels()).get('alpha'))).toBe('[unverified]');
    const [entry] = await target.engine.ledger.list('alpha');
    expect(entry!.evidence.claimed_verification).toMatchObject({ verdict: 'promoted' });
  });

  it('a stale verdict is not exported; a claimed sidecar the skill came with travels as it is', async () => {
    const { source } = await verifiedSource();
    await source.files.write('skills/alpha/evals/verification.json', '{"verdict":"promoted","model":"someone-else"}\n');
    await source.engine.usage.bumpPatch('alpha');
    const exported = (await collectSkill(source.engine, 'alpha'))!;
    const sidecar = exported.files.find((f) => f.path === VERIFICATION_SIDECAR_FILE)!;
    expect(new TextDecoder().decode(sidecar.bytes)).toBe('{"verdict":"promoted","model":"someone-else"}\n');
  });

  it('a sidecar that is not a verification record is kept as a file, with a warning and no claim', () => {
    const plan = planImport(zipSync({ 'alpha/SKILL.md': strToU8(skillContent('alpha')), 'alpha/evals/verification.json': strToU8('not json') }));
    expect(plan.skills[0].claimed).toBeNull();
    expect(plan.skills[0].files.map((f) => f.path)).toContain('evals/verification.json');
    expect(plan.skills[0].warnings.join(' ')).toContain('is not a verification record');
  });
});
