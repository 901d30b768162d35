import { describe, expect, it } from 'vitest';
import { CancelledError, isCancelled, throttledProgress, throwIfCancelled, type Progress } from '../../src/storage/progress';

describe('progress', () => {
  it('throttles reports but always passes the last unit and phase changes', () => {
    const seen: Progress[] = [];
    let clock = 0;
    const report = throttledProgress((p) => seen.push(p), 50, () => clock);
    report({ phase: 'Writing', done: 0, total: 3 });
    clock = 10;
    report({ phase: 'Writing', done: 1, total: 3 });
    clock = 20;
    report({ phase: 'Indexing', done: 0, total: 3 });
    clock = 30;
    report({ phase: 'Indexing', done: 3, total: 3 });
    expect(seen.map((p) => `${p.phase}:${p.done}`)).toEqual(['Writing:0', 'Indexing:0', 'Indexing:3']);
  });

  it('is a no-op without a listener', () => {
    expect(() => throttledProgress(undefined)({ phase: 'x', done: 1, total: 1 })).not.toThrow();
  });

  it('throws a CancelledError only once the signal is aborted', () => {
    const controller = new AbortController();
    expect(() => throwIfCancelled(controller.signal)).not.toThrow();
    controller.abort();
    let caught: unknown;
    try {
      throwIfCancelled(controller.signal, 'Import');
    } catch (error) {
      caught = error;
    }
    expect(isCancelled(caught)).toBe(true);
    expect((caught as CancelledError).message).toBe('Import was cancelled.');
    expect(isCancelled(new Error('x'))).toBe(false);
  });
});
