/**
 * The Skills view at library scale, in the running app (its OPFS, IndexedDB, catalogue and
 * view): opening a skill in a library of 1,400, and importing 80 skills into an empty library
 * against importing them into one of 1,300 — with the view open, so its listeners do their
 * work as they would for the user. The import must cost the same whatever the library size
 * (the view updates the changed rows only, docs/skill-tools.md "The Skills view at scale").
 *
 * The library is written straight to OPFS under `skills/benchlib-<c>/` (set-up, not a measured
 * write) and the catalogue rescanned once. Everything is removed when the bench ends; the
 * bench page is a throwaway browser context anyway (bench/run.mjs).
 */
import { summarize } from './stats';
import type { BrowserBench } from './types';
import { nextFrame, untilFrame, waitForSkills, type KnackHandle } from './knack';
import type { ConsoleSkills } from '../../src/app/boot';
import { buildSkillsZip, type ExportSkill } from '../../src/skills/zipExport';
import { applyImport, planImport, type ImportChoice } from '../../src/skills/zipImport';
import { emptyUsageRecord } from '../../src/skills/usageStore';

const CATEGORIES = 25;
const WRITE_PARALLELISM = 64;
const IMPORT_SIZE = 80;
const FILLED_LIBRARY = 1_300;
const OPEN_LIBRARY = 1_400;
const OPEN_RUNS = 20;
const encoder = new TextEncoder();

const libName = (i: number) => `lib-${String(i).padStart(5, '0')}`;
const libCategory = (i: number) => `benchlib-${String(i % CATEGORIES).padStart(2, '0')}`;

function skillText(name: string, i: number): string {
  return [
    '---',
    `name: ${name}`,
    `description: Use when checking bench project ${i}.`,
    '---',
    '',
    `# ${name}`,
    '',
    `1. Check project ${i}.`,
    '2. Run the checks and read every failure.',
    '',
  ].join('\n');
}

async function opfsDir(path: string): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.split('/')) dir = await dir.getDirectoryHandle(part, { create: true });
  return dir;
}

/** Skills `from`..`to`-1 straight to OPFS, each with a usage record, as a real library has. */
async function populate(knack: KnackHandle, from: number, to: number): Promise<void> {
  const categories = await Promise.all(Array.from({ length: CATEGORIES }, (_, c) => opfsDir(`skills/${libCategory(c)}`)));
  let next = from;
  await Promise.all(
    Array.from({ length: WRITE_PARALLELISM }, async () => {
      while (next < to) {
        const i = next++;
        const dir = await categories[i % CATEGORIES]!.getDirectoryHandle(libName(i), { create: true });
        const writable = await (await dir.getFileHandle('SKILL.md', { create: true })).createWritable();
        await writable.write(skillText(libName(i), i));
        await writable.close();
      }
    }),
  );
  const tx = knack.db.transaction('usage', 'readwrite');
  for (let i = from; i < to; i++) {
    const record = { ...emptyUsageRecord(libName(i)), source: 'foreground' as const, use_count: i % 7 };
    void (tx.store.keyPath ? tx.store.put(record) : tx.store.put(record, record.name));
  }
  await tx.done;
}

/** The library size the view shows: the "All (n)" option of the category filter. */
function shownCount(): number | null {
  const option = document.querySelector('[aria-label="Filter skills"] select option[value=""]');
  const match = option?.textContent?.match(/\((\d+)\)/);
  return match ? Number(match[1]) : null;
}

async function viewShows(count: number): Promise<void> {
  // An empty library shows its empty state, with no filters.
  const shows = () => shownCount() === count || (count === 0 && shownCount() === null && document.querySelector('[aria-label="Skill library"]') !== null);
  await untilFrame(shows, `the view to show ${count} skills (shows ${shownCount()})`);
}

/** A zip of `count` new skills named `<prefix>-NN`, each with one reference file. */
function importZip(prefix: string, count: number): Promise<Uint8Array> {
  const skills: ExportSkill[] = Array.from({ length: count }, (_, i) => {
    const name = `${prefix}-${String(i).padStart(3, '0')}`;
    return {
      folder: name,
      files: [
        { path: 'SKILL.md', bytes: encoder.encode(skillText(name, i)) },
        { path: 'references/notes.md', bytes: encoder.encode(`Notes for ${name}.\n`) },
      ],
    };
  });
  return buildSkillsZip(skills);
}

/** Imports `count` skills and waits until the view lists them; the time of both. */
async function timedImport(services: ConsoleSkills, prefix: string, count: number, expected: number): Promise<number> {
  const plan = planImport(await importZip(prefix, count), { archiveName: `${prefix}.zip`, trusted: true, exists: (name) => services.engine.catalog.findByName(name).length > 0 });
  if (plan.error || plan.skills.length !== count) throw new Error(`import plan: ${plan.error ?? `${plan.skills.length} of ${count} skills`}`);
  const choices: Record<string, ImportChoice> = Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, confirmed: true, override: true }]));
  const started = performance.now();
  const outcomes = await applyImport(services.engine, plan, choices);
  await viewShows(expected);
  await nextFrame();
  const elapsed = performance.now() - started;
  const imported = outcomes.filter((outcome) => outcome.status === 'imported').length;
  if (imported !== count) throw new Error(`imported ${imported} of ${count}: ${JSON.stringify(outcomes.find((o) => o.status !== 'imported'))}`);
  return elapsed;
}

/** Clicks a skill in the list and waits until its detail, actions included, is on screen. */
async function timedOpen(name: string): Promise<number> {
  const list = document.querySelector('[aria-label="Skills"]');
  const button = [...(list?.querySelectorAll('button') ?? [])].find((b) => b.querySelector('.name')?.textContent === name);
  if (!button) throw new Error(`no list button for ${name}`);
  const started = performance.now();
  button.click();
  await untilFrame(
    () => document.getElementById('skill-detail-name')?.textContent === name && document.querySelector('[aria-label="Skill actions"]') !== null,
    `the detail of ${name}`,
  );
  await nextFrame();
  return performance.now() - started;
}

/** Removes every bench skill (library and imports) and rescans, so the view shows `base` skills. */
async function removeLibrary(services: ConsoleSkills, base: number): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const skills = await root.getDirectoryHandle('skills', { create: true });
  const names: string[] = [];
  for await (const name of (skills as unknown as { keys(): AsyncIterable<string> }).keys()) names.push(name);
  for (const name of names) if (name.startsWith('benchlib-') || name.startsWith('imp-')) await skills.removeEntry(name, { recursive: true });
  await services.engine.catalog.rescan();
  await viewShows(base);
}

/** One import of 80 into a library of `fill` bench skills (none, or 1,300), from a clean start. */
async function importRound(knack: KnackHandle, services: ConsoleSkills, base: number, fill: number, prefix: string): Promise<number> {
  await removeLibrary(services, base);
  if (fill > 0) {
    await populate(knack, 0, fill);
    await services.engine.catalog.rescan();
    await viewShows(base + fill);
  }
  return timedImport(services, prefix, IMPORT_SIZE, base + fill + IMPORT_SIZE);
}

const skillsLibrary: BrowserBench = {
  name: 'skillsLibrary',
  async run(context) {
    const knack = await context.knack();
    location.hash = '#/skills';
    const services = await waitForSkills(knack);
    // An earlier bench (a restore) may still be reloading the catalogue: start from a settled one.
    await services.engine.catalog.rescan();
    const base = services.engine.catalog.size;
    try {
      await viewShows(base);
      // Warm-up: the first import loads code and fills caches.
      await timedImport(services, 'imp-warm', 10, base + 10);
      // Empty and filled alternate, twice, so both see the same load on a shared machine.
      const intoEmpty: number[] = [];
      const intoFilled: number[] = [];
      for (const round of [1, 2]) {
        intoEmpty.push(await importRound(knack, services, base, 0, `imp-empty${round}`));
        intoFilled.push(await importRound(knack, services, base, FILLED_LIBRARY, `imp-full${round}`));
      }

      // Open: a library of 1,400.
      await removeLibrary(services, base);
      await populate(knack, 0, OPEN_LIBRARY);
      await services.engine.catalog.rescan();
      const librarySize = services.engine.catalog.size;
      await viewShows(librarySize);
      // Skills the list shows now (it may show one page of the library), every 7th.
      const listed = [...document.querySelectorAll('[aria-label="Skills"] button .name')].map((el) => el.textContent ?? '');
      if (listed.length === 0) throw new Error('the list shows no skill');
      const opens: number[] = [];
      for (let i = -2; i < OPEN_RUNS; i++) {
        const elapsed = await timedOpen(listed[((i + 2) * 7) % listed.length]!);
        if (i >= 0) opens.push(elapsed);
      }
      const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
      return {
        librarySize,
        open: summarize(opens),
        importIntoEmptyMs: intoEmpty.map(Math.round),
        importInto1300Ms: intoFilled.map(Math.round),
        importRatio: Math.round((mean(intoFilled) / mean(intoEmpty)) * 100) / 100,
      };
    } finally {
      await removeLibrary(services, base).catch(() => undefined);
    }
  },
};

export const benches: BrowserBench[] = [skillsLibrary];
