import { describe, expect, it, vi } from 'vitest';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import { VerdictStore, type MeasuredHashes } from '../../../src/gate/verdictStore';
import { applyVerdict, approveSkill, refreshFreshness } from '../../../src/gate/gateEffects';
import { usageIndexLabel } from '../../../src/gate/indexLabel';
import type { VerdictRecord } from '../../../src/gate/types';
import { createTestEngine, skillContent } from '../helpers/skillTestEngine';
import { promotingResults, rejectingResults, stagingResults, verdictRecord } from './helpers/verdictRecords';

async function setup() {
  const t = createTestEngine();
  const created = await t.manage({ action: 'create', name: 'git-style', content: skillContent('git-style') }, t.context('review'));
  expect(created.success).toBe(true);
  const onChange = vi.fn();
  t.engine.onChange = onChange;
  let hashes: MeasuredHashes | null = { skillHash: 'skill-hash-1', casesHash: 'cases-hash-1' };
  const verdicts = new VerdictStore(new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' } }));
  const deps = { engine: t.engine, verdicts, currentHashes: async () => hashes };
  const label = async () => usageIndexLabel((await t.engine.usage.labels()).get('git-style'));
  const gateEntries = async () => (await t.engine.ledger.list('git-style')).filter((entry) => entry.actor === 'gate');
  return { t, onChange, deps, verdicts, label, gateEntries, setHashes: (next: MeasuredHashes | null) => (hashes = next) };
}

describe('applyVerdict', () => {
  it('a learned skill starts staged; a promoting run changes the word, writes one gate ledger entry and notifies once', async () => {
    const { t, onChange, deps, verdicts, label, gateEntries } = await setup();
    expect((await t.engine.usage.get('git-style')).verification).toBe('staged');
    expect(await label()).toBe('[unverified]');

    const result = await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    expect(result).toMatchObject({ status: 'applied', changed: true });
    const usage = await t.engine.usage.get('git-style');
    expect(usage).toMatchObject({ verification: 'promoted', verdict_id: 'run-1', verification_stale: false, approved_by: null });
    const entries = await gateEntries();
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'verdict', before: [], after: [], evidence: { verdict_id: 'run-1', from: 'staged', to: 'promoted', code: 'promoted' } });
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith({ skill: 'git-style', action: 'verdict', dir: 'skills/git-style' });
    expect((await verdicts.latest('git-style'))?.id).toBe('run-1');
    expect(await label()).toBe('[verified]');
  });

  it('a run that confirms the stored word refreshes the record without a ledger entry', async () => {
    const { t, deps, gateEntries, onChange } = await setup();
    await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    const again = await applyVerdict(verdictRecord(promotingResults(), { id: 'run-2', finishedAt: '2026-11-02T00:00:00.000Z' }), deps);
    expect(again).toMatchObject({ status: 'applied', changed: false, entry: null });
    expect(await gateEntries()).toHaveLength(1);
    expect((await t.engine.usage.get('git-style')).verdict_id).toBe('run-2');
    expect(onChange).toHaveBeenCalledTimes(2);
  });

  it('a rejected skill is withheld from the index, and an edit brings it back as [unverified]', async () => {
    const { t, deps, label, gateEntries } = await setup();
    await applyVerdict(verdictRecord(rejectingResults(), { id: 'run-1' }), deps);
    expect((await t.engine.usage.get('git-style')).verification).toBe('rejected');
    expect(await label()).toBeNull();
    expect((await gateEntries())[0]!.evidence).toMatchObject({ from: 'staged', to: 'rejected', code: 'dev_harm' });

    const patched = await t.manage({ action: 'patch', name: 'git-style', old_string: 'Do the thing', new_string: 'Do the better thing' });
    expect(patched.success).toBe(true);
    expect(await t.engine.usage.get('git-style')).toMatchObject({ verification: 'rejected', verification_stale: true });
    expect(await label()).toBe('[unverified]');
  });

  it('a stale promoted skill is [unverified] until a fresh run', async () => {
    const { t, deps, label } = await setup();
    await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    await t.engine.usage.bumpPatch('git-style');
    expect(await label()).toBe('[unverified]');
    await applyVerdict(verdictRecord(promotingResults(), { id: 'run-2', skillHash: 'skill-hash-1' }), deps);
    expect(await label()).toBe('[verified]');
  });

  it('a run whose skill changed while it ran is stored as superseded and applies nothing', async () => {
    const { t, deps, verdicts, onChange, gateEntries, setHashes, label } = await setup();
    setHashes({ skillHash: 'edited-during-run', casesHash: 'cases-hash-1' });
    const result = await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    expect(result).toMatchObject({ status: 'superseded', record: { id: 'run-1', status: 'superseded' } });
    expect((await verdicts.get('run-1'))?.status).toBe('superseded');
    expect(await verdicts.latest('git-style')).toBeNull();
    expect((await t.engine.usage.get('git-style')).verification).toBe('staged');
    expect(await gateEntries()).toHaveLength(0);
    expect(onChange).not.toHaveBeenCalled();
    expect(await label()).toBe('[unverified]');
  });

  it('takes the skill lock: a run finishing while the lock is held waits for it', async () => {
    const { t, deps } = await setup();
    let release!: () => void;
    const held = t.engine.locks.withLock('skill:git-style', () => new Promise<void>((resolve) => (release = resolve)));
    const applying = applyVerdict(verdictRecord(promotingResults()), deps);
    let done = false;
    void applying.then(() => (done = true));
    await Promise.resolve();
    await Promise.resolve();
    expect(done).toBe(false);
    release();
    await held;
    await applying;
    expect((await t.engine.usage.get('git-style')).verification).toBe('promoted');
  });
});

describe('approveSkill', () => {
  it('Approve on a staged skill gives [approved], never [verified], with a user ledger entry', async () => {
    const { t, deps, verdicts, label, onChange } = await setup();
    await applyVerdict(verdictRecord(stagingResults(), { id: 'run-1' }), deps);
    expect((await verdicts.get('run-1'))?.verdict.code).toBe('dev_only');
    expect(await label()).toBe('[unverified]');

    const approved = await approveSkill('git-style', 'run-1', deps);
    expect(approved).toMatchObject({ success: true, record: { approvedBy: 'user' } });
    expect((await verdicts.get('run-1'))?.approvedBy).toBe('user');
    expect((await t.engine.usage.get('git-style')).approved_by).toBe('user');
    expect(await label()).toBe('[approved]');
    const [entry] = (await t.engine.ledger.list('git-style')).filter((e) => e.action === 'approve');
    expect(entry).toMatchObject({ actor: 'user', evidence: { verdict_id: 'run-1' } });
    expect(onChange).toHaveBeenCalledTimes(2);

    // An edit voids it: the label describes these bytes.
    await t.engine.usage.bumpPatch('git-style');
    expect(await label()).toBe('[unverified]');
  });

  it('refuses a promoted, stale or non-current verdict', async () => {
    const { t, deps } = await setup();
    await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    expect(await approveSkill('git-style', 'run-1', deps)).toMatchObject({ success: false, error: expect.stringContaining('Only a staged verdict') });
    await applyVerdict(verdictRecord(stagingResults(), { id: 'run-2', finishedAt: '2026-11-02T00:00:00.000Z' }), deps);
    expect(await approveSkill('git-style', 'run-1', deps)).toMatchObject({ success: false, error: expect.stringContaining('not the current verdict') });
    await t.engine.usage.bumpPatch('git-style');
    expect(await approveSkill('git-style', 'run-2', deps)).toMatchObject({ success: false, error: expect.stringContaining('stale') });
  });
});

describe('refreshFreshness', () => {
  it('follows the hashes: stale after an edit outside skill_manage, fresh again when the measured bytes are back', async () => {
    const { deps, label, setHashes, onChange } = await setup();
    expect(await refreshFreshness('git-style', deps)).toBeNull();
    await applyVerdict(verdictRecord(promotingResults(), { id: 'run-1' }), deps);
    expect(await refreshFreshness('git-style', deps)).toBe('fresh');
    expect(onChange).toHaveBeenCalledTimes(1);
    setHashes({ skillHash: 'rolled-back', casesHash: 'cases-hash-1' });
    expect(await refreshFreshness('git-style', deps)).toBe('stale');
    expect(await label()).toBe('[unverified]');
    setHashes({ skillHash: 'skill-hash-1', casesHash: 'cases-hash-1' });
    expect(await refreshFreshness('git-style', deps)).toBe('fresh');
    expect(await label()).toBe('[verified]');
    expect(onChange).toHaveBeenCalledTimes(3);
  });
});
