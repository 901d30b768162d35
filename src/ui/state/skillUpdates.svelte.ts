/**
 * Check for updates and Update in the Skills view (docs/install.md, "Updates"): the status of
 * each installed skill after the last check, the update of one skill, and the two questions an
 * update can ask — the scan's consent (as in the import review) and the Merge update dialog for
 * overlapping edits. Nothing is written before the user applies; every write goes through
 * src/install/update.ts, which locks, ledgers and notifies (the library follows the change event).
 */
import type { ConflictChoice } from '../../skills/threeWayMerge';
import type { ScanResult } from '../../skills/scanner';
import { checkForUpdates, commitUpdate, isEditedHere, prepareUpdate, statusWords, type PreparedUpdate, type SkillUpdateState, type UpdateConsent } from '../../install/update';
import type { ReadUpstream } from '../../install/upstreamTypes';
import { skillsLibrary } from './skills.svelte';

/** A scan verdict the user must confirm (caution) or override (dangerous) before the update is written. */
export interface UpdateConsentQuestion {
  prepared: PreparedUpdate;
  choices: ReadonlyMap<string, ConflictChoice>;
  needs: 'confirm' | 'override';
  scan: ScanResult;
}

let readUpstreamProvider: () => Promise<ReadUpstream> = async () => {
  throw new Error('Checking for updates is not available in this build.');
};

/** The composition of the source readers (install side); set once at start-up. */
export function provideReadUpstream(provider: () => Promise<ReadUpstream>): void {
  readUpstreamProvider = provider;
}

class SkillUpdates {
  checking = $state(false);
  /** By skill name: the last check's answer. Raw: replaced whole after each check or update. */
  states = $state.raw<ReadonlyMap<string, SkillUpdateState>>(new Map());
  checkedAt = $state<Date | null>(null);
  notice = $state<string | null>(null);
  error = $state<string | null>(null);
  /** The skill being updated, while its files are fetched and written. */
  updating = $state<string | null>(null);
  /** The open Merge update dialog. */
  merging = $state.raw<PreparedUpdate | null>(null);
  consent = $state.raw<UpdateConsentQuestion | null>(null);
  #abort: AbortController | null = null;

  statusOf(name: string): SkillUpdateState | null {
    return this.states.get(name) ?? null;
  }

  check = async (): Promise<void> => {
    if (this.checking) return;
    this.checking = true;
    this.error = null;
    this.notice = null;
    this.#abort = new AbortController();
    try {
      const { engine } = await skillsLibrary.start();
      const result = await checkForUpdates(engine, await readUpstreamProvider(), { signal: this.#abort.signal });
      this.states = new Map(result.skills.map((state) => [state.name, state]));
      this.checkedAt = new Date();
      const available = result.skills.filter((state) => state.status?.endsWith('update available')).length;
      const problems = result.skills.filter((state) => state.problem).length;
      this.notice =
        result.skills.length === 0
          ? 'No skill here was installed from a link, so there is nothing to check.'
          : `Checked ${result.skills.length} installed ${result.skills.length === 1 ? 'skill' : 'skills'} from ${result.requests} ${result.requests === 1 ? 'source' : 'sources'}: ${available} with an update available${problems ? `, ${problems} could not be checked` : ''}.`;
    } catch (error) {
      this.error = `Check for updates failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.checking = false;
      this.#abort = null;
    }
  };

  /** Fetches the skill's upstream files and writes the update, or asks first (scan, conflicts). */
  update = async (name: string): Promise<void> => {
    const state = this.states.get(name);
    if (!state?.upstream || this.updating) return;
    this.updating = name;
    this.error = null;
    this.notice = null;
    try {
      const { engine } = await skillsLibrary.start();
      const prepared = await prepareUpdate(engine, name, state.upstream);
      if ('success' in prepared) {
        this.error = prepared.error;
        return;
      }
      if (prepared.merge && prepared.merge.conflicts.length > 0) {
        this.merging = prepared; // the dialog calls applyMerge
        return;
      }
      await this.#commit(prepared, new Map(), {});
    } catch (error) {
      this.error = `Updating ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.updating = null;
    }
  };

  /** Apply in the Merge update dialog: every conflict has a choice. */
  applyMerge = async (choices: ReadonlyMap<string, ConflictChoice>): Promise<void> => {
    const prepared = this.merging;
    if (!prepared) return;
    this.merging = null;
    this.updating = prepared.name;
    try {
      await this.#commit(prepared, choices, {});
    } finally {
      this.updating = null;
    }
  };

  cancelMerge = (): void => {
    const name = this.merging?.name;
    this.merging = null;
    if (name) this.notice = `Nothing was changed: ${name} stays as it is here.`;
  };

  /** The user confirmed (caution) or overrode (dangerous) the scan verdict. */
  giveConsent = async (): Promise<void> => {
    const question = this.consent;
    if (!question) return;
    this.consent = null;
    this.updating = question.prepared.name;
    try {
      await this.#commit(question.prepared, question.choices, question.needs === 'confirm' ? { confirmed: true } : { override: true });
    } finally {
      this.updating = null;
    }
  };

  cancelConsent = (): void => {
    const name = this.consent?.prepared.name;
    this.consent = null;
    if (name) this.notice = `Nothing was changed: the update of ${name} was not applied.`;
  };

  async #commit(prepared: PreparedUpdate, choices: ReadonlyMap<string, ConflictChoice>, consent: UpdateConsent): Promise<void> {
    const { engine } = await skillsLibrary.start();
    const outcome = await commitUpdate(engine, prepared, choices, consent);
    if (!outcome.success) {
      if (outcome.needs) this.consent = { prepared, choices, needs: outcome.needs, scan: outcome.scan };
      else this.error = outcome.error;
      return;
    }
    const previous = this.states.get(prepared.name);
    if (previous) {
      const edited = await isEditedHere(engine, { name: prepared.name, dir: prepared.dir, source: outcome.source });
      const updateAvailable = previous.upstream ? previous.upstream.upstreamDigest !== outcome.source.upstreamDigest : false;
      this.states = new Map([...this.states, [prepared.name, { ...previous, source: outcome.source, edited, status: statusWords(edited, updateAvailable) }]]);
    }
    this.notice = outcome.merged
      ? `Updated ${prepared.name} to ${outcome.source.revision.slice(0, 12)}, with your edits merged in. Its verdict is stale until it is verified again.`
      : `Updated ${prepared.name} to ${outcome.source.revision.slice(0, 12)}. Its verdict is stale until it is verified again.`;
  }
}

export const skillUpdates = new SkillUpdates();
