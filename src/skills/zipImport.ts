/**
 * Importing skills from a `.zip` / `.skill` archive (docs/skill-tools.md). `planImport` reads, loads and
 * scans everything and writes nothing: the plan is what the review dialog shows. `applyImport`
 * then writes each chosen skill as one journaled change with origin 'import'.
 */
import { decodeSkillText } from './frontmatter';
import { loadSkillLenient, type LenientLoadError, type LenientLoadResult, type LenientSkill } from './lenientSkill';
import { scanSkill, shouldAllowInstall, type InstallVerdict, type ScanResult, type Verdict } from './scanner';
import { MAX_NAME_LENGTH, MAX_SKILL_CONTENT_CHARS, VALID_NAME_RE } from './constants';
import { captureFiles, type PrepareInput, type SkillFiles } from './ledger';
import type { ChangeBatchItem } from './fileChanges';
import { SKILLS_ROOT } from './skillCatalog';
import { skillLockKey, type SkillEngine } from './skillEngine';
import { VERIFICATION_SIDECAR_FILE } from './zipExport';
import { throttledProgress, type LongTaskOptions } from '../storage/progress';
import type { InstalledSource } from './installedSource';
import { findSkillFolders, innermostAround, SUPPORT_FOLDERS } from './skillFolders';
import { DEFAULT_ZIP_LIMITS, isZip, readZip, type RefusedEntry, type ZipFile, type ZipLimits } from './zipArchive';

/** What importing a skill needs from the user: nothing, a confirmation, or an explicit override. */
export type ImportDecision = 'import' | 'confirm' | 'override';
export type CollisionChoice = 'skip' | 'replace' | 'keep-both';

export interface ImportCandidate {
  /** Stable key within the plan. */
  id: string;
  /** The skill's folder inside the archive ('' when SKILL.md is at the root). */
  archiveFolder: string;
  /** The directory name it will get under `skills/`. */
  name: string;
  description: string;
  /** Paths relative to the skill folder, SKILL.md included, bytes as in the archive. */
  files: ZipFile[];
  warnings: string[];
  scan: ScanResult;
  install: InstallVerdict;
  decision: ImportDecision;
  /** A skill with this name exists now. */
  collides: boolean;
  /**
   * What the archive's `evals/verification.json` says about the skill: a claim, shown as such
   * and never believed (the skill starts staged). null when there is none or it is unreadable.
   */
  claimed: ClaimedVerification | null;
  /** SKILL.md has no frontmatter: imported byte for byte, but out of the index until it has a description. */
  needsDescription?: boolean;
  /**
   * Folders of skills nested in this one (`child`, `skills/a`), relative to it. Their files are
   * among `files`: a nested skill stays in its parent's folder, a skill of its own where it
   * stands (docs/skill-tools.md, "Nested skills on import").
   */
  nestedSkills: string[];
}

/** The parts of a sidecar the import dialog shows ("claims: promoted by model X"). */
export interface ClaimedVerification {
  verdict: string;
  code: string | null;
  /** The model id the claim names, with its provider when given. */
  model: string | null;
  date: string | null;
  protocol: string | null;
}

export interface RefusedSkill {
  archiveFolder: string;
  reason: string;
}

export interface ImportPlan {
  archiveName: string;
  trusted: boolean;
  /** Archive-level refusal; when set there are no candidates. */
  error: string | null;
  skills: ImportCandidate[];
  refusedSkills: RefusedSkill[];
  refusedEntries: RefusedEntry[];
  ignored: string[];
  /** Files that belong to no skill. */
  strays: string[];
  inflatedBytes: number;
}

export interface PlanOptions {
  archiveName?: string;
  /** The user says the source is trusted: caution no longer needs a confirmation. */
  trusted?: boolean;
  /** Does a skill with this name exist? */
  exists?: (name: string) => boolean;
  limits?: ZipLimits;
  /** The folder name of a skill whose SKILL.md is at the root (default: the archive's name less its extension). */
  rootName?: string;
}

/** Files to plan from: a zip read (zipArchive.ts) or files fetched from a link (src/install/). */
export interface PlanSourceFiles {
  files: ZipFile[];
  refused: RefusedEntry[];
  ignored: string[];
  /** Archive-level refusal; the plan has no candidates when set. */
  error: string | null;
  inflatedBytes: number;
}



export function decisionFor(verdict: Verdict, trusted: boolean): ImportDecision {
  if (verdict === 'dangerous') return 'override';
  if (verdict === 'caution') return trusted ? 'import' : 'confirm';
  return 'import';
}

function baseName(archiveName: string): string {
  const last = archiveName.split(/[\\/]/).pop() ?? archiveName;
  return last.replace(/\.(zip|skill)$/i, '');
}

/** A directory name Knack accepts, from the first usable candidate, else a cleaned-up one. */
function directoryName(candidates: string[]): { name: string; cleaned: boolean } {
  for (const candidate of candidates) {
    if (candidate && VALID_NAME_RE.test(candidate) && candidate.length <= MAX_NAME_LENGTH) return { name: candidate, cleaned: false };
  }
  const source = candidates.find((c) => c) ?? 'imported-skill';
  const cleaned = source
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/-+$/, '');
  return { name: cleaned || 'imported-skill', cleaned: true };
}

const stringOr = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value : null);

/** Reads a verification sidecar leniently; a file that is not one is only a warning. */
export function readClaimedVerification(bytes: Uint8Array): ClaimedVerification | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const sidecar = parsed as Record<string, unknown>;
  const verdict = stringOr(sidecar.verdict);
  if (!verdict) return null;
  const model = sidecar.model as Record<string, unknown> | string | undefined;
  const modelId = typeof model === 'string' ? stringOr(model) : stringOr(model?.id);
  const provider = typeof model === 'object' && model ? stringOr(model.provider) : null;
  return {
    verdict,
    code: stringOr(sidecar.code),
    model: modelId && provider ? `${modelId} (${provider})` : modelId,
    date: stringOr(sidecar.date),
    protocol: stringOr(sidecar.protocol),
  };
}

/** "claims: promoted by model X", as the dialog and the ledger say it. */
export function describeClaim(claim: ClaimedVerification): string {
  return `claims: ${claim.verdict}${claim.model ? ` by model ${claim.model}` : ''}${claim.date ? ` on ${claim.date.slice(0, 10)}` : ''}`;
}

/**
 * Refused SKILL.md entries that would have made a skill of their own (a bad checksum, an
 * unsafe path): such a skill is refused as a whole with that reason instead of vanishing from
 * the plan. One per folder, and none inside a skill that was found anyway.
 */
function refusedSkillEntries(refused: RefusedEntry[], folders: string[]): Array<RefusedEntry & { folder: string }> {
  const out: Array<RefusedEntry & { folder: string }> = [];
  for (const entry of refused) {
    if (entry.path !== 'SKILL.md' && !entry.path.endsWith('/SKILL.md')) continue;
    const folder = entry.path.slice(0, Math.max(0, entry.path.length - 'SKILL.md'.length - 1));
    const outer = innermostAround(folder, folders);
    const inner = outer === null ? '' : folder.slice(outer === '' ? 0 : outer.length + 1);
    const inside = folders.includes(folder) || (outer !== null && inner.split('/').some((segment) => SUPPORT_FOLDERS.has(segment)));
    if (!inside && !out.some((other) => other.folder === folder)) out.push({ ...entry, folder });
  }
  return out;
}

/** Each warning once, in first-seen order; one said several times (the same path thrice) gets its count. */
export function collapseRepeats(warnings: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const warning of warnings) counts.set(warning, (counts.get(warning) ?? 0) + 1);
  return [...counts].map(([warning, count]) => (count > 1 ? `${warning} (${count} times)` : warning));
}

function scanCandidate(name: string, files: ZipFile[], trusted: boolean): { scan: ScanResult; install: InstallVerdict; decision: ImportDecision } {
  const scan = scanSkill({
    name,
    source: 'import',
    files: files.map((file) => ({ path: file.path, content: file.bytes, executable: file.executable })),
  });
  scan.trustLevel = trusted ? 'trusted' : 'community';
  return { scan, install: shouldAllowInstall(scan), decision: decisionFor(scan.verdict, trusted) };
}

/** What a SKILL.md without frontmatter needs before the agent can be offered it. */
export const NEEDS_DESCRIPTION_WARNING =
  'SKILL.md has no frontmatter, so it has no description: it is imported as it is, marked "needs a description", and stays out of the skill index until you add one (Edit)';

/**
 * A SKILL.md with no frontmatter at all (some public collections ship plain Markdown) is kept
 * rather than refused: its bytes are imported unchanged under the folder's name, and the skill
 * is marked as needing a description, a mark derived from the file itself (the catalogue entry
 * has an empty description), so it holds until the user adds one (docs/skill-tools.md).
 */
function loadWithoutFrontmatter(loaded: LenientLoadResult, folderName: string): (LenientSkill & { needsDescription?: boolean }) | LenientLoadError {
  if (loaded.ok || loaded.code !== 'no_frontmatter') return loaded;
  return { ok: true, name: folderName, description: '', frontmatter: {}, body: '', bodyOffset: 0, warnings: [NEEDS_DESCRIPTION_WARNING], repaired: false, needsDescription: true };
}

/** Reads, loads and scans an archive. Writes nothing. */
export function planImport(bytes: Uint8Array, options: PlanOptions = {}): ImportPlan {
  const archiveName = options.archiveName ?? 'skills.zip';
  if (!isZip(bytes)) return { ...emptyPlan(archiveName, options.trusted ?? false), error: `'${archiveName}' is not a zip archive (a .skill file is a zip too).` };
  return planFiles(readZip(bytes, options.limits ?? DEFAULT_ZIP_LIMITS), options);
}

function emptyPlan(archiveName: string, trusted: boolean): ImportPlan {
  return { archiveName, trusted, error: null, skills: [], refusedSkills: [], refusedEntries: [], ignored: [], strays: [], inflatedBytes: 0 };
}

/**
 * Loads and scans the skills in a list of files (a zip's, or files fetched from a link: the
 * same nesting rules, the same candidates, the same review). Writes nothing.
 */
export function planFiles(read: PlanSourceFiles, options: PlanOptions = {}): ImportPlan {
  const archiveName = options.archiveName ?? 'skills.zip';
  const trusted = options.trusted ?? false;
  const plan = emptyPlan(archiveName, trusted);
  plan.refusedEntries = read.refused;
  plan.ignored = read.ignored;
  plan.inflatedBytes = read.inflatedBytes;
  if (read.error) return { ...plan, error: read.error };

  const folders = findSkillFolders(read.files.map((file) => file.path));
  const refusedSkillFiles = refusedSkillEntries(read.refused, folders);
  if (folders.length === 0) {
    const first = refusedSkillFiles[0];
    return {
      ...plan,
      error: first
        ? `No usable SKILL.md in the archive: '${first.path}' was refused because ${first.reason}.`
        : 'No SKILL.md was found in the archive, so it holds no skill.',
    };
  }
  for (const entry of refusedSkillFiles) {
    plan.refusedSkills.push({ archiveFolder: entry.folder, reason: `its SKILL.md was refused: ${entry.reason}` });
  }
  const claimed = new Set<string>();
  const names = new Set<string>();
  // A nested skill stays a file tree of its parent, so the parent exports with every file it was
  // imported with; where it stands it is a skill of its own (the catalogue's rule), so it is not
  // installed a second time beside its parent, and nested names that repeat refuse nothing.
  const outermost = folders.filter((folder) => innermostAround(folder, folders) === null);
  outermost.forEach((folder, index) => {
    const prefix = folder === '' ? '' : `${folder}/`;
    const nestedSkills = folders.filter((other) => other !== folder && other.startsWith(prefix)).map((other) => other.slice(prefix.length));
    const files = read.files.filter((file) => file.path.startsWith(prefix)).map((file) => ({ ...file, path: file.path.slice(prefix.length) }));
    for (const file of files) claimed.add(prefix + file.path);
    const folderName = folder === '' ? (options.rootName ?? baseName(archiveName)) : folder.split('/').pop()!;
    const skillMd = files.find((file) => file.path === 'SKILL.md')!;
    const decoded = decodeSkillText(skillMd.bytes);
    const loaded = loadWithoutFrontmatter(loadSkillLenient(decoded.text, folderName), folderName);
    if (!loaded.ok) {
      plan.refusedSkills.push({ archiveFolder: folder, reason: loaded.message });
      return;
    }
    const warnings = [...loaded.warnings];
    if (decoded.invalidUtf8) warnings.unshift('SKILL.md is not valid UTF-8; it is kept byte for byte, but unreadable characters show as �');
    if (decoded.text.length > MAX_SKILL_CONTENT_CHARS) warnings.push(`SKILL.md is ${decoded.text.length} characters (Knack edits allow ${MAX_SKILL_CONTENT_CHARS})`);
    const dir = directoryName(folder === '' ? [loaded.name, folderName] : [folderName, loaded.name]);
    if (dir.cleaned) warnings.push(`'${folderName}' is not a usable folder name; the skill is stored as '${dir.name}'`);
    if (names.has(dir.name)) {
      plan.refusedSkills.push({ archiveFolder: folder, reason: `another skill in this archive is also named '${dir.name}'` });
      return;
    }
    names.add(dir.name);
    for (const refused of read.refused) {
      if (refused.path.startsWith(prefix)) warnings.push(`'${refused.path}' was not imported: ${refused.reason}`);
    }
    const sidecar = files.find((file) => file.path === VERIFICATION_SIDECAR_FILE);
    const claim = sidecar ? readClaimedVerification(sidecar.bytes) : null;
    if (sidecar && !claim) warnings.push(`'${VERIFICATION_SIDECAR_FILE}' is not a verification record; it is kept as a file`);
    if (claim) warnings.push(`The archive ${describeClaim(claim)}. Knack does not take its word: the skill starts staged until verified here.`);
    const shown = nestedSkills.length > 5 ? `${nestedSkills.slice(0, 5).join(', ')}…` : nestedSkills.join(', ');
    if (shown) warnings.push(`Holds ${nestedSkills.length} nested skill${nestedSkills.length === 1 ? '' : 's'} (${shown}): they stay in this skill's folder, byte for byte, each a skill of its own there`);
    plan.skills.push({
      id: `${index}:${folder}`,
      archiveFolder: folder,
      name: dir.name,
      description: loaded.description,
      files,
      warnings: collapseRepeats(warnings),
      ...scanCandidate(dir.name, files, trusted),
      collides: options.exists?.(dir.name) ?? false,
      claimed: claim,
      ...(loaded.needsDescription ? { needsDescription: true } : {}),
      nestedSkills,
    });
  });
  plan.strays = read.files.map((file) => file.path).filter((path) => !claimed.has(path));
  return plan;
}

/** The same plan with the source marked trusted or not (the scan itself does not change). */
export function retrustPlan(plan: ImportPlan, trusted: boolean): ImportPlan {
  return {
    ...plan,
    trusted,
    skills: plan.skills.map((skill) => {
      const scan = { ...skill.scan, trustLevel: trusted ? ('trusted' as const) : ('community' as const) };
      return { ...skill, scan, install: shouldAllowInstall(scan), decision: decisionFor(scan.verdict, trusted) };
    }),
  };
}

export interface ImportChoice {
  include: boolean;
  collision?: CollisionChoice;
  /** The user confirmed a caution verdict. */
  confirmed?: boolean;
  /** The user overrode a dangerous verdict with the findings in view. */
  override?: boolean;
}

export type ImportOutcome =
  | { id: string; status: 'imported'; name: string; dir: string; replaced: boolean; claimed: ClaimedVerification | null }
  | { id: string; status: 'skipped'; name: string; reason: string };

/** Whether the user's ticks satisfy what the verdict requires. */
export function choiceAllows(skill: ImportCandidate, choice: ImportChoice | undefined): string | null {
  if (!choice?.include) return 'not selected';
  if (skill.decision === 'confirm' && !choice.confirmed) return `the ${skill.scan.verdict} verdict was not confirmed`;
  if (skill.decision === 'override' && !choice.override) return 'the dangerous verdict was not overridden';
  return null;
}

/** Folder names directly under `skills/`, read once per import instead of once per skill. */
async function topLevelFolders(engine: SkillEngine): Promise<Set<string>> {
  return new Set((await engine.files.list(SKILLS_ROOT)).filter((entry) => entry.kind === 'directory').map((entry) => entry.name));
}

function freeName(engine: SkillEngine, name: string, folders: Set<string>): string {
  for (let n = 2; ; n++) {
    const candidate = `${name}-${n}`;
    if (engine.catalog.findByName(candidate).length === 0 && !folders.has(candidate)) return candidate;
  }
}

/** One chosen skill of a batch, its name and folder settled. */
interface PlacedSkill {
  skill: ImportCandidate;
  choice: ImportChoice;
  name: string;
  dir: string;
  replacing: boolean;
}

/**
 * Settles a skill's name and folder (synchronously, so a batch's names cannot clash), or says
 * why it is skipped. `folders` gains every folder handed out.
 */
function placeSkill(engine: SkillEngine, skill: ImportCandidate, choice: ImportChoice, folders: Set<string>): PlacedSkill | ImportOutcome {
  let name = skill.name;
  const existing = engine.catalog.findByName(name)[0];
  const taken = existing !== undefined || folders.has(name);
  const collision = choice.collision ?? 'skip';
  if (taken && collision === 'skip') return { id: skill.id, status: 'skipped', name, reason: `a skill named '${name}' exists` };
  if (taken && collision === 'keep-both') name = freeName(engine, name, folders);
  const replacing = taken && collision === 'replace';
  const dir = replacing && existing ? existing.dir : `${SKILLS_ROOT}/${name}`;
  if (dir === `${SKILLS_ROOT}/${name}`) folders.add(name);
  return { skill, choice, name, dir, replacing };
}

/** The catalogue names (folder names) of a candidate's nested skills that no skill has yet. */
function newNestedNames(engine: SkillEngine, name: string, skill: ImportCandidate): string[] {
  return [...new Set(skill.nestedSkills.map((nested) => nested.split('/').pop()!))].filter((nested) => nested !== name && engine.catalog.findByName(nested).length === 0);
}

/** Holds every lock in `keys` (sorted, as every multi-skill writer takes them) around `work`. */
async function withLocks<T>(engine: SkillEngine, keys: readonly string[], work: () => Promise<T>): Promise<T> {
  const [first, ...rest] = keys;
  if (first === undefined) return work();
  return engine.locks.withLock(first, () => withLocks(engine, rest, work));
}

/** The import's ledger input for one skill: evidence of where it came from and what was checked. */
function ledgerInput(plan: ImportPlan, placed: PlacedSkill, before: SkillFiles, after: SkillFiles, source: InstalledSource | undefined): PrepareInput {
  const { skill, choice, name, replacing } = placed;
  const executable = skill.files.filter((file) => file.executable).map((file) => file.path);
  // Each file's own mode, kept for export (zipExport.ts `importedModes`); an archive that
  // records none gives 0o644 for all, so export does not guess from a `#!`.
  const modes = Object.fromEntries(skill.files.map((file) => [file.path, file.mode ?? (file.executable ? 0o755 : 0o644)]));
  return {
    actor: 'import',
    action: 'import',
    skill: name,
    before,
    after,
    evidence: {
      archive: plan.archiveName,
      archive_folder: skill.archiveFolder,
      trusted_source: plan.trusted,
      verdict: skill.scan.verdict,
      findings: skill.scan.findings.length,
      confirmed: choice.confirmed === true,
      override: choice.override === true,
      replaced: replacing,
      renamed_from: name !== skill.name ? skill.name : undefined,
      executable,
      modes,
      // Recorded as a claim only; the usage record starts staged whatever it says.
      claimed_verification: skill.claimed ?? undefined,
      // Installed from a link (src/install/): where from, at which revision.
      installed_from: source ? { kind: source.kind, url: source.url, path: source.path, revision: source.revision } : undefined,
    },
  };
}

/**
 * Writes a batch of skills under all their locks as ONE all-or-nothing change (one journal
 * intent where the committer has batches: docs/storage.md, "Batched import"). Every skill still
 * gets its own ledger entry, usage update, catalogue entry and change notice.
 */
async function importBatch(engine: SkillEngine, plan: ImportPlan, batch: readonly PlacedSkill[], sources: Readonly<Record<string, InstalledSource>>): Promise<ImportOutcome[]> {
  const keys = [...new Set(batch.map((placed) => skillLockKey(placed.name)))].sort();
  return withLocks(engine, keys, async () => {
    const befores = await Promise.all(batch.map((placed): Promise<SkillFiles> => (placed.replacing ? captureFiles(engine.files, placed.dir) : Promise.resolve(new Map()))));
    const afters = batch.map((placed): SkillFiles => new Map(placed.skill.files.map((file) => [`${placed.dir}/${file.path}`, file.bytes])));
    const entries = await engine.ledger.prepareMany(batch.map((placed, i) => ledgerInput(plan, placed, befores[i]!, afters[i]!, sources[placed.skill.id])));
    const items: ChangeBatchItem[] = batch.map(({ name, replacing, skill }, i) => ({
      // A replaced file that the new version also has is overwritten, not deleted afterwards.
      changes: { writes: [...afters[i]!.entries()], deletes: [...befores[i]!.keys()].filter((path) => !afters[i]!.has(path)) },
      effects: {
        ledger: entries[i],
        // Nested skills start staged and imported too, under names no other skill has yet.
        // A link install's source record is the installed skill's own, not its nested skills'.
        usage: [...(replacing ? [{ op: 'forget' as const, name }] : []), ...[name, ...newNestedNames(engine, name, skill)].map((created) => ({ op: 'created' as const, name: created, source: 'import' as const, ...(created === name && sources[skill.id] ? { installedFrom: sources[skill.id] } : {}) }))],
      },
    }));
    if (engine.committer.commitMany) await engine.committer.commitMany(`import ${batch.length === 1 ? batch[0]!.name : `${batch.length} skills`}`, items);
    else for (const [i, item] of items.entries()) await engine.committer.commit(`import ${batch[i]!.name}`, item.changes, item.effects);
    // The nested skills inside a skill are catalogue entries of their own, as a rescan finds them.
    const text = (dir: string) => decodeSkillText(afters.find((after) => after.has(`${dir}/SKILL.md`))!.get(`${dir}/SKILL.md`)!).text;
    await engine.catalog.upsertMany(batch.flatMap(({ dir, skill }) => [dir, ...skill.nestedSkills.map((nested) => `${dir}/${nested}`)]).map((dir) => ({ dir, text: text(dir) })));
    for (const { name, dir } of batch) engine.onChange?.({ skill: name, action: 'import', dir });
    return batch.map(({ skill, name, dir, replacing }): ImportOutcome => ({ id: skill.id, status: 'imported', name, dir, replaced: replacing, claimed: skill.claimed ?? null }));
  });
}

/**
 * Skills per batch: one journal intent, one ledger, usage and snapshot transaction each. Large
 * enough that the fixed costs of a change are paid once per batch, small enough that a cancel
 * comes soon and one intent record stays small (docs/skill-tools.md, "At scale").
 */
export const IMPORT_BATCH_SIZE = 24;
/** Batches written side by side: their OPFS and IndexedDB round trips overlap. */
const BATCH_PARALLELISM = 2;

/**
 * Writes the chosen skills with an 'import' ledger entry each and usage `source: 'import'`
 * (verification 'staged'), in batches of 1, 2, 4… up to IMPORT_BATCH_SIZE skills, each batch all-or-nothing
 * (supporting files first, SKILL.md last within each skill). The verdict rules are enforced
 * here too, not only in the dialog. Progress is reported per skill; a cancel takes effect
 * between batches, so every skill is either wholly imported or untouched, and the skills not
 * reached come back as skipped with reason "cancelled" (docs/architecture.md, "Long work").
 * Outcomes are in plan order. "Keep both" renames pick a free name, so they are placed after
 * every other skill has its folder.
 */
export async function applyImport(
  engine: SkillEngine,
  plan: ImportPlan,
  choices: Record<string, ImportChoice>,
  options: LongTaskOptions & {
    /** Per candidate id, where it was installed from (a link install): written to its usage record as `installed_from`. */
    installedFrom?: Readonly<Record<string, InstalledSource>>;
  } = {},
): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = new Array(plan.skills.length);
  const report = throttledProgress(options.onProgress);
  const total = plan.skills.length;
  let done = 0;
  const folders = await topLevelFolders(engine);
  const renaming = (index: number) => choices[plan.skills[index].id]?.collision === 'keep-both';
  const indexes = plan.skills.map((_, index) => index);
  const order = [...indexes.filter((index) => !renaming(index)), ...indexes.filter(renaming)];
  const placedAt = new Map<PlacedSkill, number>();
  const pending: PlacedSkill[] = [];
  // Refusals and skips are settled at once; the rest wait in `pending` for their batch.
  for (const index of order) {
    const skill = plan.skills[index];
    const refusal = choiceAllows(skill, choices[skill.id]);
    const placed = refusal ? ({ id: skill.id, status: 'skipped', name: skill.name, reason: refusal } as const) : placeSkill(engine, skill, choices[skill.id]!, folders);
    if ('status' in placed) {
      outcomes[index] = placed;
      done++;
    } else {
      placedAt.set(placed, index);
      pending.push(placed);
    }
  }
  let next = 0;
  let size = 1;
  let failed = false;
  const worker = async () => {
    // A failed batch stops the others from starting new ones; the error is the import's.
    while (next < pending.length && !failed && !options.signal?.aborted) {
      // The first batches are small, so the first skills (and a cancel) come quickly.
      const batch = pending.slice(next, next + size);
      next += batch.length;
      size = Math.min(size * 2, IMPORT_BATCH_SIZE);
      report({ phase: 'Importing skills', done, total, item: batch[0]!.name });
      try {
        const written = await importBatch(engine, plan, batch, options.installedFrom ?? {});
        written.forEach((outcome, i) => (outcomes[placedAt.get(batch[i]!)!] = outcome));
      } catch (error) {
        failed = true;
        throw error;
      }
      for (const placed of batch) report({ phase: 'Importing skills', done: ++done, total, item: placed.name });
    }
  };
  await Promise.all(Array.from({ length: BATCH_PARALLELISM }, worker));
  for (const placed of pending.slice(next)) {
    outcomes[placedAt.get(placed)!] = { id: placed.skill.id, status: 'skipped', name: placed.skill.name, reason: CANCELLED_REASON };
  }
  report({ phase: 'Importing skills', done: total, total });
  return outcomes;
}

/** The reason given for skills a cancelled import did not reach. */
export const CANCELLED_REASON = 'cancelled before this skill was imported';
