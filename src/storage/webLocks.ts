/**
 * LockManager on the Web Locks API (`navigator.locks`), shared by tabs and workers of the
 * origin. Every read-modify-write of a skill or of the memory files runs under its lock
 * (docs/storage.md, guarantee 3): two writable streams on one OPFS file otherwise race silently and
 * the last close wins.
 */
import type { LockManager } from './fileStore';

/** Lock key of one skill's files, usage and index entry. */
export function skillLockKey(name: string): string {
  return `skill:${name}`;
}

/** Lock key held by the tab that runs a skill's automatic gate run (docs/gate.md, "Triggers"). */
export function gateRunLockKey(name: string): string {
  return `gate-run:${name}`;
}

/**
 * Takes the exclusive lock `key` only if nobody holds it. Resolves with the function that
 * releases it, or null when a tab or worker of the origin holds it now; never waits.
 */
export function tryHoldLock(key: string, locks: Pick<globalThis.LockManager, 'request'> = navigator.locks): Promise<(() => void) | null> {
  return new Promise((resolve, reject) => {
    let release!: () => void;
    const released = new Promise<void>((done) => (release = done));
    locks
      .request(key, { mode: 'exclusive', ifAvailable: true }, async (lock) => {
        if (!lock) return resolve(null);
        resolve(release);
        await released;
      })
      .catch(reject);
  });
}

/** Lock key of memories/MEMORY.md and memories/USER.md. */
export const MEMORY_LOCK_KEY = 'memory';

export class WebLockManager implements LockManager {
  constructor(private readonly locks: globalThis.LockManager = navigator.locks) {}

  /**
   * Runs `fn` holding the exclusive lock `key`. An abort while waiting rejects with the
   * signal's AbortError and `fn` never runs; an abort after the lock is granted is up to `fn`.
   */
  async withLock<T>(key: string, fn: () => Promise<T>, options: { signal?: AbortSignal } = {}): Promise<T> {
    const { signal } = options;
    signal?.throwIfAborted();
    // request() resolves with the callback's value; the cast restores the type it loses.
    return (await this.locks.request(key, { mode: 'exclusive', signal }, () => fn())) as T;
  }
}
