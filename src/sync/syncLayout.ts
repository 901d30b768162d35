/**
 * The layout of a synced library (docs/sync.md, "Layout"): Export's layout — one folder per
 * skill at the top, named by the skill, its files byte-identical — plus one `.knack/` folder of
 * Knack's own records that other agents ignore. Everything else in the place (a README, another
 * tool's folders) is left alone. Pure functions; no I/O.
 */
import type { InstalledSource } from '../skills/installedSource';
import type { Verification } from '../skills/modelVerdicts';
import type { RemoteEntry } from './transport';

export const KNACK_FOLDER = '.knack';
export const RECORD_FORMAT = 'knack-sync-skill' as const;

/** `.knack/skills/<name>.json`: a skill's records that travel with it. */
export const recordPath = (name: string) => `${KNACK_FOLDER}/skills/${name}.json`;

/** A verdict as it travels: the model, the word, and the content hash it was measured on. */
export interface SyncedVerdict {
  model: string;
  verification: Verification;
  /** `skillContentHash` of the skill's files when the verdict was measured. */
  contentHash: string;
}

/** What `.knack/skills/<name>.json` holds. */
export interface KnackSkillRecord {
  format: typeof RECORD_FORMAT;
  version: 1;
  installed_from: InstalledSource | null;
  verdicts: SyncedVerdict[];
  /** File modes, only for places that cannot keep them (a folder); git keeps its own. */
  modes?: Record<string, number>;
}

/** A skill's folder name as a place may hold it: one plain segment, never hidden. */
export function isSkillFolderName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name) && !name.includes('..');
}

/**
 * A path inside a skill's folder that may be written into the library: relative, no `.` or
 * `..` segments, no backslashes, drive letters or control characters (docs/sync.md, "Safety").
 */
export function isSafeRelativePath(path: string): boolean {
  if (path === '' || path.length > 512 || path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path)) return false;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export interface RemoteLayout {
  /** Skill name → its files (paths relative to the skill's folder). */
  skills: Map<string, Map<string, RemoteEntry>>;
  /** Skill name → its `.knack` record entry. */
  records: Map<string, RemoteEntry>;
  /** Paths that are not read (not a skill, unsafe, or another tool's). */
  ignored: string[];
}

/** Groups a remote listing into skills: a top-level folder is a skill when it holds SKILL.md. */
export function readLayout(entries: ReadonlyMap<string, RemoteEntry>): RemoteLayout {
  const byFolder = new Map<string, Map<string, RemoteEntry>>();
  const records = new Map<string, RemoteEntry>();
  const ignored: string[] = [];
  for (const [path, entry] of entries) {
    const slash = path.indexOf('/');
    const top = slash < 0 ? '' : path.slice(0, slash);
    const rest = path.slice(slash + 1);
    if (top === KNACK_FOLDER) {
      const match = /^skills\/(.+)\.json$/.exec(rest);
      if (match && isSkillFolderName(match[1]!)) records.set(match[1]!, entry);
      continue;
    }
    if (!top || !isSkillFolderName(top) || !isSafeRelativePath(rest)) {
      ignored.push(path);
      continue;
    }
    if (!byFolder.has(top)) byFolder.set(top, new Map());
    byFolder.get(top)!.set(rest, entry);
  }
  const skills = new Map<string, Map<string, RemoteEntry>>();
  for (const [name, files] of byFolder) {
    if (files.has('SKILL.md')) skills.set(name, files);
    else ignored.push(...[...files.keys()].map((path) => `${name}/${path}`));
  }
  return { skills, records, ignored };
}

/** A record from its bytes; null when it is not one of ours or unreadable. */
export function parseRecord(bytes: Uint8Array): KnackSkillRecord | null {
  try {
    const value = JSON.parse(new TextDecoder().decode(bytes)) as Partial<KnackSkillRecord>;
    if (value.format !== RECORD_FORMAT || value.version !== 1) return null;
    const verdicts = Array.isArray(value.verdicts)
      ? value.verdicts.filter((v): v is SyncedVerdict => typeof v?.model === 'string' && typeof v.contentHash === 'string' && ['staged', 'promoted', 'rejected', 'unmeasured'].includes(v.verification as string))
      : [];
    const modes: Record<string, number> = {};
    for (const [path, mode] of Object.entries(value.modes ?? {})) if (mode === 0o755 || mode === 0o644) modes[path] = mode;
    return { format: RECORD_FORMAT, version: 1, installed_from: value.installed_from ?? null, verdicts, ...(value.modes ? { modes } : {}) };
  } catch {
    return null;
  }
}

/** A record's bytes: stable key order, so an unchanged record is byte-identical. */
export function encodeRecord(record: KnackSkillRecord): Uint8Array {
  const ordered = {
    format: record.format,
    version: record.version,
    installed_from: record.installed_from,
    verdicts: [...record.verdicts].sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0)),
    ...(record.modes ? { modes: Object.fromEntries(Object.entries(record.modes).sort(([a], [b]) => (a < b ? -1 : 1))) } : {}),
  };
  return new TextEncoder().encode(`${JSON.stringify(ordered, null, 2)}\n`);
}
