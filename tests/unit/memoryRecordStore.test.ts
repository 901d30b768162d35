import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';

describe('MemoryRecordStore.getAllByIndex', () => {
  it('returns the records whose indexed property equals the value, in key order', async () => {
    const store = new MemoryRecordStore<{ skill: string; n: number }>({ indexes: { bySkill: 'skill' } });
    await store.putMany([
      ['k3', { skill: 'a', n: 3 }],
      ['k1', { skill: 'a', n: 1 }],
      ['k2', { skill: 'b', n: 2 }],
    ]);
    expect(await store.getAllByIndex('bySkill', 'a')).toEqual([
      { skill: 'a', n: 1 },
      { skill: 'a', n: 3 },
    ]);
    expect(await store.getAllByIndex('bySkill', 'c')).toEqual([]);
  });

  it('refuses an index the store was not given, as IndexedDB does', async () => {
    const store = new MemoryRecordStore<{ skill: string }>();
    await expect(store.getAllByIndex('bySkill', 'a')).rejects.toThrow("no index named 'bySkill'");
  });
});
