/**
 * A skill's history for display: ledger entries newest first, each with a line diff per
 * changed path. Pure, so it is unit-tested without storage; the rune module feeds it the
 * entries and the decoded blobs.
 */
import { diffLines } from 'diff';
import type { LedgerEntry } from '../../skills/ledger';
import { relativeToSkill, skillDirsOf } from '../../skills/skillPaths';

export type DiffLine =
  | { kind: 'added' | 'removed' | 'same'; text: string }
  /** Unchanged lines left out between two changes. */
  | { kind: 'skipped'; count: number };

export interface PathDiff {
  /** Path inside the skill folder (`SKILL.md`, `references/api.md`). */
  path: string;
  change: 'added' | 'removed' | 'modified';
  lines: DiffLine[];
  /** Set when a blob was missing, so the text could not be shown. */
  unavailable?: boolean;
}

export interface HistoryItem {
  entry: LedgerEntry;
  /**
   * The entry's diffs; null until they are read. They are read after the skill is on screen, at
   * once for an entry of at most AUTO_DIFF_MAX_PATHS files, on demand for a larger one (an
   * import of hundreds of files), so opening a skill never waits for them (docs/skill-tools.md,
   * "Opening a large skill").
   */
  diffs: PathDiff[] | null;
  /** Files the entry touched: what "Show changes" offers for an entry read on demand. */
  changedPaths: number;
}

/** Entries touching at most this many files get their diffs without asking. */
export const AUTO_DIFF_MAX_PATHS = 20;

/** Files an entry touched (before or after), each once. */
export function changedPathCount(entry: LedgerEntry): number {
  return new Set([...entry.before, ...entry.after].map((version) => version.path)).size;
}

/** Unchanged lines kept on each side of a change. */
export const DIFF_CONTEXT = 3;

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop(); // a trailing newline ends the last line, it does not start one
  return lines;
}

/** Line diff of two texts, with long unchanged stretches folded into `skipped` rows. */
export function diffText(before: string, after: string, context = DIFF_CONTEXT): DiffLine[] {
  const raw: DiffLine[] = [];
  for (const part of diffLines(before, after)) {
    const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
    for (const text of splitLines(part.value)) raw.push({ kind, text });
  }
  const changed = raw.map((line) => line.kind !== 'same');
  const keep = raw.map((_, i) => {
    for (let j = Math.max(0, i - context); j <= Math.min(raw.length - 1, i + context); j++) if (changed[j]) return true;
    return false;
  });
  const folded: DiffLine[] = [];
  let skipped = 0;
  raw.forEach((line, i) => {
    if (keep[i]) {
      if (skipped) folded.push({ kind: 'skipped', count: skipped });
      skipped = 0;
      folded.push(line);
    } else skipped += 1;
  });
  if (skipped) folded.push({ kind: 'skipped', count: skipped });
  return folded;
}

/**
 * `skills/git/commit-style/references/a.md` → `references/a.md`, relative to the real skill
 * folder: one of `dirs` (skillPaths.ts), guessed only when none holds the path.
 */
export function pathInSkill(path: string, dirs: readonly string[] = skillDirsOf([path])): string {
  return relativeToSkill(path, dirs);
}

/**
 * Builds the diffs of one entry. `text(hash)` returns a blob's text, or null when the blob is
 * gone. Paths are shown relative to the skill folder: the folders of the SKILL.md files the
 * entry touched and `knownDirs` (where the skill lives now), so `agents/openai.yaml` keeps
 * its folder and moves into `.archive` pair up.
 */
export async function diffEntry(
  entry: LedgerEntry,
  text: (hash: string) => Promise<string | null>,
  knownDirs: readonly string[] = [],
): Promise<PathDiff[]> {
  const dirs = skillDirsOf([...entry.before, ...entry.after].map((v) => v.path), knownDirs);
  const before = new Map(entry.before.map((v) => [pathInSkill(v.path, dirs), v.hash]));
  const after = new Map(entry.after.map((v) => [pathInSkill(v.path, dirs), v.hash]));
  // Moved unchanged (archive, restore) is no change.
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort().filter((path) => !before.get(path) || before.get(path) !== after.get(path));
  // Every blob is read at once: the store serves them in parallel.
  const texts = await Promise.all(
    paths.map((path) => Promise.all([before.get(path) ? text(before.get(path)!) : Promise.resolve(''), after.get(path) ? text(after.get(path)!) : Promise.resolve('')])),
  );
  const diffs: PathDiff[] = [];
  for (const [i, path] of paths.entries()) {
    const beforeHash = before.get(path);
    const afterHash = after.get(path);
    const [beforeText, afterText] = texts[i]!;
    const change = !beforeHash ? 'added' : !afterHash ? 'removed' : 'modified';
    if (beforeText === null || afterText === null) {
      diffs.push({ path, change, lines: [], unavailable: true });
      continue;
    }
    diffs.push({ path, change, lines: diffText(beforeText, afterText) });
  }
  return diffs;
}

/** Entries of one skill, newest first (ids sort by time; `at` breaks nothing when equal). */
export function newestFirst(entries: LedgerEntry[]): LedgerEntry[] {
  return [...entries].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

const ACTION_WORDS: Record<string, string> = {
  create: 'Created',
  edit: 'Edited',
  patch: 'Patched',
  delete: 'Deleted',
  write_file: 'Wrote a file',
  remove_file: 'Removed a file',
  archive: 'Archived',
  restore: 'Restored',
  rollback: 'Rolled back',
  import: 'Imported',
  update: 'Updated from its source',
};

const ACTOR_WORDS: Record<string, string> = {
  user: 'you',
  agent: 'the chat agent',
  review: 'the review agent',
  curator: 'the curator',
  import: 'an import',
};

/** "Edited by you", "Rolled back by you (undid an edit)". */
export function describeEntry(entry: LedgerEntry): string {
  const action = ACTION_WORDS[entry.action] ?? entry.action;
  // An update names its source, not the import machinery that wrote it (docs/install.md, "Updates").
  if (entry.action === 'update') return action;
  const actor = ACTOR_WORDS[entry.actor] ?? entry.actor;
  const undone = entry.action === 'rollback' && typeof entry.evidence.rolled_back_action === 'string' ? ` (undid: ${entry.evidence.rolled_back_action})` : '';
  return `${action} by ${actor}${undone}`;
}
