/**
 * docs/storage.md, "No lost update", on real IndexedDB: two changes touching different fields,
 * in one tab and in two tabs of one browser context, with the first held at its write until the
 * second has started; both land, on disk and in every tab's memory.
 *
 * The hold: the test keeps a readwrite transaction on the store open (it reads in a loop), so
 * every write to that store queues behind it, as a slow write would; the changes are made
 * while it is open, then it ends.
 */
import { expect, test } from './fixtures';
import type { Page } from '@playwright/test';
import { openApp } from './storageHarness';

type Held = { release?: () => void; done?: Promise<void> };

/** Opens a readwrite transaction on `store` in `page` and keeps it open until `release`. */
async function holdStore(page: Page, store: string): Promise<() => Promise<void>> {
  await page.evaluate((name) => {
    const held = globalThis as unknown as { knackHeld: Held };
    const tx = globalThis.knack!.db!.transaction(name as 'settings', 'readwrite');
    let released = false;
    held.knackHeld = { release: () => (released = true) };
    held.knackHeld.done = (async () => {
      while (!released) await tx.store.get('#held');
      await tx.done;
    })();
  }, store);
  return () =>
    page.evaluate(async () => {
      const held = (globalThis as unknown as { knackHeld: Held }).knackHeld;
      held.release!();
      await held.done;
    });
}

/** Counts a change as started in the page (it is called, its transaction queued behind the hold). */
type Started = { knackStarted?: number };
const started = (page: Page, count: number) => page.waitForFunction((n) => ((globalThis as unknown as Started).knackStarted ?? 0) >= n, count);

const gateOf = (page: Page) => page.evaluate(() => (globalThis.knack!.settings as unknown as { get(key: string): Record<string, unknown> }).get('gate'));
const storedGate = (page: Page) => page.evaluate(() => globalThis.knack!.db!.get('settings', 'gate'));

/** Changes the gate settings in the page, counting itself as started first. */
const setGate = (page: Page, change: unknown) =>
  page.evaluate((fields) => {
    const w = globalThis as unknown as Started;
    w.knackStarted = (w.knackStarted ?? 0) + 1;
    return (globalThis.knack!.settings as unknown as { update(key: string, change: unknown): Promise<unknown> }).update('gate', fields);
  }, change);

test.describe('no lost update on real IndexedDB', () => {
  test('settings, one tab: the daily cap and the gate model changed back to back both land', async ({ page }) => {
    await openApp(page);
    const release = await holdStore(page, 'settings');
    const changes = [setGate(page, { dailyCap: 120 }), setGate(page, { provider: { baseUrl: '', model: 'judge-model' } })];
    await started(page, 2);
    await release();
    await Promise.all(changes);
    const both = { dailyCap: 120, provider: { model: 'judge-model' } };
    expect(await storedGate(page)).toMatchObject(both);
    expect(await gateOf(page)).toMatchObject(both);
    await page.reload();
    await page.evaluate(async () => void (await globalThis.knack!.ready));
    await expect.poll(() => gateOf(page)).toMatchObject(both);
  });

  test('settings, two tabs: each changes its own field at the same moment and both tabs end with both', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    const release = await holdStore(tabA, 'settings');
    const changes = [setGate(tabA, { dailyCap: 120 }), setGate(tabB, { provider: { baseUrl: '', model: 'judge-model' } })];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await release();
    await Promise.all(changes);
    const both = { dailyCap: 120, provider: { model: 'judge-model' } };
    expect(await storedGate(tabA)).toMatchObject(both);
    await expect.poll(() => gateOf(tabA)).toMatchObject(both);
    await expect.poll(() => gateOf(tabB)).toMatchObject(both);
  });

  test('settings, two tabs: gate usage counted in both tabs at once adds up', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    const count = (tab: Page, requests: number) =>
      tab.evaluate((n) => {
        const w = globalThis as unknown as Started;
        w.knackStarted = (w.knackStarted ?? 0) + 1;
        type Gate = { usage: { day: string; requests: number } };
        const settings = globalThis.knack!.settings as unknown as { update(key: string, change: (gate: Gate) => unknown): Promise<unknown> };
        return settings.update('gate', (gate) => ({ usage: { day: 'd', requests: (gate.usage.day === 'd' ? gate.usage.requests : 0) + n } }));
      }, requests);
    const release = await holdStore(tabA, 'settings');
    const changes = [count(tabA, 5), count(tabB, 7)];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await release();
    await Promise.all(changes);
    expect(await storedGate(tabA)).toMatchObject({ usage: { day: 'd', requests: 12 } });
  });

  test('usage, two tabs: a use counted in one tab and a pin set in the other both land', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    // The skill services load first, so each change goes straight to its transaction.
    await Promise.all([tabA, tabB].map((tab) => tab.evaluate(async () => void (await globalThis.knack!.app!.skills()))));
    const release = await holdStore(tabA, 'usage');
    const changes = [
      tabA.evaluate(async () => {
        const { usage } = (await globalThis.knack!.app!.skills()).engine;
        const w = globalThis as unknown as Started;
        w.knackStarted = 1;
        return usage.bumpUse('shared');
      }),
      tabB.evaluate(async () => {
        const { usage } = (await globalThis.knack!.app!.skills()).engine;
        const w = globalThis as unknown as Started;
        w.knackStarted = 1;
        return usage.setPinned('shared', true);
      }),
    ];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await release();
    await Promise.all(changes);
    expect(await tabB.evaluate(() => globalThis.knack!.db!.get('usage', 'shared'))).toMatchObject({ use_count: 1, pinned: true });
  });

  test('pending, two tabs: approving one staged memory write in both tabs at once writes it once', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    const id = await tabA.evaluate(async () => {
      const staged = await globalThis.knack!.app!.storage.stores.pending.stage({
        subsystem: 'memory',
        action: 'add',
        gist: 'add a note',
        origin: 'foreground',
        payload: { action: 'add', target: 'memory', content: 'Approved exactly once.' },
        reason: 'test',
        diff: '',
      });
      return staged.id;
    });
    const outcomes = await Promise.all([tabA, tabB].map((tab) => tab.evaluate((pendingId) => globalThis.knack!.app!.pending.approve(pendingId), id)));
    expect(outcomes.filter((outcome) => outcome.success)).toHaveLength(1);
    const entries = await tabA.evaluate(async () => (await globalThis.knack!.app!.memory()).store.entries('memory'));
    expect(entries.filter((entry) => entry === 'Approved exactly once.')).toHaveLength(1);
  });

  test('memory files, two tabs: entries added in both tabs at once are both kept', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    const add = (tab: Page, text: string) => tab.evaluate(async (entry) => (await globalThis.knack!.app!.memory()).store.add('memory', entry), text);
    const results = await Promise.all([add(tabA, 'Written in tab A.'), add(tabB, 'Written in tab B.')]);
    expect(results.map((result) => result.success)).toEqual([true, true]);
    const entries = await tabA.evaluate(async () => (await globalThis.knack!.app!.memory()).store.entries('memory'));
    expect(entries).toEqual(expect.arrayContaining(['Written in tab A.', 'Written in tab B.']));
  });

  test('verdicts, two tabs: an approval in one tab and a rewrite of the run in the other both land', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    await Promise.all([tabA, tabB].map((tab) => tab.evaluate(async () => void (await globalThis.knack!.app!.skills()))));
    await tabA.evaluate(() =>
      globalThis.knack!.db!.put('verdicts', { id: 'run-1', skill: 'held-skill', status: 'applied', finishedAt: '2026-12-01T00:00:00Z', verdict: { verdict: 'staged' }, note: 'first' } as never, 'run-1'),
    );
    // Tab B rewrites the run as it read it before the hold (its read would queue behind the hold).
    const stored = await tabB.evaluate(async () => (await globalThis.knack!.app!.skills()).verdicts.get('run-1'));
    const release = await holdStore(tabA, 'verdicts');
    const changes = [
      tabA.evaluate(async () => {
        const { verdicts } = await globalThis.knack!.app!.skills();
        (globalThis as unknown as Started).knackStarted = 1;
        return verdicts.approve('held-skill', 'run-1');
      }),
      tabB.evaluate(async (record) => {
        const { verdicts } = await globalThis.knack!.app!.skills();
        (globalThis as unknown as Started).knackStarted = 1;
        return verdicts.put({ ...record, note: 'rewritten' } as never);
      }, stored),
    ];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await release();
    const [approval] = await Promise.all(changes);
    expect(approval).toMatchObject({ success: true });
    expect(await tabB.evaluate(() => globalThis.knack!.db!.get('verdicts', 'run-1'))).toMatchObject({ approvedBy: 'user', note: 'rewritten' });
  });

  test('catalogue snapshot, two tabs: skills written in both tabs at once are both in the snapshot', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    const write = (tab: Page, name: string) =>
      tab.evaluate(async (skill) => {
        const { engine } = await globalThis.knack!.app!.skills();
        const text = `---\nname: ${skill}\ndescription: Use for ${skill}.\n---\n\nBody.\n`;
        await globalThis.knack!.files!.write(`skills/${skill}/SKILL.md`, text);
        (globalThis as unknown as Started).knackStarted = 1;
        await engine.catalog.upsert(`skills/${skill}`, text);
      }, name);
    await Promise.all([tabA, tabB].map((tab) => tab.evaluate(async () => void (await globalThis.knack!.app!.skills()))));
    const release = await holdStore(tabA, 'index');
    const changes = [write(tabA, 'from-tab-a'), write(tabB, 'from-tab-b')];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await release();
    await Promise.all(changes);
    const snapshot = await tabA.evaluate(async () => JSON.stringify(await globalThis.knack!.db!.getAll('index')));
    expect(snapshot).toContain('skills/from-tab-a');
    expect(snapshot).toContain('skills/from-tab-b');
  });

  test('activity and ledger, two tabs: runs and history written in both tabs at once are all kept', async ({ context }) => {
    const [tabA, tabB] = [await context.newPage(), await context.newPage()];
    await openApp(tabA);
    await openApp(tabB);
    await Promise.all([tabA, tabB].map((tab) => tab.evaluate(async () => void (await globalThis.knack!.app!.skills()))));
    const releaseActivity = await holdStore(tabA, 'activity');
    const releaseBlobs = await holdStore(tabB, 'blobs');
    const write = (tab: Page, id: string) =>
      tab.evaluate(async (run) => {
        const { engine } = await globalThis.knack!.app!.skills();
        (globalThis as unknown as Started).knackStarted = 1;
        const bytes = new TextEncoder().encode('the same bytes in both tabs');
        await Promise.all([
          globalThis.knack!.app!.activity.put({ id: run, kind: 'curator', status: 'running', startedAt: '2026-12-01T00:00:00Z' } as never),
          engine.ledger.record({ skill: run, action: 'create', actor: 'user', before: new Map(), after: new Map([[`skills/${run}/SKILL.md`, bytes]]) } as never),
        ]);
      }, id);
    const changes = [write(tabA, 'run-a'), write(tabB, 'run-b')];
    await Promise.all([started(tabA, 1), started(tabB, 1)]);
    await releaseActivity();
    await releaseBlobs();
    await Promise.all(changes);
    const kept = await tabA.evaluate(async () => ({
      runs: (await globalThis.knack!.db!.getAllKeys('activity')).map(String),
      skills: ((await globalThis.knack!.db!.getAll('ledger')) as { skill: string }[]).map((entry) => entry.skill),
      blobs: (await globalThis.knack!.db!.getAllKeys('blobs')).length,
    }));
    expect(kept.runs).toEqual(expect.arrayContaining(['run-a', 'run-b']));
    expect(kept.skills).toEqual(expect.arrayContaining(['run-a', 'run-b']));
    expect(kept.blobs).toBe(1);
  });
});
