/**
 * View state of the verification gate in the Skills view (docs/gate.md): the open skill's
 * evidence and cases file, the case editor, the "this run sends many requests" confirmation
 * and the errors. It reads through GateServices (app/gateServices.ts) and starts and stops runs
 * through the learning loop (state/learning.svelte.ts), because runs happen in the review worker.
 * No gate rule lives here: the numbers, words and labels come from the gate and ui/gateText.ts.
 */
import { appServices } from '../../app/services';
import type { GateCasesFile, GateEstimate, GateEvidence, GateServices } from '../../app/gateServices';
import { DEFAULT_GATE_SETTINGS, type GateSettings } from '../../gate/gateSettings';
import type { GateActivity } from '../../review/activity';
import type { EvalCase, EvalsFile, GateProgress, VerdictRecord } from '../../gate/types';
import type { SettingChange } from '../../storage/settingsService';
import type { KnackSettingsService } from '../../app/settings';
import { candidateKey, type CandidateCase } from '../../skills/candidateCases';
import type { CheckDraft } from '../../gate/checkDraft';
import { learning } from './learning.svelte';
import { needsConfirmation, runEndNotice } from './gateRunRules';

export { estimateText, permissionHost } from './gateRunRules';

export async function gateServices(): Promise<GateServices> {
  return (await appServices()).gate();
}

/** A saved provider and model to verify on. */
type VerifyModel = { providerId: string; model: string };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** What the editor says about a case added from a chat: the checks drafted, or why there are none. */
function draftNote(draft: CheckDraft): string {
  if (!draft.success) return `The review model could not draft checks (${draft.error}). Write them below, then save the cases.`;
  const count = `${draft.checks.length} ${draft.checks.length === 1 ? 'check' : 'checks'}`;
  return `The review model drafted ${count} for this request from your chat. Confirm or edit them, then save the cases.`;
}

class GateViewState {
  skill = $state<string | null>(null);
  evidence = $state<GateEvidence | null>(null);
  cases = $state<GateCasesFile | null>(null);
  /** Requests from later chats that loaded the skill (docs/gate.md, "Independent cases"). */
  candidates = $state<CandidateCase[]>([]);
  /** A case from a chat waiting in the editor for the user to confirm its drafted checks. */
  pendingCandidate = $state<{ key: string; evalCase: EvalCase; note: string } | null>(null);
  /** A record picked in the history; null shows the latest. */
  selectedId = $state<string | null>(null);
  editorOpen = $state(false);
  saving = $state(false);
  saveError = $state<string | null>(null);
  saveWarnings = $state<string[]>([]);
  /** A manual run waiting for the user's yes, with what it would cost. */
  confirm = $state<{ estimate: GateEstimate; useCache: boolean; model?: VerifyModel } | null>(null);
  error = $state<string | null>(null);
  notice = $state<string | null>(null);
  busy = $state(false);
  /** Whether a run started from this view is in flight (progress may not have arrived yet). */
  running = $state(false);

  #token = 0;
  #services: GateServices | null = null;
  #subscribed = false;
  #stopped = false;

  get progress(): GateProgress | null {
    return (this.skill && learning.gateProgress[this.skill]) || null;
  }

  get record(): VerdictRecord | null {
    const evidence = this.evidence;
    if (!evidence) return null;
    return (this.selectedId && evidence.history.find((record) => record.id === this.selectedId)) || evidence.latest;
  }

  get caseList(): EvalCase[] {
    return this.cases?.file?.evals ?? [];
  }

  /** Shows a skill's evidence; called when the detail opens (and again for another skill). */
  open = async (name: string): Promise<void> => {
    if (this.skill !== name) {
      this.skill = name;
      this.evidence = null;
      this.cases = null;
      this.candidates = [];
      this.pendingCandidate = null;
      this.selectedId = null;
      this.editorOpen = false;
      this.confirm = null;
      this.notice = null;
      this.error = null;
      this.running = false;
    }
    await this.#follow();
    await this.refresh();
  };

  close = (): void => {
    this.skill = null;
    this.#token++;
  };

  /** Re-reads the evidence and the cases file of the open skill. */
  refresh = async (): Promise<void> => {
    const name = this.skill;
    if (!name) return;
    const token = ++this.#token;
    try {
      const gate = await gateServices();
      this.#services = gate;
      const [evidence, cases, candidates] = await Promise.all([gate.evidence(name), gate.readCases(name), gate.candidates(name)]);
      if (token !== this.#token) return;
      this.evidence = evidence;
      this.cases = cases;
      this.candidates = candidates;
    } catch (error) {
      if (token === this.#token) this.error = message(error);
    }
  };

  /** Refreshes when the open skill, its verdicts or the gate settings change (here or in another tab). */
  async #follow(): Promise<void> {
    if (this.#subscribed) return;
    this.#subscribed = true;
    const app = await appServices();
    app.changes.subscribe((change) => {
      const ours = (change.type === 'skill-changed' || change.type === 'verdict-changed') && change.name === this.skill;
      if (ours || (change.type === 'settings-changed' && (!change.keys || change.keys.includes('gate')))) void this.refresh();
    });
  }

  /** Verify (or Verify again): estimate, ask first when the run is big and remote, then run. */
  verify = async (useCache = true, model?: VerifyModel): Promise<void> => {
    const name = this.skill;
    if (!name || this.busy || this.running) return;
    this.error = null;
    this.busy = true;
    try {
      const estimate = await (await gateServices()).estimate(name);
      if (needsConfirmation(estimate)) this.confirm = { estimate, useCache, ...(model ? { model } : {}) };
      else await this.#run(name, useCache, model);
    } catch (error) {
      this.error = message(error);
    } finally {
      this.busy = false;
    }
  };

  confirmRun = async (): Promise<void> => {
    const pending = this.confirm;
    this.confirm = null;
    if (pending && this.skill) await this.#run(this.skill, pending.useCache, pending.model);
  };

  cancelConfirm = (): void => {
    this.confirm = null;
  };

  /** "Verify on …": a run on the chat's model, whatever the gate settings name (docs/gate.md, "Per-model verdicts"). */
  verifyOnChatModel = (): Promise<void> => {
    const choice = this.evidence?.chatModel?.choice;
    // A plain copy: the job crosses to the review worker, and view state is a proxy.
    return choice ? this.verify(true, { providerId: choice.providerId, model: choice.model }) : Promise.resolve();
  };

  async #run(name: string, useCache: boolean, model?: VerifyModel): Promise<void> {
    const before = this.evidence?.latest?.id ?? null;
    this.notice = null;
    this.running = true;
    this.#stopped = false;
    let ended: GateActivity | null = null;
    try {
      ended = await learning.verify(name, { useCache, trigger: useCache ? 'manual' : 'manual-no-cache', ...(model ? { model } : {}) });
    } catch (error) {
      if (!this.#stopped) this.error = message(error);
    } finally {
      this.running = false;
      if (this.skill === name) {
        await this.refresh();
        const unchanged = (this.evidence?.latest?.id ?? null) === before;
        if (ended?.status === 'failed' && ended.outcome) this.error = ended.outcome;
        else this.notice = runEndNotice(ended, this.#stopped, unchanged);
      }
    }
  }

  stop = async (): Promise<void> => {
    const name = this.skill;
    if (!name) return;
    this.#stopped = true;
    try {
      await learning.stopVerify(name);
    } catch (error) {
      this.error = message(error);
    }
  };

  approve = async (): Promise<void> => {
    const name = this.skill;
    const record = this.evidence?.latest;
    if (!name || !record) return;
    this.busy = true;
    try {
      const outcome = await (await gateServices()).approve(name, record.id);
      if (!outcome.success) this.error = outcome.error;
      await this.refresh();
    } catch (error) {
      this.error = message(error);
    } finally {
      this.busy = false;
    }
  };

  /**
   * **Add as case**: the review model drafts the checks, then the case editor opens with the new
   * case (its request, its provenance, the drafted checks) for the user to confirm or edit. Nothing
   * is saved until the editor saves; the candidate leaves the list then.
   */
  addCandidate = async (key: string): Promise<void> => {
    const name = this.skill;
    const candidate = this.candidates.find((item) => candidateKey(item) === key);
    if (!name || !candidate || this.busy || this.editorOpen) return;
    this.busy = true;
    this.error = null;
    this.notice = 'The review model is drafting checks for this request…';
    try {
      const draft = await learning.draftChecks(name, candidate.prompt);
      if (this.skill !== name) return;
      const made = await (await gateServices()).candidateAsCase(name, key, draft.success ? draft : null);
      this.notice = null;
      if (!made.success) {
        this.error = made.error;
        return;
      }
      this.pendingCandidate = { key, evalCase: made.case, note: draftNote(draft) };
      this.openEditor();
    } catch (error) {
      this.notice = null;
      this.error = message(error);
    } finally {
      this.busy = false;
    }
  };

  /** **Dismiss**: the request is dropped and does not come back. */
  dismissCandidate = async (key: string): Promise<void> => {
    const name = this.skill;
    if (!name) return;
    try {
      await (await gateServices()).dismissCandidate(name, key);
      await this.refresh();
    } catch (error) {
      this.error = message(error);
    }
  };

  /** Writes the description a kept trial found (the skill changes: verify it again after). */
  useDescription = async (description: string): Promise<void> => {
    const name = this.skill;
    if (!name || this.busy) return;
    this.busy = true;
    try {
      const outcome = await (await gateServices()).useDescription(name, description);
      if (!outcome.success) this.error = outcome.error;
      else this.notice = 'The new description is saved. Verify again to measure this version.';
      await this.refresh();
    } catch (error) {
      this.error = message(error);
    } finally {
      this.busy = false;
    }
  };

  openEditor = (): void => {
    this.saveError = null;
    this.saveWarnings = [];
    this.editorOpen = true;
  };

  closeEditor = (): void => {
    this.editorOpen = false;
    this.pendingCandidate = null;
  };

  /** Saves evals/evals.json through the skill tool; its error, or its lint warnings, show in the editor. */
  saveCases = async (file: EvalsFile): Promise<void> => {
    const name = this.skill;
    if (!name) return;
    this.saving = true;
    this.saveError = null;
    try {
      const outcome = await (await gateServices()).saveCases(name, file);
      if (!outcome.success) {
        this.saveError = outcome.error;
        return;
      }
      const warnings = Array.isArray(outcome.warnings) ? outcome.warnings.map(String) : [];
      this.saveWarnings = warnings;
      const pending = this.pendingCandidate;
      if (pending) {
        // Saved with its case (the user may also have deleted it in the editor: then it stays a candidate).
        await (await gateServices()).settleCandidate(name, pending.key);
        this.pendingCandidate = null;
      }
      if (warnings.length === 0) this.editorOpen = false;
      await this.refresh();
    } catch (error) {
      this.saveError = message(error);
    } finally {
      this.saving = false;
    }
  };

  /** The editor's per-case validator: the gate's own rules, against the other cases in the file. */
  validateCase = (draft: EvalCase): Record<string, string> =>
    this.#services ? this.#services.validateCase(draft, this.caseList.filter((other) => other.id !== draft.id)) : {};

  tryChecks = async (answer: string, checks: NonNullable<EvalCase['checks']>): Promise<{ pass: boolean; reason?: string }[]> =>
    (await gateServices()).tryChecks(answer, checks);
}

export const gateView = new GateViewState();

/** Gate settings for the Settings view: the stored value, kept current, and one update per change. */
class GateSettingsState {
  current = $state<GateSettings>({ ...DEFAULT_GATE_SETTINGS });
  status = $state('');
  #store: KnackSettingsService | null = null;

  start = async (): Promise<void> => {
    if (this.#store) return;
    const store = (await appServices()).settings;
    this.#store = store;
    this.current = { ...DEFAULT_GATE_SETTINGS, ...store.get('gate') };
    store.subscribe('gate', (value) => (this.current = { ...DEFAULT_GATE_SETTINGS, ...value }));
  };

  /** A change that depends on the current value (the provider pair, the hosts) is a function of the stored one. */
  update = async (change: SettingChange<GateSettings>): Promise<void> => {
    try {
      await this.start();
      this.current = { ...DEFAULT_GATE_SETTINGS, ...(await this.#store!.update('gate', change)) };
      this.status = 'Verification settings updated.';
    } catch (error) {
      this.status = `Could not update: ${message(error)}`;
    }
  };
}

export const gateSettings = new GateSettingsState();
