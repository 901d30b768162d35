/**
 * The restore preview (docs/storage.md, "Backup and restore"): for each kind of thing in a backup
 * — skills, chat sessions, memory files, other files, records — what is new to this profile, what
 * it already has unchanged, and what collides with something different. Reads the target, writes
 * nothing; the user then picks skip / replace / keep both for all collisions and per skill.
 */
import type { FileStore } from '../storage/fileStore';
import { listProfileFiles } from './backup';
import type { OpenedBackup } from './backupRead';
import { encodeRecordValue } from './backupManifest';
import { extractSecrets } from './backupCrypto';
import type { BackupTable, ProfileTables } from './backupTables';

export type CollisionChoice = 'skip' | 'replace' | 'keep-both';
export type ItemStatus = 'new' | 'same' | 'collides';

export interface SkillPreview {
  /** The skill's folder, `skills/<category>/<name>` or `skills/<name>` (or under `skills/.archive`). */
  dir: string;
  name: string;
  status: ItemStatus;
  files: number;
}

export interface KindCounts {
  new: number;
  same: number;
  collides: number;
}

export interface RestorePreview {
  createdAt: string;
  schemaVersion: number;
  sizeBytes: number;
  /** The backup carries encrypted API keys (a passphrase opens them). */
  hasKeys: boolean;
  /** The profile holds nothing yet: every item is new. */
  targetEmpty: boolean;
  skills: SkillPreview[];
  sessions: KindCounts & { collidingIds: string[] };
  memory: { path: string; status: ItemStatus }[];
  otherFiles: KindCounts;
  records: Partial<Record<BackupTable, KindCounts>>;
}

export interface RestoreTarget {
  files: FileStore;
  tables: ProfileTables;
}

/** What a restore works from: the opened backup, the preview, and the target as it was read. */
export interface RestorePlan {
  backup: OpenedBackup;
  preview: RestorePreview;
  /** Target files that a backup skill folder would replace (dir → paths), for deletes on replace. */
  targetSkillFiles: Map<string, string[]>;
  /** The target's records, per table, as read for the preview. */
  targetTables: Map<BackupTable, Map<string, unknown>>;
  targetFiles: Set<string>;
}

const SKILL_FILE = 'SKILL.md';

/** The folders of a file list that hold a SKILL.md. */
export function skillDirsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const path of paths) if (path.startsWith('skills/') && path.endsWith(`/${SKILL_FILE}`)) dirs.add(path.slice(0, -SKILL_FILE.length - 1));
  return dirs;
}

/** The deepest skill folder a path lies in, or null for files outside every skill (category notes). */
export function skillDirOf(path: string, dirs: ReadonlySet<string>): string | null {
  const parts = path.split('/');
  for (let end = parts.length - 1; end > 1; end--) {
    const dir = parts.slice(0, end).join('/');
    if (dirs.has(dir)) return dir;
  }
  return null;
}

function sameBytes(a: Uint8Array, b: Uint8Array | null): boolean {
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function count(statuses: ItemStatus[]): KindCounts {
  const counts: KindCounts = { new: 0, same: 0, collides: 0 };
  for (const status of statuses) counts[status === 'collides' ? 'collides' : status] += 1;
  return counts;
}

export async function planRestore(backup: OpenedBackup, target: RestoreTarget): Promise<RestorePlan> {
  const targetPaths = await listProfileFiles(target.files);
  const targetFiles = new Set(targetPaths);
  const targetDirs = skillDirsOf(targetPaths);
  const backupDirs = skillDirsOf(backup.files.keys());

  const byDir = new Map<string, string[]>();
  const targetSkillFiles = new Map<string, string[]>();
  const other: string[] = [];
  for (const path of backup.files.keys()) {
    const dir = skillDirOf(path, backupDirs);
    if (dir) byDir.set(dir, [...(byDir.get(dir) ?? []), path]);
    else if (path.startsWith('skills/')) other.push(path);
  }
  for (const path of targetPaths) {
    const dir = skillDirOf(path, targetDirs);
    if (dir && backupDirs.has(dir)) targetSkillFiles.set(dir, [...(targetSkillFiles.get(dir) ?? []), path]);
  }

  const fileStatus = async (path: string): Promise<ItemStatus> =>
    !targetFiles.has(path) ? 'new' : sameBytes(backup.files.get(path)!.bytes, await target.files.read(path)) ? 'same' : 'collides';

  const skills: SkillPreview[] = [];
  for (const [dir, paths] of [...byDir].sort(([a], [b]) => a.localeCompare(b))) {
    const existing = targetSkillFiles.get(dir);
    let status: ItemStatus = 'new';
    if (existing) {
      const sameSet = existing.length === paths.length && paths.every((path) => targetFiles.has(path));
      status = sameSet && (await Promise.all(paths.map(fileStatus))).every((s) => s === 'same') ? 'same' : 'collides';
    }
    skills.push({ dir, name: dir.slice(dir.lastIndexOf('/') + 1), status, files: paths.length });
  }

  const memory: RestorePreview['memory'] = [];
  for (const path of [...backup.files.keys()].filter((p) => p.startsWith('memories/')).sort()) memory.push({ path, status: await fileStatus(path) });

  const targetTables = new Map<BackupTable, Map<string, unknown>>();
  const records: RestorePreview['records'] = {};
  let sessions: RestorePreview['sessions'] = { new: 0, same: 0, collides: 0, collidingIds: [] };
  for (const [table, entries] of backup.tables) {
    if (!target.tables.tables.includes(table)) continue;
    const read = await target.tables.entries(table);
    const current = new Map(read);
    targetTables.set(table, current);
    // A backup's settings carry no API keys: compare them with this profile's, keys left out.
    const comparable = table === 'settings' ? new Map(extractSecrets(read).cleaned) : current;
    const statuses = entries.map(([key, value]): ItemStatus =>
      !comparable.has(key) ? 'new' : encodeRecordValue(comparable.get(key)) === encodeRecordValue(value) ? 'same' : 'collides',
    );
    records[table] = count(statuses);
    if (table === 'sessions') {
      sessions = { ...count(statuses), collidingIds: entries.filter((_, i) => statuses[i] === 'collides').map(([key]) => key) };
    }
  }

  const targetEmpty = targetPaths.length === 0 && [...targetTables.entries()].every(([table, m]) => table === 'settings' || m.size === 0);
  return {
    backup,
    targetSkillFiles,
    targetTables,
    targetFiles,
    preview: {
      createdAt: backup.manifest.createdAt,
      schemaVersion: backup.manifest.schemaVersion,
      sizeBytes: backup.size,
      hasKeys: backup.secrets !== null,
      targetEmpty,
      skills,
      sessions,
      memory,
      otherFiles: count(await Promise.all(other.map(fileStatus))),
      records,
    },
  };
}
