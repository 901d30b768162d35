/**
 * Work that must not run twice at once and must see every request: a call while a run is in
 * flight asks for one more run right after it, however many calls come in meanwhile. Used where
 * bursts of changes trigger a read or a sync (app/syncServices.ts, ui/state/twins.svelte.ts).
 */
export class Rerunner {
  #running: Promise<void> | null = null;
  #again = false;

  constructor(private readonly work: () => Promise<void>) {}

  /** Starts a run, or asks for one more after the run in flight; settles when the runs end. */
  run(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.work();
      } while (this.#again);
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** The runs in flight, if any (to wait for them). */
  get running(): Promise<void> | null {
    return this.#running;
  }
}
