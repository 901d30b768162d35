import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../../src/storage/recordStore';
import { VerdictStore, freshness, settleRun } from '../../../src/gate/verdictStore';
import type { VerdictRecord } from '../../../src/gate/types';
import { promotingResults, rejectingResults, stagingResults, verdictRecord } from './helpers/verdictRecords';

const indexed = () => new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' } });

/** A store that offers no index query, as a RecordStore may. */
function withoutIndexQuery(): RecordStore<VerdictRecord> {
  const inner = new MemoryRecordStore<VerdictRecord>();
  return {
    get: (key) => inner.get(key),
    put: (key, value) => inner.put(key, value),
    putMany: (entries) => inner.putMany(entries),
    updateMany: (keys, change) => inner.updateMany(keys, change),
    delete: (key) => inner.delete(key),
    getAll: () => inner.getAll(),
    keys: () => inner.keys(),
    clear: () => inner.clear(),
  };
}
const current = { skillHash: 'skill-hash-1', casesHash: 'cases-hash-1' };

describe('freshness and superseded runs', () => {
  it('a verdict is fresh only while both SKILL.md and the cases hash as measured', () => {
    const record = verdictRecord(promotingResults());
    expect(freshness(record, current)).toBe('fresh');
    expect(freshness(record, { ...current, skillHash: 'edited' })).toBe('stale');
    expect(freshness(record, { ...current, casesHash: 'edited' })).toBe('stale');
  });

  it('a run whose skill changed (or went away) while it ran settles as superseded', () => {
    const record = verdictRecord(promotingResults());
    expect(settleRun(record, current).status).toBe('applied');
    expect(settleRun(record, { ...current, casesHash: 'edited' }).status).toBe('superseded');
    expect(settleRun(record, null).status).toBe('superseded');
  });
});

describe.each([
  ['with the bySkill index', indexed],
  ['without an index query (getAll fallback)', withoutIndexQuery],
])('VerdictStore %s', (_label, makeStore) => {
  it('keeps the history of one skill newest first, superseded runs included, and latest skips them', async () => {
    const store = new VerdictStore(makeStore());
    await store.put(verdictRecord(stagingResults(), { id: 'a', finishedAt: '2026-11-01T10:00:00.000Z', skillVersion: 1 }));
    await store.put(verdictRecord(promotingResults(), { id: 'b', finishedAt: '2026-11-02T10:00:00.000Z', skillVersion: 2 }));
    await store.put(verdictRecord(rejectingResults(), { id: 'c', finishedAt: '2026-11-03T10:00:00.000Z', skillVersion: 3, status: 'superseded' }));
    await store.put(verdictRecord(rejectingResults(), { id: 'other', skill: 'other-skill' }));

    expect((await store.history('git-style')).map((r) => r.id)).toEqual(['c', 'b', 'a']);
    expect((await store.history('other-skill')).map((r) => r.id)).toEqual(['other']);
    expect((await store.history('none')).length).toBe(0);
    expect((await store.latest('git-style'))?.id).toBe('b');
    expect(await store.latest('none')).toBeNull();
    expect((await store.historyOfVersion('git-style', 1)).map((r) => r.id)).toEqual(['a']);
  });

  it('approves only the current staged verdict of the skill, recording approvedBy user', async () => {
    const store = new VerdictStore(makeStore());
    await store.put(verdictRecord(stagingResults(), { id: 'old', finishedAt: '2026-11-01T10:00:00.000Z' }));
    await store.put(verdictRecord(stagingResults(), { id: 'new', finishedAt: '2026-11-02T10:00:00.000Z' }));
    await store.put(verdictRecord(promotingResults(), { id: 'p', skill: 'promoted-skill' }));

    expect(await store.approve('git-style', 'old')).toMatchObject({ success: false, error: expect.stringContaining('not the current verdict') });
    expect(await store.approve('promoted-skill', 'new')).toMatchObject({ success: false, error: expect.stringContaining('No verification run') });
    expect(await store.approve('promoted-skill', 'p')).toMatchObject({ success: false, error: expect.stringContaining('Only a staged verdict') });
    const approved = await store.approve('git-style', 'new');
    expect(approved).toMatchObject({ success: true, record: { id: 'new', approvedBy: 'user' } });
    expect((await store.get('new'))?.approvedBy).toBe('user');
    expect((await store.get('old'))?.approvedBy).toBeUndefined();
  });
});
