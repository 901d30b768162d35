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
