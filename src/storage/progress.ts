/**
 * Progress and cancellation for long work (docs/architecture.md, "Long work"): import, export,
 * backup, restore, rescan and model download all report through this one shape, so the UI has a
 * single progress bar and the core never imports the UI.
 */

/** Where a long task is: `done` of `total` units (skills, files, records, bytes), and what it is on now. */
export interface Progress {
  /** What the task is doing now, in words a person reads ("Reading archive", "Writing skills"). */
  phase: string;
  done: number;
  /** 0 while the total is not known yet (the bar is then indeterminate). */
  total: number;
  /** The unit being worked on now (a skill's name, a file's path), when there is one. */
  item?: string;
}

export type ProgressListener = (progress: Progress) => void;

/** What every long task accepts; both are optional so callers that do not care pass nothing. */
export interface LongTaskOptions {
  onProgress?: ProgressListener;
  /** Aborting it stops the task at the next safe point, with a `CancelledError`, having changed nothing it could not undo. */
  signal?: AbortSignal;
}

/** Thrown by a long task the user cancelled; callers show "Cancelled", never an error. */
export class CancelledError extends Error {
  constructor(what = 'The task') {
    super(`${what} was cancelled.`);
    this.name = 'CancelledError';
  }
}

export function isCancelled(error: unknown): error is CancelledError {
  return error instanceof CancelledError;
}

/** Call at each safe point of a long task. */
export function throwIfCancelled(signal: AbortSignal | undefined, what?: string): void {
  if (signal?.aborted) throw new CancelledError(what);
}

/**
 * Reports at most once per `everyMs` (and always the last unit), so a task over 10,000 small
 * units does not flood the UI with renders. `now` is injectable for tests.
 */
export function throttledProgress(
  listener: ProgressListener | undefined,
  everyMs = 50,
  now: () => number = () => Date.now(),
): ProgressListener {
  let last = Number.NEGATIVE_INFINITY;
  let lastPhase = '';
  return (progress) => {
    if (!listener) return;
    const t = now();
    const final = progress.total > 0 && progress.done >= progress.total;
    if (final || progress.phase !== lastPhase || t - last >= everyMs) {
      last = t;
      lastPhase = progress.phase;
      listener(progress);
    }
  };
}
