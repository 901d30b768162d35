/** Rerunner (storage/rerun.ts): never two runs at once, and a call during a run gets one more run after it. */
import { describe, expect, it } from 'vitest';
import { Rerunner } from '../../src/storage/rerun';

describe('Rerunner', () => {
  it('folds any number of calls during a run into one more run, never two at once', async () => {
    let active = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const runner = new Rerunner(async () => {
      active += 1;
      most = Math.max(most, active);
      await new Promise<void>((resolve) => gates.push(resolve));
      active -= 1;
    });
    const until = async (ok: () => boolean) => {
      while (!ok()) await new Promise((resolve) => setTimeout(resolve, 0));
    };
    const first = runner.run();
    const during = [runner.run(), runner.run(), runner.run()];
    expect(during.every((promise) => promise === first)).toBe(true);
    await until(() => gates.length === 1);
    gates[0]!();
    await until(() => gates.length === 2);
    gates[1]!();
    await first;
    expect(gates).toHaveLength(2);
    expect(most).toBe(1);
    expect(runner.running).toBeNull();
  });

  it('runs again after a failed run, and reports the failure to the callers of that run', async () => {
    let calls = 0;
    const runner = new Rerunner(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first run failed');
    });
    await expect(runner.run()).rejects.toThrow('first run failed');
    await runner.run();
    expect(calls).toBe(2);
  });
});
