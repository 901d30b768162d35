import type { FileStore } from '../storage/fileStore';
import type { Journal, JournalOp } from '../storage/journal';
import { orderChanges, type ChangeCommitter, type FileChangeSet } from './fileChanges';

/**
 * The app's committer: a single-file write is already atomic (temp file + move), so it goes
 * straight to the store; anything larger runs through the intent journal and ends
 * all-or-nothing even if the tab dies halfway.
 */
export class JournalCommitter implements ChangeCommitter {
  constructor(
    private readonly files: FileStore,
    private readonly journal: Journal,
  ) {}

  async commit(label: string, changes: FileChangeSet): Promise<void> {
    const ordered = orderChanges(changes);
    if (ordered.writes.length === 1 && ordered.deletes.length === 0) {
      const [path, bytes] = ordered.writes[0]!;
      await this.files.write(path, bytes);
      return;
    }
    if (ordered.writes.length === 0 && ordered.deletes.length === 0) return;
    const ops: JournalOp[] = [
      ...ordered.writes.map(([path, data]): JournalOp => ({ op: 'write', path, data })),
      ...ordered.deletes.map((path): JournalOp => ({ op: 'delete', path })),
    ];
    await this.journal.run(label, ops, { meta: { label } });
  }
}
