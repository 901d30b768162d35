import type { FileStore } from '../storage/fileStore';
import type { Journal, JournalOp } from '../storage/journal';
import { isSkillMd, orderChanges, type ChangeBatchItem, type ChangeCommitter, type FileChangeSet } from './fileChanges';
import { mergeCommitEffects, type CommitEffects } from './commitEffects';

/**
 * The app's committer: a single-file write is already atomic (temp file + move), so it goes
 * straight to the store; anything larger runs through the intent journal and ends
 * all-or-nothing even if the tab dies halfway.
 */
export class JournalCommitter implements ChangeCommitter {
  constructor(
    private readonly files: FileStore,
    private readonly journal: Journal,
    /** The same function the journal runs for committed intents (app/openStorage.ts). */
    private readonly applyEffects: (effects: CommitEffects) => Promise<void>,
  ) {}

  async commit(label: string, changes: FileChangeSet, effects?: CommitEffects): Promise<void> {
    const ordered = orderChanges(changes);
    if (ordered.writes.length + ordered.deletes.length <= 1) {
      // One file: the write (or delete) is atomic by itself. The effects follow at once; a
      // crash in between leaves the file newer than its ledger entry, never the reverse.
      const [write] = ordered.writes;
      if (write) await this.files.write(write[0], write[1]);
      else if (ordered.deletes[0]) await this.files.delete(ordered.deletes[0]);
      if (effects) await this.applyEffects(effects);
      return;
    }
    const ops: JournalOp[] = [
      ...ordered.writes.map(([path, data]): JournalOp => ({ op: 'write', path, data })),
      ...ordered.deletes.map((path): JournalOp => ({ op: 'delete', path })),
    ];
    // The journal applies `effects` when the steps are done (or recovery rolls them forward).
    await this.journal.run(label, ops, { meta: { label, effects } });
  }

  /**
   * A batch of skill changes as ONE intent (docs/storage.md, "Batched import"): every file of
   * every skill is staged, the batch commits once, and the ledger entries and usage updates of
   * all its skills land together when it is applied. Each skill's steps form a group, applied
   * in its own order (supporting files first, side by side, then SKILL.md), several skills
   * side by side. The previous bytes an item brings are handed on, so the journal does not
   * read every target again.
   */
  async commitMany(label: string, items: readonly ChangeBatchItem[], options: { failAfterStep?: number } = {}): Promise<void> {
    const ops: JournalOp[] = items.flatMap((item, group) => {
      const ordered = orderChanges(item.changes);
      const known = item.previous;
      const previous = (path: string) => (known ? { previous: known.get(path) ?? null } : {});
      return [
        ...ordered.writes.map(([path, data]): JournalOp => ({ op: 'write', path, data, group, ...previous(path), ...(isSkillMd(path) ? {} : { unordered: true }) })),
        ...ordered.deletes.map((path): JournalOp => ({ op: 'delete', path, group, ...previous(path) })),
      ];
    });
    if (ops.length === 0) return;
    const effects = mergeCommitEffects(items.map((item) => item.effects));
    await this.journal.run(label, ops, { meta: { label, effects, skills: items.length }, ...options });
  }
}
