/**
 * Zip import in the Skills view: the import plan under review and the user's ticks per skill.
 * Nothing is written until `importChosen`; the engine enforces the verdict rules again
 * (applyImport). Export lives in skillExport.svelte.ts.
 */
import { skillsLibrary } from './skills.svelte';
import { applyImport, planImport, retrustPlan, choiceAllows, type ImportChoice, type ImportPlan } from '../../skills/zipImport';

class SkillZip {
  plan = $state<ImportPlan | null>(null);
  choices = $state<Record<string, ImportChoice>>({});
  busy = $state(false);
  error = $state<string | null>(null);

  canImport = $derived(this.plan !== null && this.plan.skills.some((skill) => choiceAllows(skill, this.choices[skill.id]) === null));

  /** Reads a picked or dropped file and shows its review; writes nothing. */
  openFile = async (file: File): Promise<void> => {
    this.error = null;
    try {
      const services = await skillsLibrary.start();
      const bytes = new Uint8Array(await file.arrayBuffer());
      const plan = planImport(bytes, {
        archiveName: file.name,
        exists: (name) => services.engine.catalog.findByName(name).length > 0,
      });
      this.choices = Object.fromEntries(
        plan.skills.map((skill) => [skill.id, { include: skill.decision === 'import', collision: skill.collides ? 'skip' : undefined }]),
      );
      this.plan = plan;
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.plan = null;
    }
  };

  setTrusted = (trusted: boolean): void => {
    if (this.plan) this.plan = retrustPlan(this.plan, trusted);
  };

  setChoice = (id: string, change: Partial<ImportChoice>): void => {
    const current: ImportChoice = this.choices[id] ?? { include: false };
    this.choices = { ...this.choices, [id]: { ...current, ...change } };
  };

  cancel = (): void => {
    this.plan = null;
    this.choices = {};
    this.error = null;
  };

  importChosen = async (): Promise<void> => {
    const plan = this.plan;
    if (!plan || this.busy) return;
    this.busy = true;
    this.error = null;
    try {
      const services = await skillsLibrary.start();
      const outcomes = await applyImport(services.engine, $state.snapshot(plan) as ImportPlan, $state.snapshot(this.choices));
      const imported = outcomes.filter((o) => o.status === 'imported').map((o) => o.name);
      const skipped = outcomes.length - imported.length;
      skillsLibrary.notice =
        imported.length > 0
          ? `Imported ${imported.join(', ')}${skipped > 0 ? `; ${skipped} skipped` : ''}.`
          : `Nothing imported (${skipped} skipped).`;
      this.plan = null;
      this.choices = {};
      await skillsLibrary.refresh();
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
    } finally {
      this.busy = false;
    }
  };
}

export const skillZip = new SkillZip();
