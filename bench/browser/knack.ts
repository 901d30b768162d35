/**
 * The app's debug handle, `globalThis.knack`, published by src/app/boot.ts once storage is
 * open. Benches take only what they need from it, typed loosely here so the harness keeps
 * compiling while the handle grows.
 */
import type { FileStore } from '../../src/storage/fileStore';
import type { ConsoleSkills } from '../../src/app/boot';

export interface KnackHandle {
  files: FileStore;
  db: IDBDatabaseLike;
  ready?: unknown;
  [service: string]: unknown;
}

/** The part of an `idb` IDBPDatabase the benches use. */
export interface IDBDatabaseLike {
  objectStoreNames: DOMStringList;
  transaction(store: string, mode: 'readonly' | 'readwrite'): {
    store: {
      keyPath: string | string[] | null;
      put(value: unknown, key?: IDBValidKey): Promise<IDBValidKey>;
      get(key: IDBValidKey): Promise<unknown>;
      delete(key: IDBValidKey): Promise<void>;
    };
    done: Promise<void>;
  };
}

/** The harness reports this message verbatim when the app never published its handle. */
export const KNACK_MISSING = 'knack handle missing';

/**
 * Waits for `globalThis.knack` and its `ready` (a promise, or a flag that turns true).
 * Throws KNACK_MISSING after `timeoutMs`, so a bench reports an error instead of hanging.
 */
export async function waitForKnack(timeoutMs: number): Promise<KnackHandle> {
  const deadline = performance.now() + timeoutMs;
  const global = globalThis as { knack?: KnackHandle };
  while (!global.knack) {
    if (performance.now() > deadline) throw new Error(KNACK_MISSING);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const knack = global.knack;
  const ready = knack.ready;
  if (ready && typeof (ready as PromiseLike<unknown>).then === 'function') {
    await Promise.race([
      ready,
      new Promise((_, reject) => setTimeout(() => reject(new Error('knack.ready did not settle')), Math.max(0, deadline - performance.now()))),
    ]);
  } else if (ready !== undefined) {
    while (knack.ready !== true) {
      if (performance.now() > deadline) throw new Error('knack.ready never became true');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return knack;
}

/** `knack.skills` once the app has published it (the skill services open after storage). */
export async function waitForSkills(knack: Record<string, unknown>, timeoutMs = 20_000): Promise<ConsoleSkills> {
  const deadline = performance.now() + timeoutMs;
  while (!knack.skills) {
    if (performance.now() > deadline) throw new Error('knack.skills never appeared');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return knack.skills as ConsoleSkills;
}

export const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/** Polls once per frame until `done()` holds; throws after `timeoutMs`, naming `what`. */
export async function untilFrame(done: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await nextFrame();
  }
}
