/**
 * RecordStore.getAllByIndex on the real IndexedDB store: the verdict store finds a skill's runs
 * through the `verdicts.bySkill` index (src/gate/verdictStore.ts). Browser storage is not mocked.
 */
import { expect, test } from '@playwright/test';
import { openApp } from './storageHarness';

test('getAllByIndex returns the records of one skill from the verdicts bySkill index', async ({ page }) => {
  await openApp(page);
  const found = await page.evaluate(async () => {
    const store = globalThis.knack!.records!<{ id: string; skill: string }>('verdicts');
    await store.putMany([
      ['run-b', { id: 'run-b', skill: 'alpha' }],
      ['run-a', { id: 'run-a', skill: 'alpha' }],
      ['run-c', { id: 'run-c', skill: 'beta' }],
    ]);
    const alpha = (await store.getAllByIndex!('bySkill', 'alpha')).map((r) => r.id);
    const none = await store.getAllByIndex!('bySkill', 'gamma');
    await store.clear();
    return { alpha, none };
  });
  expect(found).toEqual({ alpha: ['run-a', 'run-b'], none: [] });
});
