/**
 * Export in the Skills view (docs/skill-tools.md, "Export checks"): one skill's export with its
 * problems (waiting for "Download anyway" when there are incompatibilities), and Export all
 * with progress, cancel, and a report grouped by kind. Each single-skill notice is kept under
 * that skill's name, so it never shows under the next skill opened. Fixes are real edits of the
 * skill (exportFixes.ts); after one, that skill is checked again.
 */
import { skillsLibrary } from './skills.svelte';
import { buildSkillsZip, checkSkill, collectSkill, exportAllSkills } from '../../skills/zipExport';
import { groupProblems, problemKind, type ExportProblem, type ExportReport } from '../../skills/exportProblems';
import { applyExportFix, type ExportFixId } from '../../skills/exportFixes';
import { isCancelled, type Progress } from '../../storage/progress';
import { downloadBytes } from './fileDownload';

export interface PendingExport {
  name: string;
  problems: ExportProblem[];
}

export interface AllExportSummary {
  /** Skills in the archive. */
  count: number;
  results: Array<{ name: string; problems: ExportProblem[] }>;
}

const blocking = (problems: readonly ExportProblem[]) => problems.some((problem) => problemKind(problem.kind).class === 'incompatible');

class SkillExport {
  /** A single-skill export whose checks found incompatibilities, waiting for "Download anyway". */
  pendingExport = $state<PendingExport | null>(null);
  /** The last single-skill export notice, per skill name. */
  notices = $state<Record<string, string>>({});
  /** Export all: progress while it runs, then what it found. */
  progress = $state<Progress | null>(null);
  all = $state<AllExportSummary | null>(null);
  allNotice = $state<string | null>(null);
  fixing = $state<string | null>(null);
  /** What the last fix did (or why it failed), shown with the Export all report. */
  lastFix = $state<string | null>(null);
  #controller: AbortController | null = null;

  report = $derived<ExportReport | null>(this.all ? groupProblems(this.all.results) : null);

  noticeFor = (name: string): string | null => this.notices[name] ?? null;

  #notify(name: string, text: string): void {
    this.notices = { ...this.notices, [name]: text };
  }

  exportAll = async (): Promise<void> => {
    if (this.progress) return;
    const controller = (this.#controller = new AbortController());
    this.all = null;
    this.allNotice = null;
    this.lastFix = null;
    this.progress = { phase: 'Reading skills', done: 0, total: 0 };
    try {
      const services = await skillsLibrary.start();
      const result = await exportAllSkills(services.engine, { signal: controller.signal, onProgress: (progress) => (this.progress = progress) });
      downloadBytes(result.zip, 'knack-skills.zip');
      this.all = { count: result.count, results: result.report.kinds.length === 0 ? [] : collectResults(result.report) };
      this.allNotice = `Exported ${result.count} skill${result.count === 1 ? '' : 's'}.`;
    } catch (error) {
      this.allNotice = isCancelled(error) ? 'Export cancelled; nothing was downloaded.' : `Export failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.progress = null;
      this.#controller = null;
    }
  };

  cancelExportAll = (): void => {
    this.#controller?.abort();
  };

  dismissReport = (): void => {
    this.all = null;
    this.allNotice = null;
    this.lastFix = null;
  };

  /** Checks first; a skill without incompatibilities downloads at once, otherwise it waits for "Download anyway". */
  exportSkill = async (name: string, force = false): Promise<void> => {
    const services = await skillsLibrary.start();
    const skill = await collectSkill(services.engine, name);
    if (!skill) {
      this.#notify(name, `${name} has no files to export.`);
      return;
    }
    const problems = checkSkill(skill);
    if (!force && blocking(problems)) {
      this.pendingExport = { name, problems };
      return;
    }
    if (this.pendingExport?.name === name) this.pendingExport = null;
    downloadBytes(await buildSkillsZip([skill]), `${name}.zip`);
    const advisory = problems.length > 0 ? ` ${problems.length} advisory note${problems.length === 1 ? '' : 's'}: ${problems.map((p) => problemKind(p.kind).label).join(', ')}.` : '';
    this.#notify(name, `Downloaded ${name}.zip.${advisory}`);
  };

  dismissExport = (): void => {
    this.pendingExport = null;
  };

  /** Applies one fix as a journaled edit, then checks that skill again (in the pending export and the report). */
  fix = async (name: string, fix: ExportFixId): Promise<void> => {
    if (this.fixing) return;
    this.fixing = name;
    try {
      const services = await skillsLibrary.start();
      const result = await applyExportFix(services.engine, name, fix);
      this.lastFix = result.ok ? result.message : result.error;
      if (!result.ok) {
        this.#notify(name, result.error);
        return;
      }
      this.#notify(name, result.message);
      const skill = await collectSkill(services.engine, name);
      const problems = skill ? checkSkill(skill) : [];
      if (this.pendingExport?.name === name) this.pendingExport = { name, problems };
      if (this.all) this.all = { ...this.all, results: [...this.all.results.filter((r) => r.name !== name), { name, problems }] };
      await skillsLibrary.refresh();
    } finally {
      this.fixing = null;
    }
  };
}

/** The per-skill problem lists back from a grouped report (for re-grouping after fixes). */
function collectResults(report: ExportReport): Array<{ name: string; problems: ExportProblem[] }> {
  const byName: Record<string, ExportProblem[]> = {};
  for (const group of report.kinds) {
    for (const skill of group.skills) (byName[skill.name] ??= []).push({ kind: group.kind.id, detail: skill.detail, fix: skill.fix });
  }
  return Object.entries(byName).map(([name, problems]) => ({ name, problems }));
}

export const skillExport = new SkillExport();
