import type { FileStore } from '../storage/fileStore';
import type { CommitEffects } from './commitEffects';

/**
 * A set of file writes and deletes that must land together (delete, archive, restore,
 * rollback, import). Order matters when nothing else protects it: supporting files are
 * written before SKILL.md and SKILL.md is deleted before the rest, so a directory without
 * SKILL.md — which is not a skill — is the only thing a crash can leave half-done.
 */
export interface FileChangeSet {
  writes: Array<[path: string, bytes: Uint8Array]>;
  deletes: string[];
}

/**
 * Applies a change set all-or-nothing, then its effects (ledger entry, usage update); the
 * app's implementation journals it (storage/journal) so recovery applies the effects of a
 * change that was committed when the tab died.
 */
/** One skill's change within a batch: its files and the records that describe it. */
export interface ChangeBatchItem {
  changes: FileChangeSet;
  effects?: CommitEffects;
  /**
   * Every target's bytes before the change, read by the caller under the change's locks (a
   * path missing from the map does not exist). When given, the committer does not read each
   * target again (docs/storage.md, "Batched import").
   */
  previous?: ReadonlyMap<string, Uint8Array>;
}

export interface ChangeCommitter {
  commit(label: string, changes: FileChangeSet, effects?: CommitEffects): Promise<void>;
  /**
   * Several changes (of different skills) that land all together or not at all, each with its
   * own effects (a batched import, zipImport.ts). Optional: without it callers commit one by one.
   */
  commitMany?(label: string, items: readonly ChangeBatchItem[]): Promise<void>;
}

export const isSkillMd = (path: string): boolean => path === 'SKILL.md' || path.endsWith('/SKILL.md');

/** Writes first (SKILL.md last), then deletes (SKILL.md first). */
export function orderChanges(changes: FileChangeSet): FileChangeSet {
  const writes = [...changes.writes].sort((a, b) => Number(isSkillMd(a[0])) - Number(isSkillMd(b[0])));
  const deletes = [...changes.deletes].sort((a, b) => Number(isSkillMd(b)) - Number(isSkillMd(a)));
  return { writes, deletes };
}

/** Unjournaled committer for unit tests: applies in the safe order, then the effects. */
export class DirectCommitter implements ChangeCommitter {
  constructor(
    private readonly files: FileStore,
    private readonly applyEffects: (effects: CommitEffects) => Promise<void>,
  ) {}

  async commit(_label: string, changes: FileChangeSet, effects?: CommitEffects): Promise<void> {
    const ordered = orderChanges(changes);
    for (const [path, bytes] of ordered.writes) await this.files.write(path, bytes);
    for (const path of ordered.deletes) await this.files.delete(path);
    if (effects) await this.applyEffects(effects);
  }

  async commitMany(label: string, items: readonly ChangeBatchItem[]): Promise<void> {
    for (const item of items) await this.commit(label, item.changes, item.effects);
  }
}
