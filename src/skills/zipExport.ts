/**
 * Exporting skills as zip archives (docs/skill-tools.md): `<name>/SKILL.md` at the top, supporting
 * files beside it with their stored bytes and each file's own Unix mode. Before an export the
 * checks of exportProblems.ts report what other agents would refuse; they never block it, and
 * an export never edits a skill (fixes are the user's, exportFixes.ts).
 *
 * Modes: an imported file keeps the mode its archive gave it (recorded in the import's ledger
 * entry, `evidence.modes`), so a `#!` script imported as 644 comes back as 644. Files Knack
 * made itself keep the older rule: a `scripts/` file starting with `#!` is executable.
 */
import { checkExportSkill, groupProblems, type ExportProblem, type ExportReport } from './exportProblems';
import type { LedgerEntry } from './ledger';
import type { SkillEngine } from './skillEngine';
import { writeZip, ZipBuilder, type WriteZipOptions, type ZipSource } from './zipWriter';
import { throttledProgress, throwIfCancelled, type LongTaskOptions } from '../storage/progress';

export interface ExportFile {
  /** Relative to the skill folder. */
  path: string;
  bytes: Uint8Array;
  /** Unix permission bits (0o644, 0o755…); absent means 0o644. */
  mode?: number;
}

export interface ExportSkill {
  /** The folder name in the archive (the skill's directory name). */
  folder: string;
  files: ExportFile[];
}

export const MODE_FILE = 0o644;
export const MODE_EXECUTABLE = 0o755;
/** Files read at once: one pool for every file of every skill (docs/skill-tools.md, "At scale"). */
const READ_PARALLELISM = 32;

/** The zip entries of some skill folders, in order; each file carries its Unix mode. */
function zipEntries(skills: readonly ExportSkill[]): ZipSource[] {
  return skills.flatMap((skill) => skill.files.map((file) => ({ name: `${skill.folder}/${file.path}`, bytes: file.bytes, unixMode: file.mode ?? MODE_FILE })));
}

/** One archive of skill folders (zipWriter.ts: native deflate, already-compressed files stored). */
export function buildSkillsZip(skills: readonly ExportSkill[], options: WriteZipOptions = {}): Promise<Uint8Array> {
  return writeZip(zipEntries(skills), { task: 'The export', ...options });
}

/** The export problems of one collected skill. */
export function checkSkill(skill: ExportSkill): ExportProblem[] {
  return checkExportSkill(skill.folder, skill.files);
}

/**
 * The file modes the skill's newest import recorded, or null when the skill was not imported
 * (or was deleted or created anew since). Older imports recorded only the executable paths:
 * the other files they wrote were 644.
 */
export function importedModes(history: readonly LedgerEntry[]): Map<string, number> | null {
  // An update from the source (src/install/update.ts) records the modes it wrote, as an import does.
  const latest = [...history].reverse().find((entry) => entry.action === 'import' || entry.action === 'update' || entry.action === 'create' || entry.action === 'delete');
  if (!latest || (latest.action !== 'import' && latest.action !== 'update')) return null;
  const modes = new Map<string, number>();
  const recorded = latest.evidence.modes;
  if (recorded && typeof recorded === 'object') {
    for (const [path, mode] of Object.entries(recorded as Record<string, unknown>)) if (typeof mode === 'number') modes.set(path, mode);
    return modes;
  }
  const dir = latest.after.find((version) => version.path.endsWith('/SKILL.md'))?.path.slice(0, -'/SKILL.md'.length);
  const executable = new Set(Array.isArray(latest.evidence.executable) ? latest.evidence.executable : []);
  for (const version of latest.after) {
    const relative = dir !== undefined && version.path.startsWith(`${dir}/`) ? version.path.slice(dir.length + 1) : version.path;
    modes.set(relative, executable.has(relative) ? MODE_EXECUTABLE : MODE_FILE);
  }
  return modes;
}

/** Knack's rule for files it made itself: a `scripts/` file starting with `#!` is executable. */
export function defaultMode(path: string, bytes: Uint8Array): number {
  return path.startsWith('scripts/') && bytes[0] === 0x23 && bytes[1] === 0x21 ? MODE_EXECUTABLE : MODE_FILE;
}

async function readSkillFiles(engine: SkillEngine, dir: string, modes: Map<string, number> | null): Promise<ExportFile[]> {
  // Where the store can, the walk hands out each file's reader: no lookup per file of a large skill.
  const walked = engine.files.walkFiles ? await engine.files.walkFiles(dir) : (await engine.files.walk(dir)).map((path) => ({ path, read: () => engine.files.read(path) }));
  const read = await Promise.all(walked.map(async (file) => ({ path: file.path, bytes: await file.read() })));
  const files: ExportFile[] = [];
  for (const { path, bytes } of read) {
    if (!bytes) continue;
    const relative = path.slice(dir.length + 1);
    files.push({ path: relative, bytes, mode: modes?.get(relative) ?? defaultMode(relative, bytes) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The modes of a nested skill that came in with its parent (docs/skill-tools.md, "Nested skills on
 * import"): its own ledger has no import, but the nearest imported ancestor's recorded every file
 * under it. Null when no ancestor was imported.
 */
async function modesFromParent(engine: SkillEngine, dir: string): Promise<Map<string, number> | null> {
  for (let cut = dir.lastIndexOf('/'); cut > 0; cut = dir.lastIndexOf('/', cut - 1)) {
    const parent = engine.catalog.byDirectory(dir.slice(0, cut));
    if (!parent) continue;
    const parentModes = importedModes(await engine.ledger.list(parent.name));
    if (!parentModes) return null;
    const prefix = `${dir.slice(cut + 1)}/`;
    const modes = new Map<string, number>();
    for (const [path, mode] of parentModes) if (path.startsWith(prefix)) modes.set(path.slice(prefix.length), mode);
    return modes;
  }
  return null;
}

/** Whether a skill's own ledger says where its files came from (an import, a create, or a delete since). */
const hasOwnOrigin = (history: readonly LedgerEntry[]) => history.some((entry) => entry.action === 'import' || entry.action === 'create' || entry.action === 'delete');

/** A stored skill as export input; null when it has no files. `history`: its ledger entries, oldest first. */
export async function collectSkill(engine: SkillEngine, name: string, history?: readonly LedgerEntry[]): Promise<ExportSkill | null> {
  const entry = engine.catalog.findByName(name)[0];
  if (!entry) return null;
  const own = history ?? (await engine.ledger.list(name));
  const modes = hasOwnOrigin(own) ? importedModes(own) : await modesFromParent(engine, entry.dir);
  const files = await readSkillFiles(engine, entry.dir, modes);
  if (files.length === 0) return null;
  await addVerificationSidecar(engine, name, files);
  return { folder: name, files };
}

/** Where an export puts the gate's evidence; SKILL.md bytes are never touched for it. */
export const VERIFICATION_SIDECAR_FILE = 'evals/verification.json';

/**
 * The gate's current verdict travels as `evals/verification.json` (written by the gate, which
 * skills cannot import: `engine.verification`). It replaces a sidecar the skill came with,
 * which is only someone else's claim; without a current verdict the files go as they are.
 */
async function addVerificationSidecar(engine: SkillEngine, name: string, files: ExportFile[]): Promise<void> {
  const sidecar = await engine.verification?.sidecar(name);
  if (sidecar) placeSidecar(files, sidecar);
}

function placeSidecar(files: ExportFile[], sidecar: Uint8Array): void {
  const at = files.findIndex((file) => file.path === VERIFICATION_SIDECAR_FILE);
  const file: ExportFile = { path: VERIFICATION_SIDECAR_FILE, bytes: sidecar, mode: MODE_FILE };
  if (at >= 0) files[at] = file;
  else files.push(file);
}

/** Ledger entries per skill, from one read of the ledger. */
async function historiesByName(engine: SkillEngine): Promise<Map<string, LedgerEntry[]>> {
  const byName = new Map<string, LedgerEntry[]>();
  for (const entry of await engine.ledger.list()) {
    let list = byName.get(entry.skill);
    if (!list) byName.set(entry.skill, (list = []));
    list.push(entry);
  }
  for (const list of byName.values()) list.sort((a, b) => a.at - b.at);
  return byName;
}

/** One skill being read: its files arrive one by one from the shared pool. */
interface PendingSkill {
  name: string;
  dir: string;
  modes: Map<string, number> | null;
  files: ExportFile[];
  sidecar: Uint8Array | null;
  /** Reads not finished yet (the walk counts as one until it has listed the files). */
  open: number;
  exported?: ExportSkill;
}

/**
 * Every live skill (not the archive), ready for one zip. Every file of every skill goes through
 * one pool of READ_PARALLELISM reads, so no skill's slowest file holds up the others; a skill's
 * folder is walked (one listing per folder) as soon as a slot is free, from the catalogue's
 * directory. Skills nested in another skill's folder are read as its files, not again on their
 * own. Progress counts skills whose files are all read; a cancel stops before the next read.
 */
export async function collectAllSkills(engine: SkillEngine, options: LongTaskOptions & { onSkill?: (skill: ExportSkill) => void } = {}): Promise<ExportSkill[]> {
  const byName = new Map<string, string>();
  // A nested skill travels inside its parent's folder (docs/skill-tools.md, "Nested skills on
  // import"), so the archive holds the library's tree once.
  const dirs = new Set([...engine.catalog.entries()].map((entry) => entry.dir));
  const nested = (dir: string) => {
    for (let cut = dir.lastIndexOf('/'); cut > 0; cut = dir.lastIndexOf('/', cut - 1)) if (dirs.has(dir.slice(0, cut))) return true;
    return false;
  };
  for (const entry of engine.catalog.entries()) if (!byName.has(entry.name) && !nested(entry.dir)) byName.set(entry.name, entry.dir);
  const names = [...byName.keys()].sort();
  const histories = await historiesByName(engine);
  const report = throttledProgress(options.onProgress);
  const skills: PendingSkill[] = names.map((name) => ({ name, dir: byName.get(name)!, modes: importedModes(histories.get(name) ?? []), files: [], sidecar: null, open: 1 }));
  type Job = { skill: PendingSkill; path?: string; read?: () => Promise<Uint8Array | null> };
  const jobs: Job[] = skills.map((skill) => ({ skill })).reverse();
  let done = 0;
  // Skills are handed to `onSkill` in name order as soon as they and every skill before them are read.
  let handedOver = 0;
  const handOver = () => {
    for (; handedOver < skills.length && skills[handedOver]!.open === 0; handedOver++) {
      const exported = finishedSkill(skills[handedOver]!);
      if (exported) options.onSkill?.(exported);
    }
  };
  const finishOne = (skill: PendingSkill) => {
    if (--skill.open > 0) return;
    done++;
    report({ phase: 'Reading skills', done, total: skills.length, item: skill.name });
    handOver();
  };
  // Where the store can, the walk hands out each file's reader, which needs no lookup of its own.
  const walk = async (dir: string): Promise<Array<{ path: string; read?: () => Promise<Uint8Array | null> }>> =>
    engine.files.walkFiles ? engine.files.walkFiles(dir) : (await engine.files.walk(dir)).map((path) => ({ path }));
  const runJob = async ({ skill, path, read }: Job): Promise<void> => {
    if (path === undefined) {
      const [found, sidecar] = await Promise.all([walk(skill.dir), engine.verification?.sidecar(skill.name) ?? null]);
      skill.sidecar = sidecar;
      skill.open += found.length;
      // Reads go on top of the queue: a skill is finished before new folders are opened.
      for (const file of [...found].reverse()) jobs.push({ skill, ...file });
    } else {
      const bytes = read ? await read() : await engine.files.read(path);
      const relative = path.slice(skill.dir.length + 1);
      if (bytes) skill.files.push({ path: relative, bytes, mode: skill.modes?.get(relative) ?? defaultMode(relative, bytes) });
    }
    finishOne(skill);
  };
  report({ phase: 'Reading skills', done: 0, total: skills.length, item: names[0] });
  // A worker that finds the queue empty while folders are still being walked waits for their reads.
  let walking = 0;
  let wake: () => void = () => undefined;
  let failed = false;
  await Promise.all(
    Array.from({ length: READ_PARALLELISM }, async () => {
      while (!failed) {
        const job = jobs.pop();
        if (!job) {
          if (walking === 0) return;
          await new Promise<void>((resolve) => (wake = chain(wake, resolve)));
          continue;
        }
        throwIfCancelled(options.signal, 'The export');
        if (job.path === undefined) walking++;
        try {
          await runJob(job);
        } catch (error) {
          failed = true; // the others stop after their current read
          throw error;
        } finally {
          if (job.path === undefined) walking--;
          const waiting = wake;
          wake = () => undefined;
          waiting();
        }
      }
    }),
  );
  report({ phase: 'Reading skills', done: skills.length, total: skills.length });
  return skills.flatMap((skill) => (skill.exported ? [skill.exported] : []));
}

/** A read skill as export input (files sorted, the gate's sidecar in place); null without files. */
function finishedSkill(skill: PendingSkill): ExportSkill | null {
  if (skill.files.length === 0) return null;
  skill.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (skill.sidecar) placeSidecar(skill.files, skill.sidecar);
  skill.exported = { folder: skill.name, files: skill.files };
  return skill.exported;
}

const chain = (first: () => void, second: () => void) => () => {
  first();
  second();
};

export interface ExportResult {
  zip: Uint8Array;
  /** The skills in the archive. */
  count: number;
  report: ExportReport;
}

/**
 * Export all: reads every live skill, checks it, and builds one archive. Each skill is checked
 * and its files handed to the zip writer as soon as it is read, so checking and compressing run
 * while the other skills are still being read from OPFS; the archive is laid out in name order.
 * Progress comes in three phases (reading, checking what is left, writing the archive) and a
 * cancel stops with a CancelledError before the next read or entry (docs/architecture.md, "Long work").
 */
export async function exportAllSkills(engine: SkillEngine, options: LongTaskOptions = {}): Promise<ExportResult> {
  const report = throttledProgress(options.onProgress);
  let reading = true;
  const zip = new ZipBuilder({
    task: 'The export',
    signal: options.signal,
    onEntry: (done) => {
      if (!reading) report({ phase: 'Writing the archive', done, total: zip.size });
    },
  });
  const checked: Array<{ name: string; problems: ExportProblem[] }> = [];
  const skills = await collectAllSkills(engine, {
    ...options,
    onSkill: (skill) => {
      checked.push({ name: skill.folder, problems: checkSkill(skill) });
      for (const entry of zipEntries([skill])) zip.add(entry);
    },
  });
  reading = false;
  report({ phase: 'Checking skills', done: checked.length, total: skills.length });
  report({ phase: 'Writing the archive', done: zip.completed, total: zip.size });
  const archive = await zip.finish();
  report({ phase: 'Writing the archive', done: zip.size, total: zip.size });
  return { zip: archive, count: skills.length, report: groupProblems(checked) };
}
