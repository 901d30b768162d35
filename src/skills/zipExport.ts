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
import { ZipWriter } from './zipArchive';
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
// fflate's default level: on skill text it is as fast as its lower levels (measured with the
// skillExport1500 bench) and gives the smaller archive.
const LEVEL = 6;
// Files this small or already compressed gain nothing from deflate.
const STORE_BELOW = 64;
const COMPRESSED = /\.(png|jpe?g|gif|webp|zip|gz|tgz|bz2|xz|7z|pdf|woff2?|mp[34]|ogg)$/i;
const READ_PARALLELISM = 32;

/** Adds one skill's files to an archive being written. */
function addSkill(zip: ZipWriter, skill: ExportSkill): void {
  for (const file of skill.files) {
    const compress = file.bytes.length >= STORE_BELOW && !COMPRESSED.test(file.path);
    zip.add({ name: `${skill.folder}/${file.path}`, bytes: file.bytes, mode: file.mode ?? MODE_FILE, compress });
  }
}

/** One archive of skill folders; each file carries its Unix mode. */
export function buildSkillsZip(skills: readonly ExportSkill[]): Uint8Array {
  const zip = new ZipWriter(LEVEL);
  for (const skill of skills) addSkill(zip, skill);
  return zip.finish();
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
  const latest = [...history].reverse().find((entry) => entry.action === 'import' || entry.action === 'create' || entry.action === 'delete');
  if (!latest || latest.action !== 'import') return null;
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
  const paths = await engine.files.walk(dir);
  const read = await Promise.all(paths.map(async (path) => ({ path, bytes: await engine.files.read(path) })));
  const files: ExportFile[] = [];
  for (const { path, bytes } of read) {
    if (!bytes) continue;
    const relative = path.slice(dir.length + 1);
    files.push({ path: relative, bytes, mode: modes?.get(relative) ?? defaultMode(relative, bytes) });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A stored skill as export input; null when it has no files. `history`: its ledger entries, oldest first. */
export async function collectSkill(engine: SkillEngine, name: string, history?: readonly LedgerEntry[]): Promise<ExportSkill | null> {
  const entry = engine.catalog.findByName(name)[0];
  if (!entry) return null;
  const modes = importedModes(history ?? (await engine.ledger.list(name)));
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
  if (!sidecar) return;
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

/** Every live skill (not the archive), ready for one zip; progress per skill, cancel between batches. */
export async function collectAllSkills(engine: SkillEngine, options: LongTaskOptions = {}): Promise<ExportSkill[]> {
  const names = [...new Set(engine.catalog.entries().map((entry) => entry.name))].sort();
  const histories = await historiesByName(engine);
  const report = throttledProgress(options.onProgress);
  const collected: Array<ExportSkill | null> = [];
  for (let start = 0; start < names.length; start += READ_PARALLELISM) {
    throwIfCancelled(options.signal, 'The export');
    report({ phase: 'Reading skills', done: start, total: names.length, item: names[start] });
    const batch = names.slice(start, start + READ_PARALLELISM);
    collected.push(...(await Promise.all(batch.map((name) => collectSkill(engine, name, histories.get(name) ?? [])))));
  }
  report({ phase: 'Reading skills', done: names.length, total: names.length });
  return collected.filter((skill): skill is ExportSkill => skill !== null);
}

export interface ExportResult {
  zip: Uint8Array;
  /** The skills in the archive. */
  count: number;
  report: ExportReport;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Export all: reads every live skill, checks it, and builds one archive, reporting progress
 * in two phases (reading, zipping) and stopping with a CancelledError between skills when the
 * signal aborts (docs/architecture.md, "Long work").
 */
export async function exportAllSkills(engine: SkillEngine, options: LongTaskOptions = {}): Promise<ExportResult> {
  const skills = await collectAllSkills(engine, options);
  const report = throttledProgress(options.onProgress);
  const checked = skills.map((skill) => ({ name: skill.folder, problems: checkSkill(skill) }));
  const zip = new ZipWriter(LEVEL);
  let lastYield = performance.now();
  for (const [index, skill] of skills.entries()) {
    if (performance.now() - lastYield > 30) {
      // Let the progress bar paint and a cancel click arrive.
      report({ phase: 'Writing the archive', done: index, total: skills.length, item: skill.folder });
      await yieldToEventLoop();
      throwIfCancelled(options.signal, 'The export');
      lastYield = performance.now();
    }
    addSkill(zip, skill);
  }
  const archive = zip.finish();
  report({ phase: 'Writing the archive', done: skills.length, total: skills.length });
  return { zip: archive, count: skills.length, report: groupProblems(checked) };
}
