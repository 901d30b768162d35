import { describe, expect, it } from 'vitest';
import { Ledger, type BlobRecord, type LedgerEntry } from '../../src/skills/ledger';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';

const bytes = (text: string) => new TextEncoder().encode(text);

async function ledgerWith(entries: MemoryRecordStore<LedgerEntry>): Promise<Ledger> {
  let tick = 0;
  const ledger = new Ledger(entries, new MemoryRecordStore<BlobRecord>(), () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++)));
  for (const skill of ['alpha', 'beta', 'alpha', 'gamma', 'alpha']) {
    const entry = await ledger.prepare({ actor: 'user', action: 'edit', skill, before: new Map(), after: new Map([[`skills/${skill}/SKILL.md`, bytes(`${skill} ${tick}`)]]) });
    await ledger.append(entry);
  }
  return ledger;
}

describe('Ledger.list', () => {
  it('gives one skill’s entries, oldest first, through the bySkill index', async () => {
    const ledger = await ledgerWith(new MemoryRecordStore<LedgerEntry>({ indexes: { bySkill: 'skill' } }));
    const alpha = await ledger.list('alpha');
    expect(alpha.map((entry) => entry.skill)).toEqual(['alpha', 'alpha', 'alpha']);
    expect(alpha.map((entry) => entry.at)).toEqual([...alpha.map((entry) => entry.at)].sort((a, b) => a - b));
    expect(await ledger.list()).toHaveLength(5);
  });

  it('gives the same from a store opened without the index', async () => {
    const indexed = await (await ledgerWith(new MemoryRecordStore<LedgerEntry>({ indexes: { bySkill: 'skill' } }))).list('alpha');
    const plain = await (await ledgerWith(new MemoryRecordStore<LedgerEntry>())).list('alpha');
    expect(plain.map((entry) => [entry.skill, entry.at])).toEqual(indexed.map((entry) => [entry.skill, entry.at]));
  });
});

describe('prepareMany and appendMany (a batched import)', () => {
  it('makes one entry per change, as prepare would, and appends them all; appending again keeps one each', async () => {
    const entries = new MemoryRecordStore<LedgerEntry>();
    const blobs = new MemoryRecordStore<BlobRecord>();
    const ledger = new Ledger(entries, blobs);
    const enc = (text: string) => new TextEncoder().encode(text);
    const prepared = await ledger.prepareMany([
      { actor: 'import', action: 'import', skill: 'a', before: new Map(), after: new Map([['skills/a/SKILL.md', enc('a')]]) },
      { actor: 'import', action: 'import', skill: 'b', before: new Map([['skills/b/SKILL.md', enc('old b')]]), after: new Map([['skills/b/SKILL.md', enc('b')]]) },
    ]);
    expect(prepared.map((entry) => [entry.skill, entry.before.length, entry.after.length])).toEqual([['a', 0, 1], ['b', 1, 1]]);
    expect(new Set(prepared.map((entry) => entry.id)).size).toBe(2);
    expect(await ledger.blob(prepared[1]!.before[0]!.hash)).toEqual(enc('old b'));
    await ledger.appendMany(prepared);
    await ledger.appendMany(prepared);
    expect((await ledger.list()).map((entry) => entry.skill).sort()).toEqual(['a', 'b']);
  });
});
