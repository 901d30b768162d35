/**
 * Holds the first write to an in-memory record store until the test releases it, so a second
 * change can start while the first is in flight (the concurrency tests, docs/storage.md
 * "No lost update"). Pass `beforeWrite` to `new MemoryRecordStore({ beforeWrite })`.
 */
export interface HeldWrite {
  beforeWrite: (keys: string[]) => Promise<void> | void;
  /** Resolves with the keys of the first write once it is being held. */
  held: Promise<string[]>;
  release(): void;
  /** Starts holding (with `armed: false`, after the test's own setup wrote). */
  arm(): void;
}

/** `skip`: writes let through before the one held; `armed: false`: none held until `arm()`. */
export function holdFirstWrite(options: { only?: (keys: string[]) => boolean; skip?: number; armed?: boolean } = {}): HeldWrite {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: (keys: string[]) => void;
  const held = new Promise<string[]>((resolve) => (reached = resolve));
  let holding = false;
  let armed = options.armed ?? true;
  let skip = options.skip ?? 0;
  return {
    held,
    release,
    arm: () => (armed = true),
    beforeWrite(keys) {
      if (!armed || holding || (options.only && !options.only(keys))) return;
      if (skip > 0) {
        skip -= 1;
        return;
      }
      holding = true;
      reached(keys);
      return released;
    },
  };
}
