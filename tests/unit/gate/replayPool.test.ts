import { describe, expect, it, vi } from 'vitest';
import { isReplayAborted } from '../../../src/gate/replayArm';
import { poolSizeFor, ReplayPool } from '../../../src/gate/replayPool';

/** A task that runs until the test finishes it, logging when it starts. */
function gatedTasks(log: string[]) {
  const finishers = new Map<string, (value: string) => void>();
  const task = (name: string) => (signal: AbortSignal) =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      finishers.set(name, (value) => {
        log.push(`end ${name}`);
        resolve(value);
      });
      signal.addEventListener('abort', () => reject(new Error(`${name} saw the abort`)), { once: true });
    });
  const finish = async (name: string) => {
    await vi.waitFor(() => expect(finishers.has(name)).toBe(true));
    finishers.get(name)!(name);
  };
  return { task, finish };
}

describe('poolSizeFor', () => {
  it.each<[string, { kind: 'openai-compatible' | 'webgpu'; baseUrl: string; model: string }, number]>([
    ['web-llm', { kind: 'webgpu', baseUrl: '', model: 'Qwen3-0.6B-q4f32_1-MLC' }, 1],
    ['localhost', { kind: 'openai-compatible', baseUrl: 'http://localhost:11434/v1', model: 'm' }, 2],
    ['127.x', { kind: 'openai-compatible', baseUrl: 'http://127.0.0.2:1234/v1', model: 'm' }, 2],
    ['[::1]', { kind: 'openai-compatible', baseUrl: 'http://[::1]:8080/v1', model: 'm' }, 2],
    ['a LAN server', { kind: 'openai-compatible', baseUrl: 'http://192.168.0.9:11434/v1', model: 'm' }, 4],
    ['a hosted API', { kind: 'openai-compatible', baseUrl: 'https://api.openai.com/v1', model: 'm' }, 4],
  ])('%s → %i', (_label, settings, size) => {
    expect(poolSizeFor(settings)).toBe(size);
  });

  it('takes the remote size from a setting', () => {
    expect(poolSizeFor({ kind: 'openai-compatible', baseUrl: 'https://openrouter.ai/api/v1', model: 'm' }, 6)).toBe(6);
    expect(poolSizeFor({ kind: 'openai-compatible', baseUrl: 'http://localhost:1234/v1', model: 'm' }, 6)).toBe(2);
  });
});

describe('ReplayPool', () => {
  it('runs at most `size` tasks at once, in the order given', async () => {
    const log: string[] = [];
    const { task, finish } = gatedTasks(log);
    const pool = new ReplayPool(2);
    const results = ['a', 'b', 'c', 'd'].map((name) => pool.run(task(name)));
    expect(log).toEqual(['start a', 'start b']);
    expect([pool.running, pool.queued]).toEqual([2, 2]);
    await finish('b');
    await vi.waitFor(() => expect(log).toContain('start c'));
    expect(log).not.toContain('start d');
    await finish('a');
    await finish('c');
    await finish('d');
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start a', 'start b', 'start c', 'start d']);
  });

  it('runs the two arms of a case back to back in one slot', async () => {
    const log: string[] = [];
    const { task, finish } = gatedTasks(log);
    const pool = new ReplayPool(1);
    const first = pool.runCase(task('1-base'), task('1-skill'));
    const second = pool.runCase(task('2-base'), task('2-skill'));
    await finish('1-base');
    await finish('1-skill');
    await finish('2-base');
    await finish('2-skill');
    expect(await first).toEqual(['1-base', '1-skill']);
    expect(await second).toEqual(['2-base', '2-skill']);
    expect(log).toEqual(['start 1-base', 'end 1-base', 'start 1-skill', 'end 1-skill', 'start 2-base', 'end 2-base', 'start 2-skill', 'end 2-skill']);
  });

  it('a failing task frees its slot', async () => {
    const pool = new ReplayPool(1);
    const failing = pool.run(async () => {
      throw new Error('boom');
    });
    const next = pool.run(async () => 'next');
    await expect(failing).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });

  it('cancel aborts running tasks, rejects queued and later ones with ReplayAbortedError, and starts nothing more', async () => {
    const log: string[] = [];
    const { task } = gatedTasks(log);
    const pool = new ReplayPool(1);
    const running = pool.run(task('a'));
    const queued = pool.run(task('b'));
    pool.cancel();
    await expect(running).rejects.toThrow('a saw the abort');
    expect(isReplayAborted(await queued.catch((error: unknown) => error))).toBe(true);
    expect(isReplayAborted(await pool.run(task('c')).catch((error: unknown) => error))).toBe(true);
    await pool.whenIdle();
    expect(log).toEqual(['start a']);
  });

  it('a case cancelled between its arms does not start the second arm', async () => {
    const log: string[] = [];
    const { task, finish } = gatedTasks(log);
    const pool = new ReplayPool(1);
    const pending = pool.runCase(async (signal) => {
      const value = await task('base')(signal);
      pool.cancel();
      return value;
    }, task('skill'));
    await finish('base');
    expect(isReplayAborted(await pending.catch((error: unknown) => error))).toBe(true);
    expect(log).toEqual(['start base', 'end base']);
  });

  it('an outside signal cancels the pool', async () => {
    const controller = new AbortController();
    const pool = new ReplayPool(2, controller.signal);
    controller.abort();
    expect(pool.signal.aborted).toBe(true);
    expect(isReplayAborted(await pool.run(async () => 'x').catch((error: unknown) => error))).toBe(true);
    const early = new AbortController();
    early.abort();
    expect(new ReplayPool(1, early.signal).signal.aborted).toBe(true);
  });
});
