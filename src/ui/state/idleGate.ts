/**
 * Runs actions now when the app is idle, or holds them until it becomes idle.
 *
 * The update prompt uses it so that neither activating a new service worker nor the
 * reload that follows can cut a reply off mid-generation. Plain TypeScript (no runes)
 * so the rule is unit-tested without a browser.
 */
export type GateOutcome = 'ran' | 'deferred';

export class IdleGate {
  readonly #isBusy: () => boolean;
  // Keyed so that asking twice for the same thing (e.g. two reload requests) runs it once.
  readonly #pending = new Map<string, () => void>();

  constructor(isBusy: () => boolean) {
    this.#isBusy = isBusy;
  }

  get hasPending(): boolean {
    return this.#pending.size > 0;
  }

  isPending(key: string): boolean {
    return this.#pending.has(key);
  }

  run(key: string, action: () => void): GateOutcome {
    if (this.#isBusy()) {
      this.#pending.set(key, action);
      return 'deferred';
    }
    this.#pending.delete(key);
    action();
    return 'ran';
  }

  cancel(key: string): void {
    this.#pending.delete(key);
  }

  /** Call when the busy state may have ended; runs held actions in the order they were asked for. */
  flush(): number {
    if (this.#isBusy() || this.#pending.size === 0) return 0;
    const actions = [...this.#pending.values()];
    this.#pending.clear();
    for (const action of actions) action();
    return actions.length;
  }
}
