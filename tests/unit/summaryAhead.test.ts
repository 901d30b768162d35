import { describe, expect, it } from 'vitest';
import { SummaryAhead } from '../../src/agent/summaryAhead';
import type { TurnBudget } from '../../src/agent/chatContext';

/** A turn budget whose summary ahead runs until released or aborted, and whose request needs it or not. */
function fakeBudget(needed: boolean) {
  const calls = { summaries: 0, aborted: 0, release: () => undefined as void };
  const budget = {
    usage: null,
    keeper: { needsCompaction: async () => needed },
    summariseAhead: (signal?: AbortSignal) =>
      new Promise<'compacted' | 'failed'>((resolve) => {
        calls.summaries += 1;
        calls.release = () => resolve('compacted');
        signal?.addEventListener('abort', () => (calls.aborted += 1, resolve('failed')), { once: true });
      }),
  } as unknown as TurnBudget;
  return { budget, calls };
}

function ahead(needed: boolean) {
  const fake = fakeBudget(needed);
  const changes: string[] = [];
  const summary = new SummaryAhead({ budget: async () => fake.budget, onChange: (busy, budget) => void changes.push(budget ? 'compacted' : busy ? 'busy' : 'idle') });
  return { summary, changes, ...fake };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('SummaryAhead', () => {
  it('writes one summary at a time, and says when it is busy and done', async () => {
    const { summary, changes, calls } = ahead(true);
    summary.start();
    summary.start();
    expect(summary.busy).toBe(true);
    await tick();
    expect(calls.summaries).toBe(1);
    calls.release();
    await summary.settled();
    expect(summary.busy).toBe(false);
    expect(changes).toEqual(['busy', 'compacted', 'idle']);
  });

  it('a send whose request needs the summary waits for it', async () => {
    const { summary, calls } = ahead(true);
    summary.start();
    await tick();
    let settled = false;
    const sending = summary.settle().then(() => (settled = true));
    await tick();
    expect(settled).toBe(false);
    calls.release();
    await sending;
    expect(calls.aborted).toBe(0);
  });

  it('a send whose request fits without it cancels it at once', async () => {
    const { summary, calls } = ahead(false);
    summary.start();
    await tick();
    await summary.settle();
    expect(calls.aborted).toBe(1);
    expect(summary.busy).toBe(false);
  });

  it('an edit, a regenerate or leaving the chat cancels it', async () => {
    const { summary, calls } = ahead(true);
    summary.start();
    await tick();
    await summary.cancel();
    expect(calls.aborted).toBe(1);
    summary.start();
    await tick();
    summary.abort();
    await summary.settled();
    expect(calls.aborted).toBe(2);
  });
});
