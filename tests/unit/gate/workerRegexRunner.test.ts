import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runRegexJob } from '../../../src/gate/checks';
import {
  createWatchdogRegexRunner,
  type RegexWorkerPort,
  type RegexWorkerReply,
  type RegexWorkerRequest,
} from '../../../src/gate/workerRegexRunner';
import { createNodeRegexRunner } from '../helpers/nodeRegexRunner';

/** A scripted worker: `hang` lists patterns it never answers (as if stuck backtracking). */
class FakeWorker implements RegexWorkerPort {
  requests: RegexWorkerRequest[] = [];
  terminated = false;
  private onReply: (reply: RegexWorkerReply) => void = () => {};
  private onError: (reason: string) => void = () => {};

  constructor(private readonly options: { hang?: string[]; silent?: boolean; failOn?: string } = {}) {}

  post(request: RegexWorkerRequest): void {
    this.requests.push(request);
    if (this.options.hang?.includes(request.pattern)) return;
    if (this.options.failOn === request.pattern) {
      queueMicrotask(() => this.onError('out of memory'));
      return;
    }
    queueMicrotask(() => this.onReply({ id: request.id, ...runRegexJob(request) }));
  }

  listen(onReply: (reply: RegexWorkerReply) => void, onError: (reason: string) => void): void {
    this.onReply = onReply;
    this.onError = onError;
    if (!this.options.silent) queueMicrotask(() => onReply({ ready: true }));
  }

  terminate(): void {
    this.terminated = true;
  }
}

function spawning(options: ConstructorParameters<typeof FakeWorker>[0] = {}) {
  const spawned: FakeWorker[] = [];
  const spawn = () => {
    const worker = new FakeWorker(options);
    spawned.push(worker);
    return worker;
  };
  return { spawned, spawn };
}

describe('watchdog regex runner (scripted worker)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a batch in one worker, one job at a time, and terminates it afterwards', async () => {
    const { spawned, spawn } = spawning();
    const runner = createWatchdogRegexRunner(spawn);
    const outcomes = await runner.testMany([
      { pattern: 'a', flags: '', text: 'abc' },
      { pattern: 'z', flags: '', text: 'abc' },
      { pattern: 'B', flags: 'i', text: 'abc' },
    ]);
    expect(outcomes).toEqual([
      { ok: true, match: true },
      { ok: true, match: false },
      { ok: true, match: true },
    ]);
    expect(spawned).toHaveLength(1);
    expect(spawned[0].requests.map((request) => request.id)).toEqual([0, 1, 2]);
    expect(spawned[0].terminated).toBe(true);
  });

  it('spawns nothing for an empty batch', async () => {
    const { spawned, spawn } = spawning();
    expect(await createWatchdogRegexRunner(spawn).testMany([])).toEqual([]);
    expect(spawned).toHaveLength(0);
  });

  it('times a stuck job out after 1,000 ms, terminates the worker and skips the rest', async () => {
    const { spawned, spawn } = spawning({ hang: ['(a+)+$'] });
    const runner = createWatchdogRegexRunner(spawn);
    const pending = runner.testMany([
      { pattern: 'a', flags: '', text: 'aaab' },
      { pattern: '(a+)+$', flags: '', text: 'aaab' },
      { pattern: 'b', flags: '', text: 'aaab' },
    ]);
    await vi.advanceTimersByTimeAsync(999);
    expect(spawned[0].terminated).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcomes = await pending;
    expect(outcomes[0]).toEqual({ ok: true, match: true });
    expect(outcomes[1]).toMatchObject({ ok: false, timedOut: true, reason: expect.stringMatching(/longer than 1,000 ms/) });
    expect(outcomes[2]).toMatchObject({ ok: false, reason: expect.stringMatching(/earlier regex check of this answer timed out/) });
    expect(spawned[0].requests).toHaveLength(2);
    expect(spawned[0].terminated).toBe(true);
  });

  it('honours a configured timeout', async () => {
    const { spawn } = spawning({ hang: ['x'] });
    const pending = createWatchdogRegexRunner(spawn, { timeoutMs: 50 }).test('x', '', 'x');
    await vi.advanceTimersByTimeAsync(50);
    expect(await pending).toMatchObject({ ok: false, timedOut: true, reason: expect.stringMatching(/longer than 50 ms/) });
  });

  it('reports a worker that never becomes ready, without calling it a timeout of the pattern', async () => {
    const { spawned, spawn } = spawning({ silent: true });
    const pending = createWatchdogRegexRunner(spawn, { startTimeoutMs: 2_000 }).test('a', '', 'a');
    await vi.advanceTimersByTimeAsync(2_000);
    const outcome = await pending;
    expect(outcome).toEqual({ ok: false, reason: 'the regex check worker did not start within 2 s' });
    expect(spawned[0].requests).toHaveLength(0);
    expect(spawned[0].terminated).toBe(true);
  });

  it('reports a worker error for the job and the rest of the batch', async () => {
    const { spawn } = spawning({ failOn: 'boom' });
    const outcomes = await createWatchdogRegexRunner(spawn).testMany([
      { pattern: 'boom', flags: '', text: 'x' },
      { pattern: 'x', flags: '', text: 'x' },
    ]);
    expect(outcomes).toEqual([
      { ok: false, reason: 'the regex check worker failed: out of memory' },
      { ok: false, reason: 'the regex check worker failed: out of memory' },
    ]);
  });

  it('reports a worker that cannot be spawned', async () => {
    const runner = createWatchdogRegexRunner(() => {
      throw new Error('workers are disabled');
    });
    expect(await runner.test('a', '', 'a')).toEqual({ ok: false, reason: 'the regex check worker could not start: workers are disabled' });
  });
});

describe('watchdog regex runner (Node worker threads)', () => {
  it('stops (a+)+$ on 30 a and a b, then runs the next batch in a fresh worker', async () => {
    const runner = createNodeRegexRunner();
    const stuck = await runner.test('(a+)+$', '', `${'a'.repeat(30)}b`);
    expect(stuck).toMatchObject({ ok: false, timedOut: true });
    expect(await runner.test('^a+b$', '', `${'a'.repeat(30)}b`)).toEqual({ ok: true, match: true });
  });

  it('reports an invalid pattern from inside the worker', async () => {
    expect(await createNodeRegexRunner().test('(', '', 'x')).toMatchObject({ ok: false, reason: expect.stringMatching(/^invalid regex/) });
  });
});

describe('workers/regexCheck.worker.ts', () => {
  it('says it is ready, then answers each job with its id and outcome', async () => {
    const posted: unknown[] = [];
    const scope: { onmessage?: (event: { data: RegexWorkerRequest }) => void; postMessage: (message: unknown) => void } = {
      postMessage: (message) => posted.push(message),
    };
    vi.stubGlobal('self', scope);
    try {
      await import('../../../workers/regexCheck.worker');
      expect(posted).toEqual([{ ready: true }]);
      scope.onmessage?.({ data: { id: 4, pattern: 'font', flags: 'i', text: 'FONT' } });
      scope.onmessage?.({ data: { id: 5, pattern: 'x', flags: 'g', text: 'x' } });
      expect(posted.slice(1)).toEqual([
        { id: 4, ok: true, match: true },
        { id: 5, ok: false, reason: expect.stringMatching(/'g' is not allowed/) },
      ]);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
