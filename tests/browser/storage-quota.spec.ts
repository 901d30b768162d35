/**
 * SPEC §3.3 inv. 4: a full disk loses nothing. The origin's quota is forced down through
 * CDP (`Storage.overrideQuotaForOrigin`); OPFS writes, IndexedDB writes and a journaled
 * operation must fail with the StorageFullError message and leave earlier data intact.
 */
import { expect, test } from '@playwright/test';
import { openApp, strayTempFiles } from './storageHarness';

const KEEP_FILE = 'test-quota/keep.txt';
const BIG = 3 * 1024 * 1024;

test('writes past a small quota fail clearly and corrupt nothing', async ({ page, baseURL }) => {
  // The quota must be overridden before the app opens its database: Chromium's IndexedDB
  // backend reads the quota when it starts up for the origin, and an override that lands
  // later is seen only sometimes. A static file of the origin gives CDP a page to attach to.
  // 1 MiB leaves room for what is written first.
  await page.goto('/icons/icon.svg');
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(baseURL!).origin;
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 1024 * 1024 });
  await openApp(page);

  // What exists before the disk fills up.
  const before = await page.evaluate(async (keepPath) => {
    const k = globalThis.knack!;
    const keepText = 'keep '.repeat(40_000); // 200 KB
    await k.files!.write(keepPath, keepText);
    await k.files!.write('test-quota/trio/a.md', 'old a');
    await k.files!.write('test-quota/trio/SKILL.md', 'old skill');
    await k.records!('settings').put('quota-test', { theme: 'dark', n: 1 });
    await k.db!.put('sessions', { id: 'quota-session', title: 'kept', createdAt: 1, updatedAt: 1 });
    return { keepLength: keepText.length };
  }, KEEP_FILE);

  const failures = await page.evaluate(
    async ({ keepPath, big }) => {
      const k = globalThis.knack!;
      const bigText = 'x'.repeat(big);
      // IndexedDB compresses values, so its oversized record must be incompressible.
      const noise = new Uint8Array(big);
      for (let i = 0; i < big; i += 65536) crypto.getRandomValues(noise.subarray(i, i + 65536));
      const outcome = async (work: () => Promise<unknown>) => {
        try {
          await work();
          return { name: 'no error', message: '' };
        } catch (err) {
          return { name: (err as Error).name, message: (err as Error).message, isClass: err instanceof k.StorageFullError };
        }
      };
      return {
        newFile: await outcome(() => k.files!.write('test-quota/big.txt', bigText)),
        replaceFile: await outcome(() => k.files!.write(keepPath, bigText)),
        record: await outcome(() => k.records!('settings').put('quota-big', { blob: noise })),
        recordBatch: await outcome(() =>
          (k.records!('blobs') as unknown as { putMany(e: [string, unknown][]): Promise<void> }).putMany([
            ['small', 'fits'],
            ['huge', noise],
          ]),
        ),
        journal: await outcome(() =>
          k.journal!.run('quota-test', [
            { op: 'write', path: 'test-quota/trio/a.md', data: 'new a' },
            { op: 'write', path: 'test-quota/trio/b.md', data: bigText },
            { op: 'write', path: 'test-quota/trio/SKILL.md', data: 'new skill' },
          ]),
        ),
      };
    },
    { keepPath: KEEP_FILE, big: BIG },
  );

  for (const [what, failure] of Object.entries(failures)) {
    expect(failure.name, what).toBe('StorageFullError');
    expect(failure.isClass, what).toBe(true);
    expect(failure.message, what).toMatch(/storage for Knack is full/);
    expect(failure.message, what).toMatch(/Knack is using .+ of the .+ this browser allows it/);
    expect(failure.message, what).toMatch(/delete old chat sessions or downloaded models/);
    expect(failure.message, what).toMatch(/export a backup/);
  }

  const after = await page.evaluate(async (keepPath) => {
    const k = globalThis.knack!;
    return {
      keep: await k.files!.readText(keepPath),
      bigExists: await k.files!.exists('test-quota/big.txt'),
      trio: {
        a: await k.files!.readText('test-quota/trio/a.md'),
        b: await k.files!.readText('test-quota/trio/b.md'),
        skill: await k.files!.readText('test-quota/trio/SKILL.md'),
      },
      setting: await k.records!('settings').get('quota-test'),
      bigSetting: await k.records!('settings').get('quota-big'),
      batchHalf: await k.records!('blobs').get('small'),
      session: await k.db!.get('sessions', 'quota-session'),
      intents: (await k.journal!.unfinished()).length,
    };
  }, KEEP_FILE);

  expect(after.keep?.length).toBe(before.keepLength);
  expect(after.keep?.startsWith('keep keep')).toBe(true);
  expect(after.bigExists).toBe(false);
  expect(after.trio).toEqual({ a: 'old a', b: null, skill: 'old skill' });
  expect(after.setting).toEqual({ theme: 'dark', n: 1 });
  expect(after.bigSetting).toBeUndefined();
  expect(after.batchHalf).toBeUndefined(); // one transaction: all or none
  expect(after.session).toMatchObject({ title: 'kept' });
  expect(after.intents).toBe(0);
  expect(await strayTempFiles(page)).toEqual([]);

  // With the quota back, the same writes succeed: nothing was left wedged.
  await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  const recovered = await page.evaluate(async () => {
    const k = globalThis.knack!;
    await k.files!.write('test-quota/big.txt', 'y'.repeat(1024 * 1024));
    await k.journal!.run('quota-test', [
      { op: 'write', path: 'test-quota/trio/a.md', data: 'new a' },
      { op: 'write', path: 'test-quota/trio/SKILL.md', data: 'new skill' },
    ]);
    return {
      big: (await k.files!.readText('test-quota/big.txt'))?.length,
      skill: await k.files!.readText('test-quota/trio/SKILL.md'),
    };
  });
  expect(recovered).toEqual({ big: 1024 * 1024, skill: 'new skill' });
});

test('the storage status reports usage, quota and persistence', async ({ page }) => {
  await openApp(page);
  const status = await page.evaluate(() => globalThis.knack!.storageStatus());
  expect(typeof status.persisted).toBe('boolean');
  expect(status.quota).toBeGreaterThan(0);
  expect(status.usage).toBeGreaterThanOrEqual(0);
  expect(status.usageDetails).toBeDefined();
});
