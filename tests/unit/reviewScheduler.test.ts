import { describe, expect, it, vi } from 'vitest';
import { ReviewScheduler, type ReviewBackend, type ReviewRecord, type ReviewRequest } from '../../src/review/reviewScheduler';
import type { ReviewOutcome } from '../../src/review/reviewRun';

const outcome = (end: ReviewOutcome['end'] = 'final'): ReviewOutcome => ({ kind: 'skills', end, finalText: 'Nothing to save.', toolCalls: [], notices: [], modelCalls: 1 });

function controllableBackend(options: { ackCancel: boolean }) {
  const runs = new Map<string, (o: ReviewOutcome) => void>();
  const backend: ReviewBackend & { requests: ReviewRequest[]; resets: number } = {
    requests: [],
    resets: 0,
    run(request) {
      this.requests.push(request);
      return new Promise((resolve) => runs.set(request.runId, resolve));
    },
    async cancel(runId) {
      if (options.ackCancel) runs.get(runId)?.(outcome('stopped'));
      else await new Promise(() => undefined);
    },
    reset() {
      this.resets += 1;
    },
  };
  return { backend, finish: (runId: string) => runs.get(runId)?.(outcome()) };
}

const request = { sessionId: 's1', kind: 'skills' as const, sessionMessages: [{ role: 'user' as const, content: 'hi' }], systemPrompt: 'S' };

describe('review scheduler', () => {
  it('runs one review per session at a time and records start and end', async () => {
    const { backend, finish } = controllableBackend({ ackCancel: true });
    const records: ReviewRecord[] = [];
    const scheduler = new ReviewScheduler(backend, (r) => records.push(r));
    const first = scheduler.schedule(request, 'itersSinceSkill reached 10');
    expect(first).not.toBeNull();
    expect(scheduler.schedule(request, 'again')).toBeNull();
    expect(scheduler.schedule({ ...request, sessionId: 's2' }, 'other session')).not.toBeNull();
    finish(first!.runId);
    await vi.waitFor(() => expect(scheduler.isRunning('s1')).toBe(false), { timeout: 5_000, interval: 10 });
    expect(records.filter((r) => r.runId === first!.runId).map((r) => r.status)).toEqual(['running', 'done']);
  });

  it('the review gets a copy of the messages, not the live array', () => {
    const { backend } = controllableBackend({ ackCancel: true });
    const scheduler = new ReviewScheduler(backend, () => undefined);
    const live = [{ role: 'user' as const, content: 'hi' }];
    scheduler.schedule({ ...request, sessionMessages: live }, 't');
    live.push({ role: 'user', content: 'later' });
    expect(backend.requests[0]!.sessionMessages).toHaveLength(1);
  });

  it('a new user message cancels the running review; an acknowledged cancel needs no reset', async () => {
    const { backend } = controllableBackend({ ackCancel: true });
    const records: ReviewRecord[] = [];
    const scheduler = new ReviewScheduler(backend, (r) => records.push(r));
    scheduler.schedule(request, 't');
    await scheduler.cancelForLiveTurn('s1');
    expect(backend.resets).toBe(0);
    expect(records.at(-1)!.status).toBe('cancelled');
    expect(scheduler.isRunning('s1')).toBe(false);
  });

  it('a review that ignores the cancel is reset after the 2-second grace', async () => {
    vi.useFakeTimers();
    try {
      const { backend } = controllableBackend({ ackCancel: false });
      const scheduler = new ReviewScheduler(backend, () => undefined);
      scheduler.schedule(request, 't');
      const cancelling = scheduler.cancelForLiveTurn('s1');
      expect(scheduler.isRunning('s1')).toBe(false);
      await vi.advanceTimersByTimeAsync(2000);
      await cancelling;
      expect(backend.resets).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a failing review is recorded as failed and does not throw', async () => {
    const backend: ReviewBackend = { run: async () => Promise.reject(new Error('model down')), cancel: async () => undefined, reset: () => undefined };
    const records: ReviewRecord[] = [];
    const scheduler = new ReviewScheduler(backend, (r) => records.push(r));
    scheduler.schedule(request, 't');
    await vi.waitFor(() => expect(records.at(-1)!.status).toBe('failed'), { timeout: 5_000, interval: 10 });
    expect(records.at(-1)!.error).toBe('model down');
  });
});
