import { describe, expect, it } from 'vitest';
import { recordStoreTables } from '../../src/app/backupTables';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../src/storage/recordStore';

class FailingPuts<T> extends MemoryRecordStore<T> {
  override async putMany(): Promise<void> {
    throw new Error('injected failure');
  }
}

describe('recordStoreTables', () => {
  it('lists only the tables it was given, with keys, in key order', async () => {
    const usage = new MemoryRecordStore<unknown>();
    await usage.put('b', { n: 2 });
    await usage.put('a', { n: 1 });
    const tables = recordStoreTables({ usage });
    expect(tables.tables).toEqual(['usage']);
    expect(await tables.entries('usage')).toEqual([
      ['a', { n: 1 }],
      ['b', { n: 2 }],
    ]);
  });

  it('applies puts, removes and clears across tables, or none of them when one fails', async () => {
    const usage = new MemoryRecordStore<unknown>();
    const index = new MemoryRecordStore<unknown>();
    const ledger: RecordStore<unknown> = new FailingPuts<unknown>();
    await usage.put('keep', 1);
    await usage.put('gone', 2);
    await index.put('manifest', { generation: 4 });
    const tables = recordStoreTables({ usage, index, ledger });

    await expect(
      tables.apply([
        { table: 'usage', put: [['new', 3]], remove: ['gone'] },
        { table: 'index', clear: true, put: [] },
        { table: 'ledger', put: [['e1', { id: 'e1' }]] },
      ]),
    ).rejects.toThrow('injected failure');
    expect(await tables.entries('usage')).toEqual([
      ['gone', 2],
      ['keep', 1],
    ]);
    expect(await index.get('manifest')).toEqual({ generation: 4 });

    await tables.apply([
      { table: 'usage', put: [['new', 3]], remove: ['gone'] },
      { table: 'index', clear: true, put: [] },
      { table: 'searchIndex', clear: true, put: [] }, // not in this profile: nothing to rebuild
    ]);
    expect(await tables.entries('usage')).toEqual([
      ['keep', 1],
      ['new', 3],
    ]);
    expect(await index.keys()).toEqual([]);
  });
});
