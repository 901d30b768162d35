/**
 * Possible duplicates in the Skills view (docs/learning-loop.md, "Possible duplicates"): the twin pairs
 * of the library (app/twinServices.ts), re-read when a skill changes; Merge runs the proof in the
 * review worker (through the learning loop) and, when the merged skill is at least as good on
 * both skills' cases, offers it; Apply creates it and archives the two.
 */
import type { TwinPair } from '../../curator/twins';
import type { TwinLister } from '../../app/twinServices';
import type { TwinMergeOutcome } from '../../review/twinMerge';
import { appServices } from '../../app/services';
import { Rerunner } from '../../storage/rerun';
import { learning } from './learning.svelte';

export type MergeState = { kind: 'running' } | { kind: 'applying' } | { kind: 'applied'; message: string } | { kind: 'error'; message: string } | TwinMergeOutcome;

/** How long the library must be quiet before the pairs are read again. */
const RELOAD_AFTER_CHANGES_MS = 500;

const keyOf = (pair: Pick<TwinPair, 'a' | 'b'>) => `${pair.a}\u0000${pair.b}`;

class TwinsState {
  pairs = $state.raw<TwinPair[]>([]);
  merges = $state<Record<string, MergeState>>({});
  /** The last applied merge, shown after its pair has left the list. */
  notice = $state<string | null>(null);
  #started = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #reloads = new Rerunner(() => this.#readPairs());
  /** What was read of each skill, kept until it changes. */
  #lister: TwinLister | null = null;

  start = (): void => {
    if (this.#started) return;
    this.#started = true;
    void this.reload();
    void appServices().then((app) =>
      app.changes.subscribe((change) => {
        if (change.type !== 'skill-changed' && change.type !== 'skills-rescanned') return;
        this.#lister?.changed(change.type === 'skill-changed' ? change.name : '*');
        this.#reloadSoon();
      }),
    );
  };

  /**
   * An import of 1,423 skills sends 1,423 changes, so they are coalesced (one reload after the
   * changes pause, never two at once); the reload reads only the skills that changed.
   */
  #reloadSoon(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.reload();
    }, RELOAD_AFTER_CHANGES_MS);
  }

  /** Reads the pairs now, or once more after the read in flight. */
  reload = (): Promise<void> => this.#reloads.run();

  async #readPairs(): Promise<void> {
    try {
      const [{ TwinLister }, skills] = await Promise.all([import('../../app/twinServices'), (await appServices()).skills()]);
      if (this.#lister?.skills !== skills) this.#lister = new TwinLister(skills);
      this.pairs = await this.#lister.list();
    } catch (error) {
      console.warn('[knack] possible duplicates could not be read', error);
    }
  }

  stateOf = (pair: TwinPair): MergeState | null => this.merges[keyOf(pair)] ?? null;

  merge = async (pair: TwinPair): Promise<void> => {
    const key = keyOf(pair);
    this.merges[key] = { kind: 'running' };
    this.merges[key] = await learning.mergeTwins(pair.a, pair.b);
  };

  apply = async (pair: TwinPair): Promise<void> => {
    const key = keyOf(pair);
    const offer = this.merges[key];
    if (!offer || offer.kind !== 'offered') return;
    this.merges[key] = { kind: 'applying' };
    const [{ applyMerge }, skills] = await Promise.all([import('../../app/twinServices'), (await appServices()).skills()]);
    const result = await applyMerge(skills, { a: pair.a, b: pair.b, name: offer.name, markdown: offer.markdown, evals: offer.evals });
    // The pair leaves the list before the notice shows (the change events' reload waits for a pause).
    if (result.ok) await this.reload();
    this.merges[key] = result.ok ? { kind: 'applied', message: result.message } : { kind: 'error', message: result.error };
    this.notice = result.ok ? result.message : null;
  };
}

export const twins = new TwinsState();
