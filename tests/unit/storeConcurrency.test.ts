import { describe, expect, it } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { MemoryFileStore } from '../../src/storage/memoryFileStore';
import { UsageStore, type UsageRecord } from '../../src/skills/usageStore';
import { VerdictStore } from '../../src/gate/verdictStore';
import type { VerdictRecord } from '../../src/gate/types';
import { RecordStoreReplayCache, type ReplayCacheEntry } from '../../src/gate/replayCache';
import { RecordCatalogSnapshot } from '../../src/skills/catalogSnapshot';
import { SkillCatalog } from '../../src/skills/skillCatalog';
import { ActivityLog } from '../../src/review/activityLog';
import type { ActivityRecord } from '../../src/review/activity';
import { Ledger, type BlobRecord, type LedgerEntry } from '../../src/skills/ledger';
import { approvePending } from '../../src/tools/approvals';
import { holdFirstWrite } from './helpers/heldWrites';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { stagingResults, verdictRecord } from './gate/helpers/verdictRecords';
import { memoryAppServices, memoryParts } from './helpers/memoryAppServices';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import { mergeTurnCounters } from '../../src/agent/learningCounters';

// docs/storage.md, "No lost update": per store, two changes touching different fields, the
// first held at its write until the second has started; both land. "Two contexts" are two
// instances of the store over the same records, as two tabs are over one database.

describe('no lost update, per store', () => {
  it('usage: a use counted while a verdict is applied keeps both, labels included', async () => {
    const hold = holdFirstWrite({ armed: false });
    const records = new MemoryRecordStore<UsageRecord>({ beforeWrite: hold.beforeWrite });
    const [here, there] = [new UsageStore(records), new UsageStore(records)];
    await here.labels(); // the labels record exists, so both writes must keep it current
    hold.arm();
    const applying = here.applyVerdict('a', 'promoted', 'run-1');
    await hold.held;
    await there.bumpUse('a');
    await there.setPinned('a', true);
    hold.release();
    await applying;
    expect(await here.get('a')).toMatchObject({ use_count: 1, pinned: true, verification: 'promoted', verdict_id: 'run-1' });
    expect((await there.labels()).get('a')).toMatchObject({ verification: 'promoted' });
  });

  it('usage: labels built while another context updates a record keep that update', async () => {
    const hold = holdFirstWrite({ armed: false });
    const records = new MemoryRecordStore<UsageRecord>({ beforeWrite: hold.beforeWrite });
    const [here, there] = [new UsageStore(records), new UsageStore(records)];
    await here.recordCreated('a', 'user');
    hold.arm();
    const building = here.labels(); // no labels record yet: it builds one from the records
    await hold.held;
    await there.setState('a', 'archived');
    hold.release();
    await building;
    expect((await there.labels()).get('a')).toMatchObject({ state: 'archived' });
  });

  it('verdicts: an approval held while the run is settled keeps the status and the approval', async () => {
    const hold = holdFirstWrite({ skip: 1 });
    const records = new MemoryRecordStore<VerdictRecord>({ indexes: { bySkill: 'skill' }, beforeWrite: hold.beforeWrite });
    const [here, there] = [new VerdictStore(records), new VerdictStore(records)];
    const record = { ...verdictRecord(stagingResults(), { id: 'run-1' }), checkDiagnostics: [] };
    await here.put(record);
    const approving = here.approve(record.skill, 'run-1');
    await hold.held;
    await there.put({ ...record, checkDiagnostics: [{ caseId: 1, message: 'late' }] as unknown as VerdictRecord['checkDiagnostics'] });
    hold.release();
    expect((await approving).success).toBe(true);
    expect(await there.get('run-1')).toMatchObject({ approvedBy: 'user', checkDiagnostics: [{ message: 'late' }] });
  });

  it('replay cache: a touch held while the entry is evicted does not bring it back', async () => {
    const hold = holdFirstWrite({ skip: 1 });
    const records = new MemoryRecordStore<ReplayCacheEntry>({ beforeWrite: hold.beforeWrite });
    const cache = new RecordStoreReplayCache(records);
    await cache.put('k', 'local', { status: 'ok', answerText: 'a', rawText: 'a', finishReason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } });
    const touching = cache.touch('k');
    await hold.held;
    await records.delete('k');
    hold.release();
    await touching;
    expect(await records.get('k')).toBeUndefined();
  });

  it('catalogue snapshot: two contexts writing entries of one chunk keep both', async () => {
    const hold = holdFirstWrite({ armed: false });
    const records = new MemoryRecordStore<unknown>({ beforeWrite: hold.beforeWrite });
    const files = new MemoryFileStore();
    const here = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await here.load();
    const there = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await there.load();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    await files.write('skills/b/SKILL.md', skillContent('b'));
    hold.arm();
    const first = here.upsert('skills/a', skillContent('a'));
    await hold.held;
    await there.upsert('skills/b', skillContent('b'));
    hold.release();
    await first;
    const next = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await next.load()).toBe('snapshot');
    expect(next.entries().map((entry) => entry.name).sort()).toEqual(['a', 'b']);
  });

  it('catalogue snapshot: an entry written while a rescan scanned makes the next load rescan', async () => {
    const records = new MemoryRecordStore<unknown>();
    const files = new MemoryFileStore();
    await files.write('skills/a/SKILL.md', skillContent('a'));
    const rescanning = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await rescanning.load();
    const writer = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    await writer.load();
    let wrote = false;
    const readText = files.readText.bind(files);
    // The other context changes skill a after the rescan has read it, before the rescan writes.
    files.readText = async (path) => {
      const listed = await readText(path);
      if (path === 'skills/a/SKILL.md' && !wrote) {
        wrote = true;
        await files.write('skills/a/SKILL.md', skillContent('a', 'Changed meanwhile.'));
        await writer.upsert('skills/a', skillContent('a', 'Changed meanwhile.'));
      }
      return listed;
    };
    await rescanning.rescan();
    expect(wrote).toBe(true);
    const next = new SkillCatalog(files, new RecordCatalogSnapshot(records));
    expect(await next.load()).toBe('rescan');
    expect(next.entries()[0]!.description).toBe('Changed meanwhile.');
  });

  it('activity: two contexts writing their runs keep both', async () => {
    const hold = holdFirstWrite();
    const records = new MemoryRecordStore<ActivityRecord>({ beforeWrite: hold.beforeWrite });
    const run = (id: string) => ({ id, kind: 'curator', status: 'running', startedAt: '2026-12-01T00:00:00.000Z' }) as unknown as ActivityRecord;
    const first = new ActivityLog(records).put(run('one'));
    await hold.held;
    await new ActivityLog(records).put(run('two'));
    hold.release();
    await first;
    expect((await records.keys()).sort()).toEqual(['one', 'two']);
  });

  it('ledger: two contexts storing the same file version and their entries keep one blob and both entries', async () => {
    const hold = holdFirstWrite();
    const blobs = new MemoryRecordStore<BlobRecord>({ beforeWrite: hold.beforeWrite });
    const entries = new MemoryRecordStore<LedgerEntry>();
    const input = (skill: string) => ({ skill, action: 'create', actor: 'user', before: new Map(), after: new Map([['SKILL.md', new TextEncoder().encode('same')]]) });
    const first = new Ledger(entries, blobs).record(input('a') as never);
    await hold.held;
    await new Ledger(entries, blobs).record(input('b') as never);
    hold.release();
    await first;
    expect(await blobs.keys()).toHaveLength(1);
    expect((await entries.getAll()).map((entry) => entry.skill).sort()).toEqual(['a', 'b']);
  });

  it('pending: two contexts approving one write at once replay it once', async () => {
    const t = createTestEngine({ writeApproval: 'all' });
    const staged = await t.manage({ action: 'create', name: 'once', content: skillContent('once') });
    const outcomes = await Promise.all([0, 1].map(() => approvePending(t.engine.pending, t.registry, staged.pending_id, t.engine.locks)));
    expect(outcomes.filter((outcome) => outcome.success)).toHaveLength(1);
    expect(outcomes.find((outcome) => !outcome.success)).toMatchObject({ error: expect.stringContaining('already approved or rejected') });
    expect((await t.engine.ledger.list('once')).filter((entry) => entry.action === 'create')).toHaveLength(1);
  });

  it('memory files: two contexts adding different entries at once keep both', async () => {
    const parts = memoryParts();
    const [here, there] = await Promise.all([memoryAppServices('tab', parts), memoryAppServices('worker', parts)]);
    const [a, b] = await Promise.all([here.app.memory(), there.app.memory()]);
    const results = await Promise.all([a.store.add('memory', 'Uses tabs.'), b.store.add('memory', 'Prefers tea.')]);
    expect(results.every((result) => result.success)).toBe(true);
    expect((await a.store.entries('memory')).sort()).toEqual(['Prefers tea.', 'Uses tabs.']);
  });

  it('learning counters: two turns of one chat ending in two tabs count both; a reset wins', async () => {
    const backend = new MemorySessionBackend();
    const [here, there] = [new SessionStore(backend), new SessionStore(backend)];
    const session = await here.create({});
    await here.updateCounters(session.id, { itersSinceSkill: 3, turnsSinceMemory: 2 });
    const start = { itersSinceSkill: 3, turnsSinceMemory: 2 };
    // Both turns started from the same stored counters; each counted its own model calls.
    await Promise.all([
      here.updateCounters(session.id, (stored) => mergeTurnCounters(stored, start, { itersSinceSkill: 5, turnsSinceMemory: 3 })),
      there.updateCounters(session.id, (stored) => mergeTurnCounters(stored, start, { itersSinceSkill: 4, turnsSinceMemory: 3 })),
    ]);
    expect(await here.get(session.id)).toMatchObject({ itersSinceSkill: 6, turnsSinceMemory: 4 });
    // A turn whose review ran (its counter reset) sets the counter, whatever was counted meanwhile.
    await there.updateCounters(session.id, (stored) => mergeTurnCounters(stored, start, { itersSinceSkill: 0, turnsSinceMemory: 3 }));
    expect(await here.get(session.id)).toMatchObject({ itersSinceSkill: 0, turnsSinceMemory: 5 });
  });
});
