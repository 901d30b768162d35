/**
 * Real public skills (issue 21 items 7 and 8; bench/README.md "Real public skills"): the npm
 * tarballs bench/node/realSkills.mjs fetched (about 1,050 SKILL.md folders as their authors wrote
 * them, Anthropic's canvas-design, docx and pptx among them) are installed one after the other
 * through the app's own archive reader and import, with the Skills view open: the review
 * (`readArchive` + `planFiles`) and the writing (`applyImport`, real OPFS and IndexedDB). The
 * library is filled up to 1,423 skills with small generated ones, then the largest real skills
 * are opened by clicking their rows, each after a small one, twice (the first round warms code).
 * Everything imported is removed afterwards.
 */
import type { BrowserBench } from './types';
import { waitForSkills } from './knack';
import { enterSkillsView, removeImported, timedOpens } from './skillsView';
import { readArchive } from '../../src/install/archive';
import { buildSkillsZip } from '../../src/skills/zipExport';
import { applyImport, planFiles, planImport, type ImportCandidate, type ImportChoice, type ImportPlan } from '../../src/skills/zipImport';
import { DEFAULT_ZIP_LIMITS } from '../../src/skills/zipArchive';

/** Set by bench/run.mjs: the tarballs it serves on the app's origin. */
interface RealSkillTarball {
  spec: string;
  url: string;
}

const LIBRARY = 1_423;
/** Opened: the largest real skills by bytes, and by files. */
const BY_BYTES = 6;
const BY_FILES = 3;
const FILLER = 'bench-filler';
const encoder = new TextEncoder();

const fillerName = (i: number) => `${FILLER}-${String(i).padStart(4, '0')}`;

function fillerZip(count: number): Promise<Uint8Array> {
  return buildSkillsZip(
    Array.from({ length: count }, (_, i) => ({
      folder: fillerName(i),
      files: [{ path: 'SKILL.md', bytes: encoder.encode(`---\nname: ${fillerName(i)}\ndescription: Use when filling the bench library (${i}).\n---\n\n# Filler ${i}\n\n1. Nothing to do.\n`) }],
    })),
  );
}

/** A phrase of the skill's text that the rendered body shows as typed (no Markdown marks in it). */
function plainPhrase(skill: ImportCandidate): string | null {
  const text = new TextDecoder().decode(skill.files.find((file) => file.path === 'SKILL.md')?.bytes ?? new Uint8Array());
  const body = text.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.replace(/^#+\s*/, '').trim();
    if (line.length >= 12 && /^[A-Za-z0-9 ,.;:'()-]+$/.test(line)) return line.slice(0, 40);
  }
  return null;
}

const allIncluded = (plan: ImportPlan): Record<string, ImportChoice> =>
  Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, collision: 'keep-both', confirmed: true, override: true }]));

export const benches: BrowserBench[] = [
  {
    name: 'realSkills',
    async run(context) {
      const tarballs = (globalThis as { knackBenchRealSkills?: RealSkillTarball[] | { error: string } }).knackBenchRealSkills;
      if (!tarballs) throw new Error('no real skills: bench/run.mjs serves them (npm pack of bench/node/realSkills.mjs)');
      if ('error' in tarballs) throw new Error(tarballs.error);
      const leaveSkillsView = enterSkillsView();
      const services = await waitForSkills(await context.knack());
      const { engine } = services;
      const exists = (name: string) => engine.catalog.findByName(name).length > 0;
      let reviewMs = 0;
      let writingMs = 0;
      let archiveBytes = 0;
      const perPackage: Array<{ spec: string; skills: number; megabytes: number; reviewMs: number; writingMs: number }> = [];
      const dirs: string[] = [];
      const imported: Array<{ skill: ImportCandidate; name: string }> = [];
      try {
        for (const tarball of tarballs) {
          const bytes = new Uint8Array(await (await fetch(tarball.url)).arrayBuffer());
          archiveBytes += bytes.length;
          const started = performance.now();
          const plan = planFiles(readArchive(bytes, DEFAULT_ZIP_LIMITS), { archiveName: tarball.spec, exists });
          const planned = performance.now();
          if (plan.error) throw new Error(`${tarball.spec}: ${plan.error}`);
          const outcomes = await applyImport(engine, plan, allIncluded(plan));
          const written = performance.now();
          for (const outcome of outcomes) {
            if (outcome.status !== 'imported') continue;
            dirs.push(outcome.dir);
            imported.push({ skill: plan.skills.find((skill) => skill.id === outcome.id)!, name: outcome.name });
          }
          reviewMs += planned - started;
          writingMs += written - planned;
          perPackage.push({ spec: tarball.spec, skills: plan.skills.length, megabytes: Math.round(bytes.length / 1e5) / 10, reviewMs: Math.round(planned - started), writingMs: Math.round(written - planned) });
        }
        const realSkills = imported.length;
        const fill = Math.max(1, LIBRARY - engine.catalog.entries().length);
        const fillPlan = planImport(await fillerZip(fill), { archiveName: 'bench-filler.zip', exists });
        for (const outcome of await applyImport(engine, fillPlan, allIncluded(fillPlan))) if (outcome.status === 'imported') dirs.push(outcome.dir);

        // The skills opened: not renamed by a collision, and with a phrase the body shows as typed.
        const openable = imported
          .map(({ skill, name }) => ({ name, files: skill.files.length, bytes: skill.files.reduce((sum, file) => sum + file.bytes.length, 0), phrase: plainPhrase(skill), renamed: name !== skill.name }))
          .filter((skill) => !skill.renamed && skill.phrase !== null);
        const targets = new Map<string, (typeof openable)[number]>();
        for (const skill of [...openable].sort((a, b) => b.bytes - a.bytes).slice(0, BY_BYTES)) targets.set(skill.name, skill);
        for (const skill of [...openable].sort((a, b) => b.files - a.files).slice(0, BY_FILES)) targets.set(skill.name, skill);

        const small = { name: fillerName(0), files: 1, textShown: (body: string) => body.includes('Nothing to do') };
        const open = await timedOpens(small, [...targets.values()].map((target) => ({ ...target, textShown: (body: string) => body.includes(target.phrase!) })));
        for (const target of targets.values()) Object.assign(open.perSkill[target.name]!, { megabytes: Math.round(target.bytes / 1e4) / 100 });
        return {
          importMs: Math.round(reviewMs + writingMs),
          reviewMs: Math.round(reviewMs),
          writingMs: Math.round(writingMs),
          realSkills,
          library: engine.catalog.entries().length,
          archiveMegabytes: Math.round(archiveBytes / 1e5) / 10,
          perPackage,
          open,
        };
      } finally {
        leaveSkillsView();
        await removeImported(engine, dirs);
      }
    },
  },
];
