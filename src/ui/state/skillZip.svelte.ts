/**
/**
 * Zip import in the Skills view: the import plan under review, the user's ticks per skill,
 * the import's progress and its result. Nothing is written until `importChosen`; the engine
 * enforces the verdict rules again (applyImport). The review's counts and bulk choices are in
 * importReview.ts; export lives in skillExport.svelte.ts.
 */
import { skillsLibrary } from './skills.svelte';
import { applyImport, planImport, retrustPlan, type CollisionChoice, type ImportCandidate, type ImportChoice, type ImportPlan } from '../../skills/zipImport';
import { isCancelled, type Progress } from '../../storage/progress';
import { chosenPlan, collisionForAll, confirmAllOfVerdict, describeResult, importResult, includeAll, initialChoices, plannedStatus, REVIEW_PAGE_SIZE, type ImportResult, type ReviewFilter } from './importReview';
import type { Verdict } from '../../skills/scanner';
import type { InstalledSource } from '../../skills/installedSource';
import { stampSources } from '../../install/installFromLink';

/** Where a skill's own eval cases live (docs/gate-cases.md): an installed skill that ships them can be verified at once. */
const EVALS_FILE = 'evals/evals.json';

class SkillZip {
  // Raw: a plan and its choices are replaced whole (retrust, a tick, a bulk choice), never
  // edited in place, and proxying a thousand skills' files and ticks only slows the dialog.
  plan = $state.raw<ImportPlan | null>(null);
  choices = $state.raw<Record<string, ImportChoice>>({});
  busy = $state(false);
  error = $state<string | null>(null);
  /** The review's filter, search and how many rows it renders (docs/skill-tools.md). */
  filter = $state<ReviewFilter>('all');
  query = $state('');
  shown = $state(REVIEW_PAGE_SIZE);
  /** Where a running import is; null when none runs. */
  progress = $state.raw<Progress | null>(null);
  /** What the last import did, kept with every skipped skill's reason until dismissed. */
  result = $state.raw<ImportResult | null>(null);
  /**
   * The last import's result once its dialog is closed, while it skipped or cancelled anything:
   * the Skills view keeps it reachable (every reason) until the next import or Dismiss.
   */
  lastResult = $state.raw<ImportResult | null>(null);
  private importAbort: AbortController | null = null;
  /** Per candidate id, where the plan's skills come from when they were found by Install from a link; {} for a zip. */
  private sources: Record<string, InstalledSource> = {};
  /**
   * Skills just installed from a link that ship their own eval cases: the Skills view offers to
   * verify each on the user's own model (docs/install.md, "Verified skills travel with their proof").
   */
  verifyOffers = $state<string[]>([]);

  /** Import is offered when it would write at least one skill (a collision left on "skip" writes none). */
  canImport = $derived(this.plan !== null && this.plan.skills.some((skill) => plannedStatus(skill, this.choices[skill.id]) === 'import'));

  /** Reads a picked or dropped file and shows its review; writes nothing. */
  openFile = async (file: File): Promise<void> => {
    this.error = null;
    this.result = null;
    try {
      const services = await skillsLibrary.start();
      const bytes = new Uint8Array(await file.arrayBuffer());
      const plan = planImport(bytes, {
        archiveName: file.name,
        exists: (name) => services.engine.catalog.findByName(name).length > 0,
      });
      this.sources = {};
      this.choices = initialChoices(plan);
      this.filter = 'all';
      this.query = '';
      this.shown = REVIEW_PAGE_SIZE;
      this.plan = plan;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.plan = null;
    }
  };

  /** Shows the review of what Install from a link found; writes nothing. */
  openLookup = (plan: ImportPlan, sources: Record<string, InstalledSource>): void => {
    this.error = null;
    this.result = null;
    this.sources = sources;
    this.choices = initialChoices(plan);
    this.filter = 'all';
    this.query = '';
    this.shown = REVIEW_PAGE_SIZE;
    this.plan = plan;
  };

  dismissVerifyOffer = (name: string): void => {
    this.verifyOffers = this.verifyOffers.filter((offer) => offer !== name);
  };

  setTrusted = (trusted: boolean): void => {
    if (this.plan) this.plan = retrustPlan(this.plan, trusted);
  };

  setChoice = (id: string, change: Partial<ImportChoice>): void => {
    const current: ImportChoice = this.choices[id] ?? { include: false };
    this.choices = { ...this.choices, [id]: { ...current, ...change } };
  };

  setFilter = (filter: ReviewFilter): void => {
    this.filter = filter;
    this.shown = REVIEW_PAGE_SIZE;
  };

  setQuery = (query: string): void => {
    this.query = query;
    this.shown = REVIEW_PAGE_SIZE;
  };

  showMore = (): void => {
    this.shown += REVIEW_PAGE_SIZE;
  };

  confirmAll = (verdict: Verdict): void => {
    if (this.plan) this.choices = confirmAllOfVerdict(this.plan, this.choices, verdict);
  };

  collisionForAll = (collision: CollisionChoice): void => {
    if (this.plan) this.choices = collisionForAll(this.plan, this.choices, collision);
  };

  includeAll = (skills: readonly ImportCandidate[], include: boolean): void => {
    this.choices = includeAll(skills, this.choices, include);
  };

  /** Closes the review (or its result); a running import is cancelled instead. */
  cancel = (): void => {
    if (this.busy) this.cancelImport();
    else this.closeReview();
  };

  private closeReview(): void {
    this.plan = null;
    this.choices = {};
    this.error = null;
    this.result = null;
    this.sources = {};
  }

  dismissLastResult = (): void => {
    this.lastResult = null;
  };

  /** Stops a running import at the next skill; skills already written stay (each one whole). */
  cancelImport = (): void => {
    this.importAbort?.abort();
  };

  importChosen = async (): Promise<void> => {
    const plan = this.plan;
    if (!plan || this.busy) return;
    const choices = this.choices;
    const chosen = chosenPlan(plan, choices);
    const abort = new AbortController();
    this.importAbort = abort;
    this.busy = true;
    this.error = null;
    this.progress = { phase: 'Importing skills', done: 0, total: chosen.skills.length };
    try {
      const services = await skillsLibrary.start();
      const sources = this.sources;
      const outcomes = await applyImport(services.engine, chosen, choices, {
        installedFrom: stampSources(sources, new Date()),
        signal: abort.signal,
        onProgress: (progress) => {
          this.progress = progress;
        },
      });
      const result = importResult(plan, choices, outcomes);
      const shipsEvals = new Set(plan.skills.filter((skill) => sources[skill.id] && skill.files.some((file) => file.path === EVALS_FILE)).map((skill) => skill.id));
      const offers = outcomes.filter((outcome) => outcome.status === 'imported' && shipsEvals.has(outcome.id)).map((outcome) => outcome.name);
      if (offers.length > 0) this.verifyOffers = [...new Set([...this.verifyOffers, ...offers])];
      this.lastResult = result.skipped.length + result.cancelled.length > 0 ? result : null;
      skillsLibrary.notice = `${result.archiveName}: ${describeResult(result)}`;
      // A clean import needs no reading: the notice says it. Anything skipped or cancelled
      // stays on screen with its reasons until Done.
      if (result.skipped.length + result.cancelled.length > 0) this.result = result;
      else this.closeReview();
      await skillsLibrary.refresh();
    } catch (error) {
      // Skills written before a failure are whole and stay; the library shows them.
      this.error = isCancelled(error) ? null : error instanceof Error ? error.message : String(error);
      if (isCancelled(error)) skillsLibrary.notice = `${plan.archiveName}: the import was cancelled.`;
      await skillsLibrary.refresh().catch(() => undefined);
    } finally {
      this.busy = false;
      this.progress = null;
      this.importAbort = null;
    }
  };
}

export const skillZip = new SkillZip();
