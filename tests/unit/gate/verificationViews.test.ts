import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import { UsageStore, type UsageRecord } from '../../../src/skills/usageStore';
import { VerdictStore } from '../../../src/gate/verdictStore';
import { blindedVerification, gateVerificationSource, verificationSidecar, VERIFICATION_SIDECAR_FORMAT } from '../../../src/gate/verificationViews';
import type { VerdictRecord } from '../../../src/gate/types';
import { createTestEngine, skillContent } from '../helpers/skillTestEngine';
import { namedPair, promotingResults, rejectingResults, stagingResults, verdictRecord } from './helpers/verdictRecords';

const HOLDOUT_IDS = ['holdout-zebra-7f3a', 'holdout-quokka-91bd', 'holdout-narwhal-c2e0'];

/** A run whose held-out case ids are unique strings, some improving, one worse. */
function recordWithUniqueHoldout(results = promotingResults('d').filter((r) => r.side === 'dev')): VerdictRecord {
  return verdictRecord([
    ...results,
    namedPair(HOLDOUT_IDS[0]!, 'holdout', 0, 2),
    namedPair(HOLDOUT_IDS[1]!, 'holdout', 0, 2),
    namedPair(HOLDOUT_IDS[2]!, 'holdout', 0, 2),
  ]);
}

describe('blindedVerification (what skill_view gives the models)', () => {
  it('names no held-out case, answer or outcome: the JSON contains none of their ids', () => {
    const record = recordWithUniqueHoldout();
    expect(record.verdict.verdict).toBe('promoted');
    // The stored reason does quote held-out figures; the blinded one must not.
    expect(record.verdict.reason).toMatch(/held-out cases improved \(↑3/);
    const json = JSON.stringify(blindedVerification(record));
    for (const id of HOLDOUT_IDS) expect(json).not.toContain(id);
    expect(json).not.toContain('holdout');
    expect(json).not.toMatch(/[↑↓]/);
    expect(Object.keys(JSON.parse(json)).sort()).toEqual(['code', 'devFailingCaseIds', 'reason', 'stale', 'verdict']);
  });

  it('lists the dev cases the skill still fails, and keeps dev-only reasons as decided', () => {
    const record = verdictRecord([
      namedPair('dev-pass', 'dev', 1, 2),
      namedPair('dev-still-fails', 'dev', 0, 1),
      namedPair('dev-worse', 'dev', 2, 0),
      namedPair('dev-both-fail', 'dev', 0, 0),
      namedPair(HOLDOUT_IDS[0]!, 'holdout', 0, 1),
      namedPair(HOLDOUT_IDS[1]!, 'holdout', 0, 1),
    ]);
    const view = blindedVerification(record, true);
    expect(view.devFailingCaseIds).toEqual(['dev-still-fails', 'dev-worse', 'dev-both-fail']);
    expect(view).toMatchObject({ verdict: 'rejected', stale: true });
    expect(view.reason).toBe(record.verdict.reason);
    for (const id of HOLDOUT_IDS) expect(JSON.stringify(view)).not.toContain(id);
  });

  it.each([
    ['promoted', promotingResults()],
    ['staged (dev_only)', stagingResults()],
  ])('%s: no held-out figure reaches the model', (_name, results) => {
    const view = blindedVerification(verdictRecord(results));
    expect(view.reason).not.toMatch(/[↑↓]|p = |mean/);
  });
});

describe('the export sidecar', () => {
  it('carries verdict, code, numbers, model, date and protocol as JSON', () => {
    const record = verdictRecord(rejectingResults());
    const sidecar = JSON.parse(new TextDecoder().decode(verificationSidecar(record)));
    expect(sidecar).toMatchObject({
      format: VERIFICATION_SIDECAR_FORMAT,
      protocol: 'gate.v1',
      verdict: 'rejected',
      code: record.verdict.code,
      numbers: JSON.parse(JSON.stringify(record.verdict.numbers)),
      model: record.model,
      date: record.finishedAt,
      skillHash: record.skillHash,
      casesHash: record.casesHash,
    });
    expect(sidecar).not.toHaveProperty('cases');
  });
});

describe('gateVerificationSource (SkillEngine.verification)', () => {
  it('reads the current run named by the usage record; a stale verdict is shown as stale and not exported', async () => {
    const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
    const verdicts = new VerdictStore(new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' } }));
    const source = gateVerificationSource({ usage, verdicts });
    expect(await source.view('git-style')).toBeNull();
    expect(await source.sidecar('git-style')).toBeNull();

    const record = verdictRecord(promotingResults(), { id: 'run-1' });
    await verdicts.put(record);
    await usage.applyVerdict('git-style', 'promoted', 'run-1');
    expect(await source.view('git-style')).toEqual(blindedVerification(record));
    expect(await source.sidecar('git-style')).toEqual(verificationSidecar(record));

    await usage.bumpPatch('git-style');
    expect((await source.view('git-style'))?.stale).toBe(true);
    expect(await source.sidecar('git-style')).toBeNull();
  });
});

describe('skill_view through the gate source', () => {
  it('the model-facing result names no held-out case id or answer', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'git-style', content: skillContent('git-style') }, t.context('review'));
    const verdicts = new VerdictStore(new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' } }));
    const record = { ...recordWithUniqueHoldout(), id: 'run-1' };
    await verdicts.put(record);
    await t.engine.usage.applyVerdict('git-style', 'promoted', 'run-1');
    t.engine.verification = gateVerificationSource({ usage: t.engine.usage, verdicts });

    const result = await t.call('skill_view', { name: 'git-style' });
    expect(result.verification).toMatchObject({ verdict: 'promoted', code: 'promoted', stale: false });
    const text = JSON.stringify(result);
    for (const id of HOLDOUT_IDS) expect(text).not.toContain(id);
    expect(text).not.toContain('with-skill answer of holdout');
  });
});
