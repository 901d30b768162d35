/**
 * Check for updates and Update, for skills installed from a link (docs/install.md, "Updates").
 *
 * Three values decide everything (installedSource.ts): the upstream digest the source serves now,
 * the hash of what we installed (`installedHash`) and the skill's current hash. Current ≠
 * installed means "edited here"; upstream ≠ installed digest means "update available". Checking
 * asks each source once (one `readUpstream` per `sourceKey`), never once per skill.
 *
 * Updating an unedited skill replaces its files; an edited one is merged three ways per file
 * (base = the upstream files as installed, mine = now, theirs = upstream: threeWayMerge.ts), and
 * conflicts go back to the user. Either way the result is scanned like an install, written as
 * one journaled change with a ledger entry (action `update`, actor `import`) that a rollback
 * undoes in one step, and the source record moves to the new revision.
 */
import { skillContentHash, type InstalledSource } from '../skills/installedSource';
import { captureFiles, type FileVersion, type LedgerEntry, type SkillFiles } from '../skills/ledger';
import { refreshCatalogFor } from '../skills/rollback';
import { scanSkill, type ScanResult } from '../skills/scanner';
import { commitSkillChange, type LifecycleFailure, type SkillChange } from '../skills/skillLifecycle';
import type { SkillEngine } from '../skills/skillEngine';
import { mergeSkillFiles, resolveSkillMerge, sameBytes, sameFileSet, type ConflictChoice, type SkillMerge } from '../skills/threeWayMerge';
import { isJunkPath, unsafePathReason } from '../skills/zipArchive';
import { importedModes } from '../skills/zipExport';
import { decisionFor, type ImportDecision } from '../skills/zipImport';
import type { ReadUpstream, UpstreamSkill } from './upstream';

export type UpdateStatus = 'up to date' | 'update available' | 'edited here' | 'edited here, update available';

/** The words the Skills view shows (SPEC §19). */
export function statusWords(edited: boolean, updateAvailable: boolean): UpdateStatus {
  if (edited) return updateAvailable ? 'edited here, update available' : 'edited here';
  return updateAvailable ? 'update available' : 'up to date';
}

export interface InstalledSkill {
  name: string;
  dir: string;
  source: InstalledSource;
}

export interface SkillUpdateState extends InstalledSkill {
  edited: boolean;
  /** The skill as its source serves it now; null when the check could not reach it. */
  upstream: UpstreamSkill | null;
  /** Null when the source could not be read or no longer has the skill (`problem` says which). */
  status: UpdateStatus | null;
  problem: string | null;
}

export interface UpdateCheck {
  skills: SkillUpdateState[];
  /** Distinct sources asked: one `readUpstream` call each. */
  requests: number;
}

/** Skills with a source record that are in the library now (archived ones are not checked). */
export async function installedSkills(engine: SkillEngine): Promise<InstalledSkill[]> {
  const skills: InstalledSkill[] = [];
  for (const record of await engine.usage.all()) {
    if (!record.installed_from || record.state === 'archived') continue;
    const entry = engine.catalog.findByName(record.name)[0];
    if (entry) skills.push({ name: record.name, dir: entry.dir, source: record.installed_from });
  }
  return skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A skill's files relative to its folder. */
export async function readSkillFolder(engine: SkillEngine, dir: string): Promise<SkillFiles> {
  const relative: SkillFiles = new Map();
  for (const [path, bytes] of await captureFiles(engine.files, dir)) relative.set(path.slice(dir.length + 1), bytes);
  return relative;
}

/** The modes the last import or update recorded for the skill (export uses the same). */
function recordedModes(history: readonly LedgerEntry[]): Map<string, number> {
  return importedModes(history) ?? new Map();
}

/** Whether the skill's files differ from what was installed (or last updated). */
export async function isEditedHere(engine: SkillEngine, skill: InstalledSkill): Promise<boolean> {
  const [files, history] = await Promise.all([readSkillFolder(engine, skill.dir), engine.ledger.list(skill.name)]);
  return (await skillContentHash(files, recordedModes(history))) !== skill.source.installedHash;
}

async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Every installed skill's status: one `readUpstream` per source (a GitHub repository at a ref,
 * one site index, one ClawHub slug, one raw URL), the local hashes alongside. A source that
 * cannot be read marks its skills with the reason; the others are still checked.
 */
export async function checkForUpdates(
  engine: SkillEngine,
  readUpstream: ReadUpstream,
  options: { signal?: AbortSignal; skills?: InstalledSkill[]; concurrency?: number } = {},
): Promise<UpdateCheck> {
  const skills = options.skills ?? (await installedSkills(engine));
  const bySource = new Map<string, InstalledSkill[]>();
  for (const skill of skills) {
    const group = bySource.get(skill.source.sourceKey) ?? [];
    group.push(skill);
    bySource.set(skill.source.sourceKey, group);
  }
  const limit = options.concurrency ?? 4;
  const groups = await mapLimit([...bySource.values()], limit, async (group): Promise<SkillUpdateState[]> => {
    const listing = await readUpstream(group[0]!.source, options.signal).then(
      (value) => ({ value, error: null }),
      (error: unknown) => ({ value: null, error: error instanceof Error ? error.message : String(error) }),
    );
    options.signal?.throwIfAborted();
    return mapLimit(group, limit, async (skill): Promise<SkillUpdateState> => {
      const edited = await isEditedHere(engine, skill);
      if (!listing.value) {
        return { ...skill, edited, upstream: null, status: null, problem: `Could not check ${skill.source.url}: ${listing.error}` };
      }
      const upstream = listing.value.skills.get(skill.source.path) ?? null;
      if (!upstream) {
        return { ...skill, edited, upstream: null, status: null, problem: `${skill.source.url} no longer has this skill; it stays as it is here.` };
      }
      const status = statusWords(edited, upstream.upstreamDigest !== skill.source.upstreamDigest);
      return { ...skill, edited, upstream, status, problem: null };
    });
  });
  return { skills: groups.flat(), requests: bySource.size };
}

/** What an update will do, computed without writing: the UI shows conflicts from here. */
export interface PreparedUpdate {
  name: string;
  dir: string;
  source: InstalledSource;
  revision: string;
  upstreamDigest: string;
  /** The skill's files when the update was prepared (relative paths); the commit checks they did not change. */
  mine: SkillFiles;
  mineModes: Map<string, number>;
  theirs: SkillFiles;
  theirsModes: Map<string, number>;
  /** `skillContentHash` of the upstream files: the new `installedHash`. */
  theirsHash: string;
  /** `replace`: not edited here, the upstream files replace the skill. `merge`: edited here. */
  kind: 'replace' | 'merge';
  /** For `merge`: the per-file merge; conflicts need choices before `commitUpdate`. */
  merge: SkillMerge | null;
  /** For `merge`: whether the installed files were found (else the merge ran against an empty base). */
  baseKnown: boolean;
}

export type UpdateFailure = LifecycleFailure;

/**
 * The upstream files of the install or last update, the base of a merge. An update keeps them in
 * its ledger entry (`upstream_files`, blobs in the ledger); an install is its import entry when
 * that entry wrote the whole skill. Checked against `installedHash`; null when nothing matches.
 */
export async function installedBase(engine: SkillEngine, history: readonly LedgerEntry[], source: InstalledSource): Promise<SkillFiles | null> {
  for (const entry of [...history].reverse()) {
    if (entry.action === 'update' && entry.evidence.installed_hash === source.installedHash && Array.isArray(entry.evidence.upstream_files)) {
      return readVersions(engine, entry.evidence.upstream_files as FileVersion[], '');
    }
    if (entry.action !== 'import') continue;
    // A first install from a link: the import wrote every file (its `before` side is empty).
    // Its own SKILL.md is the shortest one (nested skills stay inside it).
    const skillMd = entry.after.map((version) => version.path).filter((path) => path.endsWith('/SKILL.md')).sort((a, b) => a.length - b.length)[0];
    if (!skillMd) return null;
    const files = await readVersions(engine, entry.after, skillMd.slice(0, -'SKILL.md'.length));
    if (files && (await skillContentHash(files, recordedModes([entry]))) === source.installedHash) return files;
    return null;
  }
  return null;
}

async function readVersions(engine: SkillEngine, versions: readonly FileVersion[], prefix: string): Promise<SkillFiles | null> {
  const files: SkillFiles = new Map();
  for (const version of versions) {
    const bytes = await engine.ledger.blob(version.hash);
    if (!bytes) return null;
    files.set(version.path.slice(prefix.length), bytes);
  }
  return files;
}

/**
 * The upstream files as an update may write them, by the rules of a zip import
 * (skills/zipArchive.ts): an archiver's junk (__MACOSX/, ._*, .DS_Store, __pycache__/, *.pyc) is
 * dropped, and a path that could leave the skill's folder refuses the whole update, so a source
 * never writes more than an install from it would have (docs/install.md, "Updates").
 */
export function cleanFetched(fetched: { files: Map<string, Uint8Array>; modes: Map<string, number> }): { files: Map<string, Uint8Array>; modes: Map<string, number> } | { unsafe: { path: string; reason: string } } {
  const files = new Map<string, Uint8Array>();
  const modes = new Map<string, number>();
  for (const [path, bytes] of fetched.files) {
    const reason = unsafePathReason(path) ?? (path.split('/').some((part) => part === '' || part === '.') ? 'path has an empty or "." segment' : null);
    if (reason) return { unsafe: { path, reason } };
    if (isJunkPath(path)) continue;
    files.set(path, bytes);
    const mode = fetched.modes.get(path);
    if (mode !== undefined) modes.set(path, mode);
  }
  return { files, modes };
}

/** Fetches the upstream files and decides between replace and merge. Writes nothing. */
export async function prepareUpdate(engine: SkillEngine, name: string, upstream: UpstreamSkill, signal?: AbortSignal): Promise<PreparedUpdate | UpdateFailure> {
  const record = await engine.usage.find(name);
  const source = record?.installed_from;
  if (!source) return { success: false, error: `'${name}' was not installed from a link, so it has no source to update from.` };
  const dir = engine.catalog.findByName(name)[0]?.dir;
  if (!dir) return { success: false, error: `Skill '${name}' not found; check for updates again.` };
  const cleaned = cleanFetched(await upstream.fetchFiles(signal));
  if ('unsafe' in cleaned) {
    return { success: false, error: `${source.url} served '${name}' with a file the library cannot hold ('${cleaned.unsafe.path}': ${cleaned.unsafe.reason}); nothing was changed. Ask the source to fix it, or keep this version.` };
  }
  const fetched = cleaned;
  if (!fetched.files.has('SKILL.md')) return { success: false, error: `${source.url} served '${name}' without a SKILL.md; nothing was changed.` };
  const [mine, history] = await Promise.all([readSkillFolder(engine, dir), engine.ledger.list(name)]);
  const mineModes = recordedModes(history);
  const [mineHash, theirsHash] = await Promise.all([skillContentHash(mine, mineModes), skillContentHash(fetched.files, fetched.modes)]);
  const common = { name, dir, source, revision: upstream.revision, upstreamDigest: upstream.upstreamDigest, mine, mineModes, theirs: fetched.files, theirsModes: fetched.modes, theirsHash };
  if (mineHash === source.installedHash) return { ...common, kind: 'replace', merge: null, baseKnown: true };
  const base = await installedBase(engine, history, source);
  return { ...common, kind: 'merge', merge: mergeSkillFiles(base ?? new Map(), mine, fetched.files), baseKnown: base !== null };
}

/** The files an update writes, once every conflict has a choice (throws naming the undecided ones). */
export function updatedFiles(prepared: PreparedUpdate, choices: ReadonlyMap<string, ConflictChoice> = new Map()): SkillFiles {
  return prepared.kind === 'replace' ? new Map(prepared.theirs) : resolveSkillMerge(prepared.merge!, choices);
}

/** The user's consent for a scan verdict, as in the import review. */
export interface UpdateConsent {
  /** A `caution` verdict confirmed. */
  confirmed?: boolean;
  /** A `dangerous` verdict overridden with the findings in view. */
  override?: boolean;
}

export type UpdateOutcome =
  | { success: true; entry: LedgerEntry; source: InstalledSource; merged: boolean }
  | { success: false; error: string; needs?: undefined }
  /** The scan asks for consent: nothing was written. */
  | { success: false; error: string; needs: Exclude<ImportDecision, 'import'>; scan: ScanResult };

/** The scan of the files an update would write, as an install from an untrusted source is scanned. */
export function scanUpdate(prepared: PreparedUpdate, files: SkillFiles, modes: ReadonlyMap<string, number>): { scan: ScanResult; decision: ImportDecision } {
  const scan = scanSkill({
    name: prepared.name,
    source: prepared.source.url,
    files: [...files].map(([path, content]) => ({ path, content, executable: ((modes.get(path) ?? 0o644) & 0o111) !== 0 })),
  });
  scan.trustLevel = 'community';
  return { scan, decision: decisionFor(scan.verdict, false) };
}

function finalModes(prepared: PreparedUpdate, files: SkillFiles): Map<string, number> {
  const modes = new Map<string, number>();
  for (const path of files.keys()) modes.set(path, prepared.theirsModes.get(path) ?? prepared.mineModes.get(path) ?? 0o644);
  return modes;
}

const absolute = (dir: string, files: SkillFiles): SkillFiles => new Map([...files].map(([path, bytes]) => [`${dir}/${path}`, bytes]));

/**
 * Writes a prepared update: scan, then one journaled change under the skill's lock with its
 * ledger entry and the new source record. Refuses, writing nothing, when a conflict is undecided,
 * the scan needs consent not given, or the skill changed since it was prepared.
 */
export async function commitUpdate(
  engine: SkillEngine,
  prepared: PreparedUpdate,
  choices: ReadonlyMap<string, ConflictChoice> = new Map(),
  consent: UpdateConsent = {},
): Promise<UpdateOutcome> {
  let files: SkillFiles;
  try {
    files = updatedFiles(prepared, choices);
  } catch (error) {
    return { success: false, error: (error as Error).message };
  }
  if (!files.has('SKILL.md')) return { success: false, error: `The merge would leave '${prepared.name}' without a SKILL.md; keep it on one side.` };
  const modes = finalModes(prepared, files);
  const { scan, decision } = scanUpdate(prepared, files, modes);
  if (decision === 'confirm' && !consent.confirmed) {
    return { success: false, needs: 'confirm', scan, error: `The update of '${prepared.name}' has a caution verdict (${scan.findings.length} findings): confirm to update.` };
  }
  if (decision === 'override' && !consent.override) {
    return { success: false, needs: 'override', scan, error: `The update of '${prepared.name}' is dangerous (${scan.findings.length} findings): it is not applied without an override.` };
  }
  const installedAt = engine.clock().toISOString();
  const source: InstalledSource = { ...prepared.source, revision: prepared.revision, upstreamDigest: prepared.upstreamDigest, installedHash: prepared.theirsHash, installedAt };
  const committed = await commitSkillChange(engine, prepared.name, async (): Promise<SkillChange<null> | LifecycleFailure> => {
    const dir = engine.catalog.findByName(prepared.name)[0]?.dir;
    if (dir !== prepared.dir) return { success: false, error: `'${prepared.name}' moved since the update was prepared; check for updates again.` };
    const current = await readSkillFolder(engine, dir);
    if (!sameFileSet(current, prepared.mine)) return { success: false, error: `'${prepared.name}' changed since the update was prepared; nothing was written. Update again.` };
    // The upstream files are the base of the next merge (installedBase above).
    const upstreamFiles = await engine.ledger.storeBlobs(prepared.theirs);
    const before = absolute(dir, current);
    const after = absolute(dir, files);
    return {
      skill: prepared.name,
      action: 'update',
      dir,
      files: {
        actor: 'import',
        label: `update ${prepared.name}`,
        before,
        after,
        changes: {
          writes: [...after].filter(([path, bytes]) => !sameBytes(before.get(path) ?? null, bytes)),
          deletes: [...before.keys()].filter((path) => !after.has(path)),
        },
        evidence: {
          source_url: prepared.source.url,
          revision_from: prepared.source.revision,
          revision_to: prepared.revision,
          upstream_digest: prepared.upstreamDigest,
          merged: prepared.kind === 'merge',
          base_known: prepared.baseKnown,
          conflicts: prepared.merge?.conflicts.length ?? 0,
          verdict: scan.verdict,
          findings: scan.findings.length,
          confirmed: consent.confirmed === true,
          override: consent.override === true,
          modes: Object.fromEntries(modes),
          installed_hash: prepared.theirsHash,
          upstream_files: upstreamFiles,
          installed_from_before: prepared.source,
          installed_from_after: source,
        },
      },
      usage: [{ op: 'setInstalledFrom', name: prepared.name, installedFrom: source, staleVerdict: true }],
      settle: () => refreshCatalogFor(engine, [...before.keys(), ...after.keys()], [dir]),
      result: null,
    };
  });
  if (!committed.success) return { success: false, error: committed.error };
  return { success: true, entry: committed.entry!, source, merged: prepared.kind === 'merge' };
}
