/**
 * Which writers are alive, so that start-up recovery in one tab never undoes an intent or
 * sweeps a temp file that another tab (or worker) is still working on.
 *
 * Every context that writes holds a Web Lock named `knack-context:<id>` for as long as it
 * lives. The browser releases it when the context goes away for any reason (closed, renderer
 * crash, browser killed), and `navigator.locks.query()` shows the holders to every context
 * of the origin. Temp files and journal intents carry their owner's id.
 */

export interface Liveness {
  /** This context's owner id: short, alphanumeric, no dots (it is embedded in file names). */
  readonly self: string;
  /** Makes this context visible as alive to the others before it writes anything. */
  hold?(): Promise<void>;
  /** Owner ids of every context alive right now, this one included. */
  liveOwners(): Promise<Set<string>>;
  /** Paths this context is writing right now (in-flight temp files, staged journal files). */
  markInUse(path: string): void;
  release(path: string): void;
  isInUse(path: string): boolean;
}

const CONTEXT_LOCK_PREFIX = 'knack-context:';

export function randomId(length = 12): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return id;
}

class InUsePaths {
  private counts = new Map<string, number>();
  markInUse(path: string): void {
    this.counts.set(path, (this.counts.get(path) ?? 0) + 1);
  }
  release(path: string): void {
    const n = (this.counts.get(path) ?? 0) - 1;
    if (n > 0) this.counts.set(path, n);
    else this.counts.delete(path);
  }
  isInUse(path: string): boolean {
    return this.counts.has(path);
  }
}

/** Liveness on Web Locks; one instance per JavaScript realm (page or worker). */
export class WebLockLiveness extends InUsePaths implements Liveness {
  readonly self = randomId();
  private held: Promise<void> | undefined;

  /**
   * Takes this context's lifetime lock (idempotent). Resolves once the lock is granted, so
   * that any temp file created afterwards is already covered by it.
   */
  hold(): Promise<void> {
    this.held ??= new Promise<void>((granted, failed) => {
      navigator.locks
        .request(CONTEXT_LOCK_PREFIX + this.self, () => {
          granted();
          return new Promise<never>(() => {}); // held until the context dies
        })
        .catch(failed);
    });
    return this.held;
  }

  async liveOwners(): Promise<Set<string>> {
    const snapshot = await navigator.locks.query();
    const owners = new Set<string>([this.self]);
    for (const lock of snapshot.held ?? []) {
      if (lock.name?.startsWith(CONTEXT_LOCK_PREFIX)) owners.add(lock.name.slice(CONTEXT_LOCK_PREFIX.length));
    }
    return owners;
  }
}

/** Liveness with a fixed set of other live owners: unit tests and single-context tools. */
export class FixedLiveness extends InUsePaths implements Liveness {
  constructor(
    readonly self: string = randomId(),
    private readonly others: string[] = [],
  ) {
    super();
  }
  async liveOwners(): Promise<Set<string>> {
    return new Set([this.self, ...this.others]);
  }
}

let realmLiveness: WebLockLiveness | undefined;

/** The liveness of this page or worker, shared by its file store and journal. */
export function contextLiveness(): WebLockLiveness {
  realmLiveness ??= new WebLockLiveness();
  return realmLiveness;
}
