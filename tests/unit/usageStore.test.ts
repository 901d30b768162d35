import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { UsageStore, emptyUsageRecord, type UsageRecord } from '../../src/skills/usageStore';

/** The labels every record gives, the slow way: what labels() must agree with. */
async function labelsFromRecords(usage: UsageStore) {
  const labels = new Map<string, { verification: string; state: string }>();
  for (const r of await usage.all()) {
    if (r.verification === 'promoted' || r.verification === 'rejected' || r.state !== 'active') labels.set(r.name, { verification: r.verification, state: r.state });
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
    await usage.bumpPatch('a'); // promoted → staged: the default label again
    await usage.recordCreated('c', 'review');
    await usage.setState('c', 'stale');
    await usage.bumpUse('b');
    await usage.setState('d', 'archived');
    expect(await usage.labels()).toEqual(await labelsFromRecords(usage));
    expect((await usage.labels()).has('a')).toBe(false);

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
