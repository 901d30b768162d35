import { describe, expect, it } from 'vitest';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { buildSkillsZip, checkSkill, collectAllSkills, collectSkill, exportAllSkills, importedModes, VERIFICATION_SIDECAR_FILE } from '../../src/skills/zipExport';
import { CancelledError, type Progress } from '../../src/storage/progress';
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
  it('puts <name>/SKILL.md at the top with exec bits for scripts', async () => {
    const bytes = await buildSkillsZip([
      { folder: 'alpha', files: [{ path: 'SKILL.md', bytes: strToU8(CRLF_SKILL) }, { path: 'scripts/run.py', bytes: strToU8(SCRIPT), mode: 0o755 }] },
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
    const zip = await buildSkillsZip([exported!]);
    const back = planImport(zip, { archiveName: 'alpha.zip' });
    expect(back.error).toBeNull();
    const files = Object.fromEntries(back.skills[0].files.map((f) => [f.path, f]));
    expect(new TextDecoder().decode(files['SKILL.md'].bytes)).toBe(CRLF_SKILL);
    expect([...files['assets/data.raw'].bytes]).toEqual([...binary]);
    expect([...files['references/odd.md'].bytes]).toEqual([...invalid]);
    expect(files['scripts/run.py'].executable).toBe(true);
    expect(files['scripts/run.py'].mode).toBe(0o755);
    expect(files['assets/data.raw'].executable).toBe(false);
    expect(files['assets/data.raw'].mode).toBe(0o644);

    const target = createTestEngine();
    await applyImport(target.engine, back, { [back.skills[0].id]: { include: true } });
    expect([...(await target.files.read('skills/alpha/references/odd.md'))!]).toEqual([...invalid]);
  });

  it('exports all skills as one zip of folders', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'beta', content: skillContent('beta') });
    await t.manage({ action: 'create', name: 'gamma', content: skillContent('gamma'), category: 'tools' });
    const zip = await buildSkillsZip(await collectAllSkills(t.engine));
    expect(Object.keys(unzipSync(zip)).sort()).toEqual(['beta/SKILL.md', 'gamma/SKILL.md']);
  });
});

function modesOf(zip: Uint8Array): Record<string, number | null> {
  const directory = readCentralDirectory(zip);
  if ('error' in directory) throw new Error(directory.error);
  return Object.fromEntries(directory.entries.map((e) => [e.name, e.unixMode]));
}

describe('file modes from import to export', () => {
  const archive = () =>
    zipSync({
      'alpha/SKILL.md': [strToU8(skillContent('alpha')), { os: 3, attrs: (0o100644 << 16) >>> 0 }],
      'alpha/scripts/plain.sh': [strToU8('#!/bin/sh\necho plain\n'), { os: 3, attrs: (0o100644 << 16) >>> 0 }],
      'alpha/scripts/run.sh': [strToU8('#!/bin/sh\necho run\n'), { os: 3, attrs: (0o100755 << 16) >>> 0 }],
      'alpha/references/tool.py': [strToU8('print(1)\n'), { os: 3, attrs: (0o100750 << 16) >>> 0 }],
    });

  it('keeps each imported file its own mode (a #! script imported as 644 stays 644), also after edits of other files', async () => {
    const t = createTestEngine();
    const plan = planImport(archive());
    await applyImport(t.engine, plan, { [plan.skills[0].id]: { include: true } });
    const expected = { 'alpha/SKILL.md': 0o100644, 'alpha/scripts/plain.sh': 0o100644, 'alpha/scripts/run.sh': 0o100755, 'alpha/references/tool.py': 0o100750 };
    expect(modesOf(await buildSkillsZip([(await collectSkill(t.engine, 'alpha'))!]))).toEqual(expected);

    expect((await t.manage({ action: 'write_file', name: 'alpha', file_path: 'references/notes.md', file_content: '# Notes\n' })).success).toBe(true);
    expect((await t.manage({ action: 'patch', name: 'alpha', old_string: '# alpha', new_string: '# Alpha' })).success).toBe(true);
    const after = await collectSkill(t.engine, 'alpha');
    expect(modesOf(await buildSkillsZip([after!]))).toEqual({ ...expected, 'alpha/references/notes.md': 0o100644 });

    // The round trip: bytes and modes come back as they went in.
    const back = planImport(await buildSkillsZip([after!]));
    const files = Object.fromEntries(back.skills[0].files.map((f) => [f.path, f]));
    expect(files['scripts/plain.sh'].mode).toBe(0o644);
    expect(files['scripts/run.sh'].mode).toBe(0o755);
    expect(new TextDecoder().decode(files['scripts/plain.sh'].bytes)).toBe('#!/bin/sh\necho plain\n');
  });

  it('skills made in Knack keep the rule: a scripts/ file starting with #! is executable', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'beta', content: skillContent('beta') });
    await t.manage({ action: 'write_file', name: 'beta', file_path: 'scripts/go.sh', file_content: '#!/bin/sh\necho go\n' });
    await t.manage({ action: 'write_file', name: 'beta', file_path: 'scripts/data.txt', file_content: 'no shebang\n' });
    expect(modesOf(await buildSkillsZip([(await collectSkill(t.engine, 'beta'))!]))).toEqual({ 'beta/SKILL.md': 0o100644, 'beta/scripts/data.txt': 0o100644, 'beta/scripts/go.sh': 0o100755 });
  });

  it('reads the modes of older imports, which recorded only the executable paths', () => {
    const entry = { id: 'e', ts: '', at: 1, actor: 'import' as const, action: 'import', skill: 'a', before: [], after: [{ path: 'skills/a/SKILL.md', hash: 'h' }, { path: 'skills/a/scripts/x.sh', hash: 'h' }, { path: 'skills/a/scripts/y.sh', hash: 'h' }], evidence: { executable: ['scripts/x.sh'] } };
    expect(importedModes([entry])).toEqual(new Map([['SKILL.md', 0o644], ['scripts/x.sh', 0o755], ['scripts/y.sh', 0o644]]));
    expect(importedModes([entry, { ...entry, id: 'f', at: 2, action: 'delete', evidence: {} }])).toBeNull();
  });
});

describe('exportAllSkills', () => {
  it('reports the three phases (reading, checking, zipping: files), groups the problems by kind and zips every skill', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'beta', content: skillContent('beta') });
    await t.manage({ action: 'create', name: 'gamma', content: '---\nname: gamma\ndescription: Use for gamma work.\nrequires:\n  mcp: [rube]\n---\n\n# Gamma\n' });
    const phases: Progress[] = [];
    const result = await exportAllSkills(t.engine, { onProgress: (p) => phases.push(p) });
    expect(result.count).toBe(2);
    expect(Object.keys(unzipSync(result.zip)).sort()).toEqual(['beta/SKILL.md', 'gamma/SKILL.md']);
    expect([...new Set(phases.map((p) => p.phase))]).toEqual(['Reading skills', 'Checking skills', 'Writing the archive']);
    expect(phases.at(-1)).toEqual({ phase: 'Writing the archive', done: 2, total: 2 });
    expect(result.report.kinds.map((k) => [k.kind.id, k.count, k.skills.map((s) => s.name)])).toEqual([['unexpected-fields', 1, ['gamma']]]);
    expect(result.report).toMatchObject({ total: 2, incompatible: 0, advisoryOnly: 1 });
  });

  it('stops with a CancelledError when the signal is aborted', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'beta', content: skillContent('beta') });
    const controller = new AbortController();
    controller.abort();
    await expect(exportAllSkills(t.engine, { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  it('finds nothing wrong with a clean skill', () => {
    expect(checkSkill({ folder: 'alpha', files: [{ path: 'SKILL.md', bytes: strToU8(skillContent('alpha')) }] })).toEqual([]);
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
    const archive = await buildSkillsZip([exported]);
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
