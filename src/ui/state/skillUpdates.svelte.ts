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
import type { ReadUpstream } from '../../install/upstream';
import { appServices } from '../../app/services';
import { readUpstreamFor } from '../../app/installServices';
import { networkRequests } from './network.svelte';
import { skillsLibrary } from './skills.svelte';

/** A scan verdict the user must confirm (caution) or override (dangerous) before the update is written. */
export interface UpdateConsentQuestion {
  prepared: PreparedUpdate;
  choices: ReadonlyMap<string, ConflictChoice>;
  needs: 'confirm' | 'override';
  scan: ScanResult;
}

/** The source readers of this app: its install settings (GitHub token) and the privacy counter's fetch, as Install from a link uses. */
async function readUpstream(): Promise<ReadUpstream> {
  const app = await appServices();
  return readUpstreamFor(app.settings, networkRequests.countingFetch);
}

class SkillUpdates {
  checking = $state(false);
  /** By skill name: the last check's answer. Raw: replaced whole after each check or update. */
  states = $state.raw<ReadonlyMap<string, SkillUpdateState>>(new Map());
  checkedAt = $state<Date | null>(null);
  /** Finished checks this page: the view exposes it so a test can wait for the next one. */
  checks = $state(0);
  notice = $state<string | null>(null);
  error = $state<string | null>(null);
  /** The skill being updated, while its files are fetched and written. */
  updating = $state<string | null>(null);
  /** The open Merge update dialog. */
  merging = $state.raw<PreparedUpdate | null>(null);
  consent = $state.raw<UpdateConsentQuestion | null>(null);
  #abort: AbortController | null = null;
  #following = false;

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
      const result = await checkForUpdates(engine, await readUpstream(), { signal: this.#abort.signal });
      this.states = new Map(result.skills.map((state) => [state.name, state]));
      this.checkedAt = new Date();
      await this.#follow();
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
      this.checks += 1;
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

  /**
   * After a check, a change to a checked skill (an edit, an update, a rollback) re-derives its
   * status from the files and source record now and the upstream the check saw: no request.
   */
  async #follow(): Promise<void> {
    if (this.#following) return;
    this.#following = true;
    const app = await appServices();
    app.changes.subscribe((change) => {
      if (change.type === 'skill-changed' && this.states.has(change.name)) void this.#restate(change.name);
    });
  }

  async #restate(name: string): Promise<void> {
    const previous = this.states.get(name);
    if (!previous) return;
    try {
      const { engine } = await skillsLibrary.start();
      const source = (await engine.usage.find(name))?.installed_from;
      const dir = engine.catalog.findByName(name)[0]?.dir;
      if (!source || !dir) {
        this.states = new Map([...this.states].filter(([key]) => key !== name));
        return;
      }
      const edited = await isEditedHere(engine, { name, dir, source });
      const status = previous.upstream ? statusWords(edited, previous.upstream.upstreamDigest !== source.upstreamDigest) : null;
      this.states = new Map([...this.states, [name, { ...previous, dir, source, edited, status }]]);
    } catch (error) {
      console.warn('[knack] re-reading an installed skill\u2019s status failed', error);
    }
  }

  async #commit(prepared: PreparedUpdate, choices: ReadonlyMap<string, ConflictChoice>, consent: UpdateConsent): Promise<void> {
    const { engine } = await skillsLibrary.start();
    const outcome = await commitUpdate(engine, prepared, choices, consent);
    if (!outcome.success) {
      if (outcome.needs) this.consent = { prepared, choices, needs: outcome.needs, scan: outcome.scan };
      else this.error = outcome.error;
      return;
    }
    await this.#restate(prepared.name);
    this.notice = outcome.merged
      ? `Updated ${prepared.name} to ${outcome.source.revision.slice(0, 12)}, with your edits merged in. Its verdict is stale until it is verified again.`
      : `Updated ${prepared.name} to ${outcome.source.revision.slice(0, 12)}. Its verdict is stale until it is verified again.`;
  }
}

export const skillUpdates = new SkillUpdates();
