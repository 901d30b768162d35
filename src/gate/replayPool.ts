/**
 * How many replays run at once, and in which order (docs/gate.md, "Budget, concurrency,
 * cancellation"). A case is the unit of scheduling: its two arms run back to back in one
 * slot, so whatever drifts on the provider side (load, a model update, a cache warming up)
 * hits both arms alike. Cases start in the order they are given (dev first is the caller's
 * order), at most `size` at a time: the in-browser engine serves one generation at a time, a
 * server on this machine shares its hardware with the page, a hosted API takes a few.
 */
import type { ProviderSettings } from '../providers/createProvider';
import { providerLocality, replayProviderId } from './cacheKey';
import { ReplayAbortedError } from './replayArm';

export const WEBGPU_POOL_SIZE = 1;
export const LOCAL_POOL_SIZE = 2;
export const REMOTE_POOL_SIZE = 4;

/** 1 for web-llm, 2 for an HTTP server on loopback, `remoteSize` (4 by default) otherwise. */
export function poolSizeFor(settings: Pick<ProviderSettings, 'kind' | 'baseUrl' | 'model'>, remoteSize = REMOTE_POOL_SIZE): number {
  switch (providerLocality(replayProviderId(settings))) {
    case 'webgpu':
      return WEBGPU_POOL_SIZE;
    case 'local':
      return LOCAL_POOL_SIZE;
    case 'remote':
      return Math.max(1, Math.floor(remoteSize));
  }
}

export type PoolTask<T> = (signal: AbortSignal) => Promise<T>;

interface Waiting {
  start(): void;
  fail(error: Error): void;
}

export class ReplayPool {
  readonly size: number;
  readonly #controller = new AbortController();
  readonly #queue: Waiting[] = [];
  #running = 0;
  #idleWaiters: (() => void)[] = [];

  /** `signal` (e.g. the run's Stop) cancels the pool as `cancel()` does. */
  constructor(size: number, signal?: AbortSignal) {
    this.size = Math.max(1, Math.floor(size));
    if (signal?.aborted) this.cancel();
    else signal?.addEventListener('abort', () => this.cancel(), { once: true });
  }

  /** Aborted on cancel; every task gets it. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Runs `task` when a slot is free; rejects with ReplayAbortedError if cancelled before it starts. */
  run<T>(task: PoolTask<T>): Promise<T> {
    if (this.signal.aborted) return Promise.reject(new ReplayAbortedError());
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#running++;
        let result: Promise<T>;
        try {
          result = task(this.signal);
        } catch (error) {
          result = Promise.reject(error);
        }
        result.then(resolve, reject).finally(() => this.#finished());
      };
      if (this.#running < this.size) start();
      else this.#queue.push({ start, fail: reject });
    });
  }

  /** One case: the baseline arm, then at once the with-skill arm, in a single slot. */
  runCase<B, S>(baseline: PoolTask<B>, skill: PoolTask<S>): Promise<[B, S]> {
    return this.run(async (signal) => {
      const first = await baseline(signal);
      if (signal.aborted) throw new ReplayAbortedError();
      return [first, await skill(signal)];
    });
  }

  /** Aborts running tasks (through their signal) and rejects every queued one. */
  cancel(): void {
    if (!this.signal.aborted) this.#controller.abort();
    for (const waiting of this.#queue.splice(0)) waiting.fail(new ReplayAbortedError());
    this.#notifyIdle();
  }

  /** Resolves once nothing runs and nothing waits (e.g. after cancel, before reporting it). */
  whenIdle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #finished(): void {
    this.#running--;
    const next = this.signal.aborted ? undefined : this.#queue.shift();
    if (next) next.start();
    this.#notifyIdle();
  }

  #notifyIdle(): void {
    if (this.#running !== 0 || this.#queue.length !== 0) return;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }
}
