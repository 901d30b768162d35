/**
 * Zip import and export at collection scale (SPEC §17 goals: import 1,000 skills ≤ 15 s,
 * export 1,500 skills of ~30 MB ≤ 5 s), on the app's own engine: real OPFS and IndexedDB,
 * the real journal, ledger, usage records and catalogue. The archives come from the synthetic
 * corpus of tests/fixtures/skillCorpus.ts (the problem kinds of the public collections, built
 * in code). Each bench removes the skills it wrote; their ledger and usage records stay in the
 * throwaway bench context (bench/run.mjs).
 */
import type { BrowserBench } from './types';
import type { ConsoleSkills as SkillServices } from '../../src/app/boot';
import { waitForSkills } from './knack';
import { applyImport, planImport, type ImportChoice } from '../../src/skills/zipImport';
import { exportAllSkills } from '../../src/skills/zipExport';
import { corpusZip, generateCorpus } from '../../tests/fixtures/skillCorpus';

/** Plans and writes every skill of the archive (all chosen, verdicts confirmed). */
async function importAll(services: SkillServices, archive: Uint8Array): Promise<{ planMs: number; applyMs: number; imported: number; dirs: string[] }> {
  const { engine } = services;
  const started = performance.now();
  const plan = planImport(archive, { archiveName: 'corpus.zip', trusted: true, exists: (name) => engine.catalog.findByName(name).length > 0 });
  const planned = performance.now();
  const choices: Record<string, ImportChoice> = Object.fromEntries(
    plan.skills.map((skill) => [skill.id, { include: true, collision: 'replace', confirmed: true, override: true }]),
  );
  const outcomes = await applyImport(engine, plan, choices);
  const applied = performance.now();
  const dirs = outcomes.flatMap((outcome) => (outcome.status === 'imported' ? [outcome.dir] : []));
  return { planMs: planned - started, applyMs: applied - planned, imported: dirs.length, dirs };
}

/** OPFS calls in flight for the floor, as the export's read pool allows. */
const FLOOR_PARALLELISM = 32;

/**
 * The OPFS floor of an export's reading: list every folder of the skills in `dirs` and read
 * every file, straight on the handles with 32 calls in flight, nothing else. The export reads
 * at least this much; its reading phase over this floor is what Knack adds.
 */
async function opfsReadFloor(dirs: string[]): Promise<{ ms: number; files: number }> {
  const started = performance.now();
  const root = await navigator.storage.getDirectory();
  type Task = { kind: 'path'; path: string } | { kind: 'dir'; handle: FileSystemDirectoryHandle } | { kind: 'file'; handle: FileSystemFileHandle };
  const queue: Task[] = dirs.map((path): Task => ({ kind: 'path', path }));
  let files = 0;
  const run = async (task: Task): Promise<void> => {
    if (task.kind === 'file') {
      await (await task.handle.getFile()).arrayBuffer();
      files += 1;
      return;
    }
    let handle = task.kind === 'dir' ? task.handle : root;
    if (task.kind === 'path') for (const part of task.path.split('/')) handle = await handle.getDirectoryHandle(part);
    for await (const child of (handle as unknown as { values(): AsyncIterable<FileSystemHandle> }).values()) {
      queue.push(child.kind === 'file' ? { kind: 'file', handle: child as FileSystemFileHandle } : { kind: 'dir', handle: child as FileSystemDirectoryHandle });
    }
  };
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (active === 0 && queue.length === 0) resolve();
      while (active < FLOOR_PARALLELISM && queue.length) {
        active += 1;
        run(queue.pop()!).then(() => {
          active -= 1;
          pump();
        }, reject);
      }
    };
    pump();
  });
  return { ms: Math.round(performance.now() - started), files };
}

async function removeAll(services: SkillServices, dirs: string[]): Promise<void> {
  for (const dir of dirs) {
    await services.engine.files.deleteTree(dir);
    await services.engine.catalog.remove(dir);
  }
}

export const benches: BrowserBench[] = [
  {
    name: 'skillImport1k',
    async run(context) {
      const services = await waitForSkills(await context.knack());
      const archive = corpusZip(generateCorpus({ count: 1000, padBytes: 2000 }));
      const result = await importAll(services, archive);
      await removeAll(services, result.dirs);
      return { ms: Math.round(result.planMs + result.applyMs), planMs: Math.round(result.planMs), applyMs: Math.round(result.applyMs), imported: result.imported, archiveBytes: archive.length };
    },
  },
  {
    name: 'skillExport1500',
    async run(context) {
      const services = await waitForSkills(await context.knack());
      const archive = corpusZip(generateCorpus({ count: 1500, padBytes: 19_000 }));
      const setup = await importAll(services, archive);
      try {
        const phases: Record<string, number> = {};
        const started = performance.now();
        const result = await exportAllSkills(services.engine, {
          onProgress: (progress) => {
            phases[progress.phase] ??= Math.round(performance.now() - started);
          },
        });
        const ms = Math.round(performance.now() - started);
        // After the export, so the floor's reads warm nothing the export then reads.
        const floor = await opfsReadFloor(setup.dirs);
        const flagged = result.report.incompatible + result.report.advisoryOnly;
        return { ms, phaseStartsMs: phases, readFloorMs: floor.ms, floorFiles: floor.files, skills: result.count, flagged, incompatible: result.report.incompatible, zipBytes: result.zip.length, setupImportMs: Math.round(setup.planMs + setup.applyMs) };
      } finally {
        await removeAll(services, setup.dirs);
      }
    },
  },
];
