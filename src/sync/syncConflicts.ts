/**
 * Deciding what a sync left for the user (docs/sync.md, "Conflicts"): a skill edited in the
 * same lines on two devices, decided per conflict with Keep mine / Take theirs / Edit in the
 * Merge update dialog; a skill that came in dangerous, kept or discarded.
 */
import { mergeSkill, type ConflictChoice, type SkillMerge } from '../skills/threeWayMerge';
import { resolveConflict } from './syncDecision';
import type { LocalLibrary } from './localLibrary';
import type { SyncedFiles, SyncStateStore } from './syncState';

interface Deps {
  local: LocalLibrary;
  state: SyncStateStore;
}

const bytesOf = (files: SyncedFiles | null) => (files ? new Map([...files].map(([path, file]) => [path, file.bytes])) : null);

/** The merge the dialog shows: base, this device's files and the kept remote version. */
export async function conflictMerge(deps: Deps, name: string): Promise<SkillMerge | null> {
  const conflict = await deps.state.conflict(name);
  if (!conflict) return null;
  const base = (await deps.state.bases()).get(name)?.files ?? null;
  const mine = (await deps.local.read(name))?.files ?? null;
  const outcome = mergeSkill(bytesOf(base), bytesOf(mine), bytesOf(conflict.theirs));
  return outcome.kind === 'merged' ? outcome.merge : null;
}

/**
 * Writes the decided files here and makes the remote version the base, so the next sync sends
 * the decision (the remote has not moved) or merges it with whatever came since.
 */
export async function resolveSyncConflict(deps: Deps, name: string, choices: ReadonlyMap<string, ConflictChoice>): Promise<void> {
  const conflict = await deps.state.conflict(name);
  if (!conflict) throw new Error(`'${name}' has no sync conflict to resolve.`);
  const bases = await deps.state.bases();
  const base = bases.get(name);
  const mine = (await deps.local.read(name))?.files ?? null;
  const decided = resolveConflict(base?.files ?? null, mine, conflict.theirs, choices);
  if (decided && decided.size > 0) {
    if (mine) await deps.local.update(name, decided);
    else await deps.local.create(name, decided);
  }
  await deps.state.putBases([{ name, files: conflict.theirs, remoteIds: conflict.theirsIds, recordId: conflict.theirsRecordId, recordBytes: base?.recordBytes ?? null }]);
  await deps.state.removeConflict(name);
}

/** A held skill the user decided to keep: written to the library as it came. */
export async function keepHeldSkill(deps: Deps, name: string): Promise<void> {
  const held = (await deps.state.held()).find((item) => item.name === name);
  if (!held) throw new Error(`No skill '${name}' is held.`);
  if (await deps.local.read(name)) await deps.local.update(name, held.files);
  else await deps.local.create(name, held.files);
  await deps.state.removeHeld(name);
}
