/**
 * SPEC §3.3 inv. 3: no lost updates. Two tabs read-modify-write one file under the same
 * Web Lock; every increment must survive.
 */
import { expect, test } from '@playwright/test';
import { openApp } from './storageHarness';

const ROUNDS = 200;
const COUNTER = 'test-locks/counter.txt';

test('two tabs incrementing one counter under the lock lose no update', async ({ context }) => {
  const [tabA, tabB] = [await context.newPage(), await context.newPage()];
  await openApp(tabA);
  await openApp(tabB);
  await tabA.evaluate((path) => globalThis.knack!.files!.write(path, '0'), COUNTER);

  const increment = ({ path, rounds }: { path: string; rounds: number }) =>
    (async () => {
      const { files, locks } = globalThis.knack!;
      for (let i = 0; i < rounds; i++) {
        await locks!.withLock('skill:counter-test', async () => {
          const current = Number(await files!.readText(path));
          // Yield between read and write so that, without the lock, the tabs interleave.
          await new Promise((resolve) => setTimeout(resolve, 0));
          await files!.write(path, String(current + 1));
        });
      }
    })();

  await Promise.all([
    tabA.evaluate(increment, { path: COUNTER, rounds: ROUNDS }),
    tabB.evaluate(increment, { path: COUNTER, rounds: ROUNDS }),
  ]);

  const final = await tabA.evaluate((path) => globalThis.knack!.files!.readText(path), COUNTER);
  expect(Number(final)).toBe(2 * ROUNDS);
});

test('a lock request can be abandoned with an AbortSignal while another tab holds it', async ({ context }) => {
  const [holder, waiter] = [await context.newPage(), await context.newPage()];
  await openApp(holder);
  await openApp(waiter);

  await holder.evaluate(() => {
    const w = globalThis as unknown as { releaseTestLock?: () => void };
    void globalThis.knack!.locks!.withLock('skill:abort-test', () => new Promise<void>((release) => (w.releaseTestLock = release)));
  });
  await holder.waitForFunction(() => typeof (globalThis as unknown as { releaseTestLock?: unknown }).releaseTestLock === 'function');

  const outcome = await waiter.evaluate(async () => {
    const controller = new AbortController();
    let ran = false;
    const attempt = globalThis.knack!.locks!.withLock('skill:abort-test', async () => {
      ran = true;
    }, { signal: controller.signal });
    // Abort once this tab's request is queued behind the holder's lock, not after a guess.
    // (Each query is a round trip to the browser's lock manager, so the loop yields.)
    const queued = async () => ((await navigator.locks.query()).pending ?? []).some((lock) => lock.name === 'skill:abort-test');
    for (let tries = 1; !(await queued()); tries++) {
      if (tries === 10_000) throw new Error('the lock request never showed up as pending');
    }
    controller.abort();
    const error = await attempt.then(() => null, (err: Error) => err.name);
    return { error, ran };
  });
  expect(outcome).toEqual({ error: 'AbortError', ran: false });

  // Once released, the same key is free again.
  await holder.evaluate(() => (globalThis as unknown as { releaseTestLock: () => void }).releaseTestLock());
  const ranAfter = await waiter.evaluate(() => globalThis.knack!.locks!.withLock('skill:abort-test', async () => 'ran'));
  expect(ranAfter).toBe('ran');
});
