/**
 * Opening a real-sized skill in the Skills view (SPEC §17: 300 files, 10 MB — text and actions
 * usable ≤ 200 ms, export checks done ≤ 1 s; docs/skill-tools.md "Opening a large skill"). The
 * skill is imported through the real import (one ledger entry of 300 files, as a public skill
 * arrives), then opened by clicking its row, as the user does:
 *   - `textAndActions`: click → its instructions on screen and Export enabled;
 *   - `filesListed`: click → every file listed (after the view is usable);
 *   - `exportChecks`: what Export does before it downloads (read every file, run the checks),
 *     with `exportReadPart` the reading alone.
 * Opens alternate with a small skill, so each open of the large one starts from another skill.
 */
import { summarize } from './stats';
import type { BrowserBench } from './types';
import { untilFrame, waitForSkills } from './knack';
import { buildSkillsZip, checkSkill, collectSkill } from '../../src/skills/zipExport';
import { applyImport, planImport, type ImportChoice } from '../../src/skills/zipImport';

const FILES = 300;
const TOTAL_BYTES = 10 * 1024 * 1024;
const RUNS = 8;
const BIG = 'bench-open-big';
const SMALL = 'bench-open-small';
const encoder = new TextEncoder();

const skillMd = (name: string, steps: number) =>
  [`---`, `name: ${name}`, `description: Use when opening a large bench skill (${name}).`, `---`, '', `# ${name}`, '', ...Array.from({ length: steps }, (_, i) => `${i + 1}. Step ${i + 1}: read the matching reference file and follow it.`), ''].join('\n');

/** A reference file of about `bytes` bytes of Markdown-like text. */
function referenceText(i: number, bytes: number): string {
  const line = `- Item ${i}: the tool takes the record id, checks the account, then writes the change and reports it.\n`;
  return `# Reference ${i}\n\n${line.repeat(Math.max(1, Math.floor(bytes / line.length)))}`;
}

/** 300 files, 10 MB: SKILL.md, then references, scripts and assets in nested folders. */
async function bigSkillZip(): Promise<Uint8Array> {
  const each = Math.floor(TOTAL_BYTES / (FILES - 1));
  const files = [{ path: 'SKILL.md', bytes: encoder.encode(skillMd(BIG, 40)) }];
  for (let i = 1; i < FILES; i++) {
    const folder = ['references', 'references/api', 'templates', 'scripts', 'assets/data'][i % 5]!;
    files.push({ path: `${folder}/file-${String(i).padStart(3, '0')}.md`, bytes: encoder.encode(referenceText(i, each)) });
  }
  return buildSkillsZip([{ folder: BIG, files }, { folder: SMALL, files: [{ path: 'SKILL.md', bytes: encoder.encode(skillMd(SMALL, 3)) }] }]);
}

function listButton(name: string): HTMLButtonElement | undefined {
  const list = document.querySelector('[aria-label="Skills"]');
  return [...(list?.querySelectorAll('button') ?? [])].find((b) => b.querySelector('.name')?.textContent === name);
}

const exportButton = () => [...document.querySelectorAll<HTMLButtonElement>('[aria-label="Skill actions"] button')].find((b) => b.textContent?.trim() === 'Export');
const bodyText = () => document.querySelector('[data-testid="skill-body"]')?.textContent ?? '';
const listedFiles = () => document.querySelectorAll('[aria-label="Files of this skill"] li').length;

/** Clicks the skill's row; the times until its text and actions, and until its files, are on screen. */
async function timedOpen(name: string, files: number): Promise<{ usable: number; listed: number }> {
  await untilFrame(() => listButton(name) !== undefined, `the list row of ${name}`);
  const started = performance.now();
  listButton(name)!.click();
  await untilFrame(() => document.getElementById('skill-detail-name')?.textContent === name && bodyText().includes('Step 1') && exportButton()?.disabled === false, `the text and actions of ${name}`);
  const usable = performance.now() - started;
  await untilFrame(() => listedFiles() >= files, `the files of ${name}`);
  return { usable, listed: performance.now() - started };
}

async function removeBenchSkills(): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const skills = await root.getDirectoryHandle('skills', { create: true });
  for (const name of [BIG, SMALL]) await skills.removeEntry(name, { recursive: true }).catch(() => undefined);
}

const skillOpen: BrowserBench = {
  name: 'skillOpen',
  async run(context) {
    const knack = await context.knack();
    location.hash = '#/skills';
    const services = await waitForSkills(knack);
    await removeBenchSkills();
    await services.engine.catalog.rescan();
    try {
      const plan = planImport(await bigSkillZip(), { archiveName: 'bench-open.zip', trusted: true });
      if (plan.error || plan.skills.length !== 2) throw new Error(`import plan: ${plan.error ?? `${plan.skills.length} skills`}`);
      const choices: Record<string, ImportChoice> = Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, confirmed: true, override: true }]));
      const outcomes = await applyImport(services.engine, plan, choices);
      if (outcomes.some((outcome) => outcome.status !== 'imported')) throw new Error(`import: ${JSON.stringify(outcomes)}`);
      const big = plan.skills.find((skill) => skill.name === BIG)!;
      const bytes = big.files.reduce((sum, file) => sum + file.bytes.byteLength, 0);

      const usable: number[] = [];
      const listed: number[] = [];
      const checks: number[] = [];
      const reads: number[] = [];
      for (let i = -1; i < RUNS; i++) {
        await timedOpen(SMALL, 1);
        const open = await timedOpen(BIG, FILES);
        const started = performance.now();
        const skill = await collectSkill(services.engine, BIG);
        if (!skill || skill.files.length !== FILES) throw new Error(`export read ${skill?.files.length ?? 0} files`);
        const read = performance.now() - started;
        checkSkill(skill);
        const checked = performance.now() - started;
        if (i < 0) continue; // warm-up: code loaded, caches filled
        usable.push(open.usable);
        listed.push(open.listed);
        checks.push(checked);
        reads.push(read);
      }
      return { files: big.files.length, bytes, textAndActions: summarize(usable), filesListed: summarize(listed), exportChecks: summarize(checks), exportReadPart: summarize(reads) };
    } finally {
      await removeBenchSkills();
      await services.engine.catalog.rescan().catch(() => undefined);
    }
  },
};

export const benches: BrowserBench[] = [skillOpen];
