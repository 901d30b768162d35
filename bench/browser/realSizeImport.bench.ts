/**
 * Import of a real-size library (issue 21 item 7; bench/README.md "Real-size library"): the
 * 13 zips of tests/fixtures/realSizeLibrary.ts (1,423 skills, one zip of 864, skills of up to
 * 300 files and 10 MB), imported one after the other into the app's own engine as the Skills
 * view does it: the review (`planImport`, with the library's names for collisions) and the
 * writing (`applyImport`, real OPFS, IndexedDB, journal, ledger, usage and catalogue). Times
 * are per step and in total; the skills are removed afterwards.
 */
import type { BrowserBench } from './types';
import { waitForSkills } from './knack';
import { enterSkillsView, removeImported, timedOpens } from './skillsView';
import { applyImport, planImport, type ImportChoice } from '../../src/skills/zipImport';
import { REAL_SIZE_SKILL_INDEXES, realSizeLibraryZips, realSizeSkillName } from '../../tests/fixtures/realSizeLibrary';

/** OPFS calls in flight for the floor (as bench/browser/skillZip.bench.ts's read floor). */
const FLOOR_PARALLELISM = 32;

/**
 * The OPFS floor of the writing: every file of every skill written once under `bench-tmp/`,
 * straight on the handles (folders created, `createWritable`, write, close), 32 in flight, no
 * temp file, journal, ledger or catalogue. Measured in the same run, so the writing's ratio to
 * it holds on a loaded machine where milliseconds do not.
 */
async function opfsWriteFloor(zips: ReturnType<typeof realSizeLibraryZips>): Promise<{ ms: number; files: number; megabytes: number }> {
  const files: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const zip of zips) {
    for (const skill of planImport(zip.bytes, { archiveName: zip.name }).skills) {
      for (const file of skill.files) files.push({ path: `${zip.name}/${skill.name}/${file.path}`, bytes: file.bytes });
    }
  }
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle('bench-tmp', { create: true });
  const base = await root.getDirectoryHandle('write-floor', { create: true });
  const folders = new Map<string, Promise<FileSystemDirectoryHandle>>([['', Promise.resolve(base)]]);
  const folder = (path: string): Promise<FileSystemDirectoryHandle> => {
    let found = folders.get(path);
    if (!found) {
      const cut = path.lastIndexOf('/');
      found = folder(cut === -1 ? '' : path.slice(0, cut)).then((parent) => parent.getDirectoryHandle(path.slice(cut + 1), { create: true }));
      folders.set(path, found);
    }
    return found;
  };
  let bytes = 0;
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: FLOOR_PARALLELISM }, async () => {
      while (next < files.length) {
        const file = files[next++]!;
        const cut = file.path.lastIndexOf('/');
        const handle = await (await folder(file.path.slice(0, cut))).getFileHandle(file.path.slice(cut + 1), { create: true });
        const writable = await handle.createWritable();
        await writable.write(file.bytes as Uint8Array<ArrayBuffer>);
        await writable.close();
        bytes += file.bytes.length;
      }
    }),
  );
  const ms = Math.round(performance.now() - started);
  await root.removeEntry('write-floor', { recursive: true });
  return { ms, files: files.length, megabytes: Math.round(bytes / 1e5) / 10 };
}

export const benches: BrowserBench[] = [
  {
    name: 'realSizeImport',
    async run(context) {
      // The Skills view is open, as when a user imports through it.
      const leaveSkillsView = enterSkillsView();
      const services = await waitForSkills(await context.knack());
      const { engine } = services;
      const zips = realSizeLibraryZips();
      let reviewMs = 0;
      let writingMs = 0;
      const perZip: Array<{ zip: string; skills: number; megabytes: number; reviewMs: number; writingMs: number }> = [];
      const dirs: string[] = [];
      try {
        for (const zip of zips) {
          const started = performance.now();
          const plan = planImport(zip.bytes, { archiveName: zip.name, exists: (name) => engine.catalog.findByName(name).length > 0 });
          const planned = performance.now();
          const choices: Record<string, ImportChoice> = Object.fromEntries(
            plan.skills.map((skill) => [skill.id, { include: true, collision: 'replace', confirmed: true, override: true }]),
          );
          const outcomes = await applyImport(engine, plan, choices);
          const written = performance.now();
          for (const outcome of outcomes) if (outcome.status === 'imported') dirs.push(outcome.dir);
          reviewMs += planned - started;
          writingMs += written - planned;
          perZip.push({ zip: zip.name, skills: plan.skills.length, megabytes: Math.round(zip.bytes.length / 1e5) / 10, reviewMs: Math.round(planned - started), writingMs: Math.round(written - planned) });
        }
        // Opening the real-size skills (300 files, up to 10 MB, MB-long lines) and medium ones in
        // the library of 1,423, each after a small one, twice; the first round warms code.
        const filesOf = new Map<string, number>();
        for (const zip of zips) for (const skill of planImport(zip.bytes, { archiveName: zip.name }).skills) filesOf.set(skill.name, skill.files.length);
        const small = realSizeSkillName(1);
        const opened = (name: string) => ({ name, files: filesOf.get(name)!, textShown: (body: string) => body.includes(name) });
        const open = await timedOpens(opened(small), REAL_SIZE_SKILL_INDEXES.map((index) => opened(realSizeSkillName(index))));
        // After the import, so neither warms the other's folders.
        const floor = await opfsWriteFloor(zips);
        return {
          totalMs: Math.round(reviewMs + writingMs),
          writingOverFloor: Math.round((writingMs / floor.ms) * 100) / 100,
          writeFloorMs: floor.ms,
          writeFloorFiles: floor.files,
          writeFloorMegabytes: floor.megabytes,
          reviewMs: Math.round(reviewMs),
          writingMs: Math.round(writingMs),
          skills: dirs.length,
          archiveMegabytes: Math.round(zips.reduce((sum, zip) => sum + zip.bytes.length, 0) / 1e5) / 10,
          perZip,
          open,
        };
      } finally {
        leaveSkillsView();
        await removeImported(engine, dirs);
      }
    },
  },
];
