/**
 * Export in the Skills view: one skill's export with its check results (waiting for "Download
 * anyway" when they found problems), and Export all with its report. Each single-skill notice
 * is kept under that skill's name, so it never shows under the next skill opened.
 */
import { skillsLibrary } from './skills.svelte';
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

class SkillExport {
  /** A single-skill export whose checks found problems, waiting for "Download anyway". */
  pendingExport = $state<PendingExport | null>(null);
  /** The last single-skill export notice, per skill name. */
  notices = $state<Record<string, string>>({});

  noticeFor = (name: string): string | null => this.notices[name] ?? null;

  exportAll = async (): Promise<void> => {
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
      this.notices = { ...this.notices, [name]: `${name} has no files to export.` };
      return;
    }
    const checks = exportChecks(skill);
    if (!force && checks.strict.length + checks.claude.length > 0) {
      this.pendingExport = { name, checks };
      return;
    }
    this.pendingExport = null;
    download(buildSkillsZip([skill]), `${name}.zip`);
    this.notices = { ...this.notices, [name]: `Downloaded ${name}.zip.` };
  };

  dismissExport = (): void => {
    this.pendingExport = null;
  };
}

export const skillExport = new SkillExport();
