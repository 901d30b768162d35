import type { ChangeFeed } from '../storage/changes';
import type { RecordStore } from '../storage/recordStore';
import { newestFirst, type ActivityRecord } from './activity';

/**
 * The `activity` store: every review and curator run, written when it starts and again when
 * it ends. Each write publishes `activity-changed`, so the Activity view in this and other
 * tabs follows along. Old runs beyond `keep` are dropped so the store stays small.
 *
 * No read-modify-write, so no lost update (docs/storage.md): a record is always written whole
 * by the one run that owns its id (a fresh id per run), never merged with what is stored, and
 * two runs never share an id. `prune` only deletes, and only records past the newest `keep`,
 * which a running run's record is not; deleting twice (two tabs pruning) is harmless.
 */
export class ActivityLog {
  constructor(
    private readonly records: RecordStore<ActivityRecord>,
    private readonly changes?: ChangeFeed,
    private readonly keep = 500,
  ) {}

  async put(record: ActivityRecord): Promise<void> {
    await this.records.put(record.id, record);
    this.changes?.publish({ type: 'activity-changed', id: record.id });
  }

  get(id: string): Promise<ActivityRecord | undefined> {
    return this.records.get(id);
  }

  /** Newest first. */
  async list(): Promise<ActivityRecord[]> {
    return newestFirst(await this.records.getAll());
  }

  /** Drops the oldest runs past `keep`; returns how many went. */
  async prune(): Promise<number> {
    const all = await this.list();
    const old = all.slice(this.keep);
    for (const record of old) await this.records.delete(record.id);
    return old.length;
  }
}
