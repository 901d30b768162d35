import { describe, expect, it } from 'vitest';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { createBackup, backupFileName } from '../../src/app/backup';
import { openBackup } from '../../src/app/backupRead';
import { BackupFormatError, sha256Hex } from '../../src/app/backupManifest';
import { WrongPassphraseError } from '../../src/app/backupCrypto';
import { applyRestore } from '../../src/app/restore';
import { planRestore } from '../../src/app/restorePlan';
import { CancelledError, type Progress } from '../../src/storage/progress';
import { makeProfile, populate, snapshotProfile } from './helpers/backupProfile';

const FIXED = () => new Date('2026-12-01T12:00:00Z');

async function populatedBackup(keysPassphrase?: string) {
  const source = makeProfile();
  await populate(source);
  const result = await createBackup(source, { now: FIXED, ...(keysPassphrase !== undefined ? { keysPassphrase } : {}) });
  return { source, result };
}

async function restoreInto(bytes: Uint8Array, keysPassphrase?: string) {
  const target = makeProfile();
  const plan = await planRestore(await openBackup(bytes), target);
  const report = await applyRestore(plan, { collisions: 'skip' }, target.deps, keysPassphrase !== undefined ? { keysPassphrase } : {});
  return { target, plan, report };
}

function withoutKey(snapshot: Awaited<ReturnType<typeof snapshotProfile>>) {
  const records = structuredClone(snapshot.records);
  records.settings = records.settings!.map(([key, value]) => [key, key === 'app' ? { ...(value as object), apiKey: '' } : value]);
  return { ...snapshot, records };
}

describe('createBackup', () => {
  it('writes a manifest with counts and a SHA-256 per file, and keeps the exec bit of a script', async () => {
    const { result } = await populatedBackup();
    const entries = unzipSync(result.bytes);
    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    expect(manifest.counts).toMatchObject({ skills: 2, files: 8, sessions: 2, messages: 3 });
    const script = manifest.files.find((f: { path: string }) => f.path === 'skills/git/commit-style/scripts/check.sh');
    expect(script.mode).toBe(0o755);
    expect(script.sha256).toBe(await sha256Hex(entries['files/skills/git/commit-style/scripts/check.sh']!));
    expect(manifest.files.find((f: { path: string }) => f.path.endsWith('logo.bin')).mode).toBeUndefined();
    expect(result.fileName).toBe(backupFileName(FIXED()));
  });

  it('leaves the API key out unless a passphrase is given', async () => {
    const { result } = await populatedBackup();
    const all = Object.values(unzipSync(result.bytes)).map((bytes) => strFromU8(bytes)).join('\n');
    expect(all).not.toContain('sk-secret-123');
    expect(result.manifest.secrets).toBeNull();

    const withKeys = await populatedBackup('correct horse');
    const text = Object.values(unzipSync(withKeys.result.bytes)).map((bytes) => strFromU8(bytes)).join('\n');
    expect(text).not.toContain('sk-secret-123');
    expect(withKeys.result.manifest.secrets).not.toBeNull();
  });

  it('reports progress and stops with CancelledError when cancelled', async () => {
    const source = makeProfile();
    await populate(source);
    const seen: Progress[] = [];
    await createBackup(source, { onProgress: (p) => seen.push(p) });
    expect(seen.some((p) => p.phase === 'Reading files' && p.done === p.total && p.total === 8)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    await expect(createBackup(source, { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  it('gives a file the mode its skill\u2019s newest import recorded, as a skill export would: a #! script imported as 644 stays 644', async () => {
    const source = makeProfile();
    await populate(source);
    await source.raw.write('skills/notes/scripts/tool.sh', '#!/bin/sh\necho plain\n');
    await source.stores.ledger.put('0002', {
      id: '0002',
      skill: 'notes',
      actor: 'import',
      action: 'import',
      at: 2,
      before: [],
      after: [{ path: 'skills/notes/SKILL.md' }, { path: 'skills/notes/scripts/tool.sh' }],
      evidence: { modes: { 'SKILL.md': 0o644, 'scripts/tool.sh': 0o644 } },
    });
    const result = await createBackup(source, { now: FIXED });
    const manifest = JSON.parse(strFromU8(unzipSync(result.bytes)['manifest.json']!));
    const mode = (path: string) => manifest.files.find((f: { path: string }) => f.path === path).mode;
    expect(mode('skills/notes/scripts/tool.sh')).toBeUndefined();
    // A skill never imported keeps Knack's rule: its #! script is 755.
    expect(mode('skills/git/commit-style/scripts/check.sh')).toBe(0o755);
    expect((await openBackup(result.bytes)).files.get('skills/notes/scripts/tool.sh')?.mode).toBe(0o644);
  });
});

describe('round trip', () => {
  it('restores every file byte and every record into an empty profile, without the key', async () => {
    const { source, result } = await populatedBackup();
    const { target, report } = await restoreInto(result.bytes);
    const before = await snapshotProfile(source);
    const after = await snapshotProfile(target);
    expect(after).toEqual(withoutKey(before));
    expect(report.keysRestored).toBe(false);
    expect(await target.stores.index.keys()).toEqual([]);
    expect(await target.raw.walk('.knack-restore')).toEqual([]);
    expect(target.events.map((e) => e.type)).toEqual(expect.arrayContaining(['skills-rescanned', 'memory-changed', 'settings-changed', 'session-changed']));
  });

  it('restores the key with the right passphrase and refuses a wrong one without writing', async () => {
    const { source, result } = await populatedBackup('correct horse');
    const { target } = await restoreInto(result.bytes, 'correct horse');
    expect(await snapshotProfile(target)).toEqual(await snapshotProfile(source));

    const fresh = makeProfile();
    const plan = await planRestore(await openBackup(result.bytes), fresh);
    await expect(applyRestore(plan, { collisions: 'skip' }, fresh.deps, { keysPassphrase: 'wrong' })).rejects.toBeInstanceOf(WrongPassphraseError);
    expect(await fresh.raw.walk('')).toEqual([]);
  });
});

describe('openBackup refuses', () => {
  it('a file whose bytes do not match the manifest', async () => {
    const { result } = await populatedBackup();
    const entries = unzipSync(result.bytes);
    entries['files/memories/USER.md'] = strToU8('Name: Mallory');
    await expect(openBackup(zipSync(entries))).rejects.toThrow(/does not match the hash/);
  });

  it('a newer schema version, a missing part, a path outside the profile and a non-zip', async () => {
    const { result } = await populatedBackup();
    const entries = unzipSync(result.bytes);
    const manifest = JSON.parse(strFromU8(entries['manifest.json']!));
    await expect(openBackup(zipSync({ ...entries, 'manifest.json': strToU8(JSON.stringify({ ...manifest, schemaVersion: 99 })) }))).rejects.toThrow(/newer Knack/);
    const missing = { ...entries };
    delete missing['records/messages.jsonl'];
    await expect(openBackup(zipSync(missing))).rejects.toThrow(/missing/);
    const escaping = { ...manifest, files: [...manifest.files, { path: '../evil', size: 1, sha256: 'x' }] };
    await expect(openBackup(zipSync({ ...entries, 'manifest.json': strToU8(JSON.stringify(escaping)) }))).rejects.toThrow(/outside the profile/);
    await expect(openBackup(strToU8('not a zip at all'))).rejects.toBeInstanceOf(BackupFormatError);
  });
});
