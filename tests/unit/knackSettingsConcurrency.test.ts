import { describe, expect, it, vi } from 'vitest';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { localDay, recordGateRun } from '../../src/app/settings';
import { removedProviderChange, savedProviderChange, type SavedProvider } from '../../src/app/savedProviders';
import { holdFirstWrite } from './helpers/heldWrites';
import { memoryAppServices, memoryParts } from './helpers/memoryAppServices';

// docs/storage.md, "No lost update": the Knack settings' read-modify-writes that span an await
// (the gate's counters, saved providers, the curator's schedule), with the first write held
// until the second change has started, in one context and in two (the tab and the worker).

async function twoContexts(skip = 0) {
  const hold = holdFirstWrite({ skip });
  const parts = memoryParts();
  parts.stores.set('settings', new MemoryRecordStore<unknown>({ beforeWrite: hold.beforeWrite }));
  const tab = (await memoryAppServices('tab', parts)).app;
  const worker = (await memoryAppServices('worker', parts)).app;
  await Promise.all([tab.settings.load(), worker.settings.load()]);
  return { hold, tab, worker, stored: (key: string) => parts.stores.get('settings')!.get(key) };
}

const run = { noiseKey: 'p m', probed: true, flipped: false, automatic: true, requests: 12, now: new Date() };

const provider = (id: string): SavedProvider => ({ id, label: id, kind: 'openai-compatible', baseUrl: `http://${id}.test/v1`, apiKey: '', model: 'm', models: [] });

describe('Knack settings: no lost update', () => {
  it('a gate run recorded while the user sets the daily cap keeps both', async () => {
    const { hold, tab, worker, stored } = await twoContexts();
    const recorded = recordGateRun(worker.settings, run);
    await hold.held;
    await tab.settings.update('gate', { dailyCap: 120 });
    hold.release();
    await recorded;
    expect(await stored('gate')).toMatchObject({ dailyCap: 120, usage: { day: localDay(run.now), requests: 12 }, noise: { 'p m': { probes: 1, flips: 0 } } });
    await vi.waitFor(() => expect(tab.settings.get('gate')).toMatchObject({ dailyCap: 120, usage: { requests: 12 } }), { timeout: 2000 });
  });

  it('two gate runs recorded at once count both runs', async () => {
    const { hold, tab, worker, stored } = await twoContexts();
    const first = recordGateRun(worker.settings, run);
    await hold.held;
    await recordGateRun(tab.settings, { ...run, flipped: true, requests: 5 });
    hold.release();
    await first;
    expect(await stored('gate')).toMatchObject({ usage: { requests: 17 }, noise: { 'p m': { probes: 2, flips: 1 } } });
  });

  it('a provider added in one tab survives a provider removed in another', async () => {
    const { hold, tab, worker, stored } = await twoContexts(1);
    await tab.settings.update('app', (current) => savedProviderChange(current, provider('b'), { makeDefault: false }));
    const added = tab.settings.update('app', (current) => savedProviderChange(current, provider('c'), { makeDefault: false }));
    await hold.held;
    await worker.settings.update('app', (current) => removedProviderChange(current, 'b'));
    hold.release();
    await added;
    const ids = (app: unknown) => (app as { providers: SavedProvider[] }).providers.map((entry) => entry.id);
    expect(ids(await stored('app'))).toEqual(['default', 'c']);
    expect(ids(tab.settings.get('app'))).toEqual(['default', 'c']);
    await vi.waitFor(() => expect(ids(worker.settings.get('app'))).toEqual(['default', 'c']), { timeout: 2000 });
  });

  it('a first-run seed read before a curator run ended does not undo the run', async () => {
    const { hold, tab, worker, stored } = await twoContexts();
    const seed = { lastRunAt: '2026-01-01T00:00:00.000Z', runCount: 0, lastSummary: 'deferred first run' };
    const seeding = tab.curatorState.write(seed);
    await hold.held;
    await worker.curatorState.write({ lastRunAt: '2026-01-09T00:00:00.000Z', runCount: 1, lastSummary: 'archived 1' });
    hold.release();
    await seeding;
    expect(await stored('curatorState')).toEqual({ lastRunAt: '2026-01-09T00:00:00.000Z', runCount: 1, lastSummary: 'archived 1' });
  });
});
