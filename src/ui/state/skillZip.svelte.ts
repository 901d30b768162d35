/**
 * Zip import and export in the Skills view: the import plan under review, the user's ticks
 * per skill, and export downloads with their check results. Nothing is written until
 * `importChosen`; the engine enforces the verdict rules again (applyImport).
 */
import { skillsLibrary } from './skills.svelte';
import { applyImport, planImport, retrustPlan, choiceAllows, type ImportChoice, type ImportPlan } from '../../skills/zipImport';
import { buildSkillsZip, collectAllSkills, collectSkill, exportChecks, type ExportChecks } from '../../skills/zipExport';

export interface PendingExport {
  name: string;
  checks: ExportChecks;
}

function download(bytes: Uint8Array, fileName: string): void {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/zip' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // Chromium starts the download from the click; the URL can go once the task is done.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

class SkillZip {
  plan = $state<ImportPlan | null>(null);
  choices = $state<Record<string, ImportChoice>>({});
  busy = $state(false);
  error = $state<string | null>(null);
  /** A single-skill export whose checks found problems, waiting for "Download anyway". */
  pendingExport = $state<PendingExport | null>(null);
  exportNotice = $state<string | null>(null);

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

  exportAll = async (): Promise<void> => {
    this.exportNotice = null;
    const services = await skillsLibrary.start();
    const skills = await collectAllSkills(services.engine);
    const withProblems = skills.filter((skill) => {
      const checks = exportChecks(skill);
      return checks.strict.length + checks.claude.length > 0;
    });
    download(buildSkillsZip(skills), 'knack-skills.zip');
    skillsLibrary.notice =
      `Exported ${skills.length} skill${skills.length === 1 ? '' : 's'}` +
      (withProblems.length > 0 ? `; strict or Claude.ai checks found problems in ${withProblems.map((s) => s.folder).join(', ')}.` : '.');
  };

  /** Checks first; a clean skill downloads at once, one with problems waits for "Download anyway". */
  exportSkill = async (name: string, force = false): Promise<void> => {
    const services = await skillsLibrary.start();
    const skill = await collectSkill(services.engine, name);
    if (!skill) {
      this.exportNotice = `${name} has no files to export.`;
      return;
    }
    const checks = exportChecks(skill);
    if (!force && checks.strict.length + checks.claude.length > 0) {
      this.pendingExport = { name, checks };
      return;
    }
    this.pendingExport = null;
    download(buildSkillsZip([skill]), `${name}.zip`);
    this.exportNotice = `Downloaded ${name}.zip.`;
  };

  dismissExport = (): void => {
    this.pendingExport = null;
  };
}

export const skillZip = new SkillZip();
