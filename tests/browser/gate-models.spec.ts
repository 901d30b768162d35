/**
 * Per-model verdicts in IndexedDB (docs/gate.md, "Per-model verdicts"): the version-3 migration
 * gives every stored verdict record its model key and every usage record with a current verdict
 * that verdict under its model, and drops the labels record so it is rebuilt with them.
 * Records that name no model stay exactly as they were.
 */
import { expect, test } from '@playwright/test';
import { openApp } from './storageHarness';

test('a version-2 database with verdicts upgrades to per-model verdicts', async ({ page }) => {
  await openApp(page);
  const result = await page.evaluate(async () => {
    const k = globalThis.knack!;
    const name = `knack-model-verdicts-${Date.now()}`;
    const v2 = await k.openDb({ name, migrations: k.migrations.slice(0, 2) });
    const model = { provider: 'http://127.0.0.1:9/v1', id: 'small-model', params: { temperature: 0, seed: 7, maxTokens: 1024 } };
    await v2.put('verdicts', { id: 'run-1', skill: 'house-font', model, verdict: { verdict: 'promoted' }, status: 'applied' }, 'run-1');
    await v2.put('verdicts', { id: 'odd', skill: 'house-font', payload: 'no model' }, 'odd');
    const usage = { name: 'house-font', verification: 'promoted', verification_stale: false, verdict_id: 'run-1', approved_by: null };
    await v2.put('usage', usage, 'house-font');
    await v2.put('usage', { name: 'plain', verification: 'unmeasured', verdict_id: null }, 'plain');
    await v2.put('usage', { kind: 'labels', json: '{"house-font":{"verification":"promoted","state":"active"}}' }, '#labels');
    v2.close();
    const v3 = await k.openDb({ name, migrations: k.migrations.slice(0, 3) });
    const out = {
      version: v3.version,
      run: (await v3.get('verdicts', 'run-1')) as Record<string, unknown>,
      odd: await v3.get('verdicts', 'odd'),
      usage: (await v3.get('usage', 'house-font')) as Record<string, unknown>,
      plain: await v3.get('usage', 'plain'),
      labels: await v3.get('usage', '#labels'),
    };
    v3.close();
    await new Promise<void>((resolve) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = () => resolve();
    });
    return out;
  });
  expect(result.version).toBe(3);
  expect(result.run.modelKey).toBe('http://127.0.0.1:9/v1 small-model');
  expect(result.odd).toEqual({ id: 'odd', skill: 'house-font', payload: 'no model' });
  expect(result.usage.model_verdicts).toEqual({ 'http://127.0.0.1:9/v1 small-model': { verification: 'promoted', verdict_id: 'run-1', stale: false } });
  expect(result.usage.verification).toBe('promoted');
  expect(result.plain).toEqual({ name: 'plain', verification: 'unmeasured', verdict_id: null });
  expect(result.labels).toBeUndefined();
});
