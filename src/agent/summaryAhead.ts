/**
 * The summary written after a reply, ahead of the next turn (docs/context-window.md, "Summaries
 * ahead"; SPEC §7.1): when the user's next turn would have to compact first, the summary is
 * written now, while the user reads and types, so that turn starts as fast as any other. One at a
 * time; a send waits for it when its request needs it and cancels it otherwise, so it never
 * competes with the user's own request on a local engine. Split from chatSession.ts, which owns
 * the turns. Plain TypeScript, no DOM.
 */
import type { TurnBudget } from './chatContext';

export interface SummaryAheadHost {
  /** The window budget of a turn now, its summaries stopped by `signal`; null when no window is known. */
  budget(signal?: AbortSignal): Promise<TurnBudget | null>;
  /** Busy (checking or writing) or done; `usage` after a summary was stored. */
  onChange(busy: boolean, budget?: TurnBudget): void;
}

export class SummaryAhead {
  #running: { abort: AbortController; done: Promise<void> } | null = null;

  constructor(private readonly host: SummaryAheadHost) {}

  /** A summary is being written (or checked for). */
  get busy(): boolean {
    return this.#running !== null;
  }

  /** After a reply: checks whether the next turn would compact, and if so compacts now. */
  start(): void {
    if (this.#running) return;
    const abort = new AbortController();
    const done = (async () => {
      const budget = await this.host.budget(abort.signal);
      if (!budget || abort.signal.aborted) return;
      if ((await budget.summariseAhead(abort.signal)) === 'compacted') this.host.onChange(true, budget);
    })()
      .catch(() => undefined) // a summary ahead that fails is tried again in front of the next turn, which says so
      .finally(() => {
        if (this.#running?.abort === abort) this.#running = null;
        this.host.onChange(false);
      });
    this.#running = { abort, done };
    this.host.onChange(true);
  }

  /**
   * The user sent (their message is in the lines): the summary is awaited when their request
   * needs it (it is under way, so waiting costs less than starting it again), cancelled otherwise.
   */
  async settle(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    let needed: boolean;
    try {
      const budget = await this.host.budget();
      needed = budget !== null && (await budget.keeper.needsCompaction());
    } catch {
      needed = false;
    }
    if (!needed) running.abort.abort();
    await running.done;
  }

  /** Cancels it (an edit, a regenerate or Compact now changes what it would cover) and waits until it has stopped. */
  async cancel(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    running.abort.abort();
    await running.done;
  }

  /** Cancels it without waiting (the chat is being left). */
  abort(): void {
    this.#running?.abort.abort();
  }

  /** Resolves when none is running (tests and benches wait on it, as a user reads). */
  async settled(): Promise<void> {
    while (this.#running) await this.#running.done;
  }
}
