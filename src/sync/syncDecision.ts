/**
 * What one skill's sync does, from its three versions (docs/sync.md, "The merge rule"): the last
 * synced version (base), this device's (mine) and the place's (theirs). Pure; the engine
 * (syncEngine.ts) does the reading and writing. `mergeSkill` (skills/threeWayMerge.ts) is the
 * same rule registry updates use.
 */
import { mergeSkill, resolveSkillMerge, type FileConflict, type SkillSide } from '../skills/threeWayMerge';
import type { SyncedFiles } from './syncState';

export type SkillSyncAction =
  /** Nothing to do. */
  | { kind: 'none' }
  /** Send mine to the place (files null: delete it there). */
  | { kind: 'push'; files: SyncedFiles | null; notice?: string }
  /** Take theirs here (files null: delete it here). */
  | { kind: 'pull'; files: SyncedFiles | null; notice?: string }
  /** Merged without conflict: write here and send. */
  | { kind: 'both'; files: SyncedFiles }
  /** Overlapping edits: keep mine here and theirs there until the user decides. */
  | { kind: 'conflict'; conflicts: FileConflict[] };

const bytesOf = (files: SyncedFiles | null): SkillSide => (files ? new Map([...files].map(([path, file]) => [path, file.bytes])) : null);

export function sameFiles(a: SyncedFiles | null, b: SyncedFiles | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.size !== b.size) return false;
  for (const [path, file] of a) {
    const other = b.get(path);
    if (!other || other.mode !== file.mode || other.bytes.length !== file.bytes.length) return false;
    for (let i = 0; i < file.bytes.length; i++) if (other.bytes[i] !== file.bytes[i]) return false;
  }
  return true;
}

/** Modes of a merged result: mine where I have the file, else theirs, else 0644. */
function withModes(files: ReadonlyMap<string, Uint8Array>, mine: SyncedFiles | null, theirs: SyncedFiles | null): SyncedFiles {
  const out: SyncedFiles = new Map();
  for (const [path, bytes] of files) out.set(path, { bytes, mode: mine?.get(path)?.mode ?? theirs?.get(path)?.mode ?? 0o644 });
  return out;
}

/** The action for one skill. `base` null: never synced; `mine`/`theirs` null: absent on that side. */
export function decideSkill(name: string, base: SyncedFiles | null, mine: SyncedFiles | null, theirs: SyncedFiles | null): SkillSyncAction {
  const mineChanged = !sameFiles(base, mine);
  const theirsChanged = !sameFiles(base, theirs);
  if (!mineChanged && !theirsChanged) return { kind: 'none' };
  if (sameFiles(mine, theirs)) return { kind: 'none' };
  // Only the modes changed on one side: bytes-wise nothing to merge, the changed side wins.
  if (mineChanged && !theirsChanged) return { kind: 'push', files: mine };
  if (theirsChanged && !mineChanged) return { kind: 'pull', files: theirs };
  const outcome = mergeSkill(bytesOf(base), bytesOf(mine), bytesOf(theirs));
  switch (outcome.kind) {
    case 'unchanged':
    case 'take-mine':
      return { kind: 'push', files: mine };
    case 'take-theirs':
      return { kind: 'pull', files: theirs };
    case 'delete':
      // The side that deleted is the null one; the other did not change.
      return mine === null ? { kind: 'push', files: null } : { kind: 'pull', files: null };
    case 'keep-edited':
      return outcome.editedSide === 'mine'
        ? { kind: 'push', files: mine, notice: `'${name}' was deleted on another device and edited here: kept here and sent back.` }
        : { kind: 'pull', files: theirs, notice: `'${name}' was deleted here and edited on another device: kept with that device's edits.` };
    case 'merged':
      if (outcome.merge.conflicts.length > 0) return { kind: 'conflict', conflicts: outcome.merge.conflicts };
      return { kind: 'both', files: withModes(resolveSkillMerge(outcome.merge, new Map()), mine, theirs) };
  }
}

/** The files of a conflicted skill once the user chose per conflict (the Merge update dialog). */
export function resolveConflict(
  base: SyncedFiles | null,
  mine: SyncedFiles | null,
  theirs: SyncedFiles | null,
  choices: Parameters<typeof resolveSkillMerge>[1],
): SyncedFiles | null {
  const outcome = mergeSkill(bytesOf(base), bytesOf(mine), bytesOf(theirs));
  if (outcome.kind !== 'merged') return decideSkill('', base, mine, theirs).kind === 'pull' ? theirs : mine;
  return withModes(resolveSkillMerge(outcome.merge, choices), mine, theirs);
}
