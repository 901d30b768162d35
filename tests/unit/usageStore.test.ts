import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { UsageStore, emptyUsageRecord, type UsageLabel, type UsageRecord } from '../../src/skills/usageStore';

/** The labels every record gives, the slow way: what labels() must agree with. */
async function labelsFromRecords(usage: UsageStore) {
  const labels = new Map<string, UsageLabel>();
  for (const r of await usage.all()) {
    if (r.verification === 'promoted' || r.verification === 'rejected' || r.approved_by === 'user' || r.state !== 'active') {
      labels.set(r.name, {
        verification: r.verification,
        state: r.state,
        ...(r.verification_stale ? { stale: true as const } : {}),
        ...(r.approved_by ? { approvedBy: r.approved_by } : {}),
      });
    }
  }
  return labels;
}

describe('usage labels (non-default verification and state, for the skill index)', () => {
  it('builds the labels from existing records once, then keeps them current through every update', async () => {
    const records = new MemoryRecordStore<UsageRecord>();
    // Records written before labels were kept.
    await records.put('a', { ...emptyUsageRecord('a'), verification: 'promoted' });
    await records.put('b', emptyUsageRecord('b'));
    const usage = new UsageStore(records);
    expect(await usage.labels()).toEqual(new Map([['a', { verification: 'promoted', state: 'active' }]]));
    expect((await usage.all()).map((r) => r.name).sort()).toEqual(['a', 'b']);

    await usage.setVerification('b', 'rejected');
    await usage.applyVerdict('a', 'promoted', 'run-1');
    await usage.bumpPatch('a'); // still promoted, but stale: the label says so
    expect((await usage.labels()).get('a')).toEqual({ verification: 'promoted', state: 'active', stale: true });
    await usage.recordCreated('c', 'review');
    await usage.setState('c', 'stale');
    await usage.bumpUse('b');
    await usage.setState('d', 'archived');
    expect(await usage.labels()).toEqual(await labelsFromRecords(usage));
    await usage.applyVerdict('a', 'staged', 'run-2'); // fresh staged: the default label again
    expect((await usage.labels()).has('a')).toBe(false);
    await usage.approveVerdict('a', 'run-1'); // not the current run: nothing happens
    expect((await usage.labels()).has('a')).toBe(false);
    await usage.approveVerdict('a', 'run-2');
    expect((await usage.labels()).get('a')).toEqual({ verification: 'staged', state: 'active', approvedBy: 'user' });
    expect(await usage.labels()).toEqual(await labelsFromRecords(usage));

    const archived = await usage.get('d');
    await usage.forget('d');
    await usage.bumpView('c'); // stale → active
    expect(await usage.labels()).toEqual(await labelsFromRecords(usage));
    await usage.restore(archived);
    const fresh = new UsageStore(records);
    expect(await fresh.labels()).toEqual(await labelsFromRecords(fresh));
    expect((await fresh.labels()).get('d')).toEqual({ verification: 'unmeasured', state: 'archived' });
  });
});

describe('verification fields', () => {
  it('an edit keeps the verdict word and marks it stale; a new run makes it fresh and drops an approval', async () => {
    const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
    await usage.recordCreated('s', 'foreground');
    expect(await usage.get('s')).toMatchObject({ verification: 'unmeasured', verdict_id: null, verification_stale: false, approved_by: null });
    await usage.bumpPatch('s'); // nothing measured yet: nothing to make stale
    expect((await usage.get('s')).verification_stale).toBe(false);
    await usage.applyVerdict('s', 'staged', 'run-1');
    await usage.approveVerdict('s', 'run-1');
    await usage.bumpPatch('s');
    expect(await usage.get('s')).toMatchObject({ verification: 'staged', verdict_id: 'run-1', verification_stale: true, approved_by: 'user' });
    await usage.applyVerdict('s', 'promoted', 'run-2');
    expect(await usage.get('s')).toMatchObject({ verification: 'promoted', verdict_id: 'run-2', verification_stale: false, approved_by: null });
    await usage.setVerificationStale('s', true);
    expect((await usage.get('s')).verification_stale).toBe(true);
  });

  it('learned and imported skills start staged, with no run and no approval, whatever came before', async () => {
    const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
    await usage.applyVerdict('imp', 'promoted', 'run-1');
    await usage.recordCreated('imp', 'import');
    expect(await usage.get('imp')).toMatchObject({ verification: 'staged', verdict_id: null, verification_stale: false, approved_by: null });
    await usage.recordCreated('learned', 'review');
    expect((await usage.get('learned')).verification).toBe('staged');
  });

  it('records written before these fields read as never verified', async () => {
    const records = new MemoryRecordStore<UsageRecord>();
    const { verdict_id: _id, verification_stale: _stale, approved_by: _approved, ...old } = emptyUsageRecord('old');
    await records.put('old', old as UsageRecord);
    expect(await new UsageStore(records).get('old')).toMatchObject({ verdict_id: null, verification_stale: false, approved_by: null });
  });
});

describe('lifecycleMany (a batched import)', () => {
  it('applies every skill’s forget and creation in order, as one-by-one calls would, labels included', async () => {
    const clock = () => new Date('2026-11-01T12:00:00Z');
    const one = new UsageStore(new MemoryRecordStore<UsageRecord>(), clock);
    const many = new UsageStore(new MemoryRecordStore<UsageRecord>(), clock);
    for (const store of [one, many]) {
      await store.labels(); // a labels record exists, so it must be kept current
      await store.setState('old', 'archived');
      await store.applyVerdict('old', 'promoted', 'v1');
    }
    await one.forget('old');
    await one.recordCreated('old', 'import');
    await one.recordCreated('new', 'import');
    await many.lifecycleMany([
      { op: 'forget', name: 'old' },
      { op: 'created', name: 'old', source: 'import' },
      { op: 'created', name: 'new', source: 'import' },
    ]);
    expect(await many.all()).toEqual(await one.all());
    expect(await many.labels()).toEqual(await one.labels());
    expect((await many.find('old'))?.verification).toBe('staged');
  });
});
