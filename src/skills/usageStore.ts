import type { RecordStore } from '../storage/recordStore';

/**
 * Per-skill usage record (Hermes' `.usage.json` entry, one IndexedDB record per skill).
 * `created_by: "agent"` is the opt-in to curator management and to review edits: only a skill
 * the review agent created carries it.
 */
export type SkillState = 'active' | 'stale' | 'archived';
export type Verification = 'unmeasured' | 'staged' | 'promoted' | 'rejected';

export interface UsageRecord {
  name: string;
  created_by: 'agent' | null;
  /** Where the skill came from; imported skills are user-owned but never review-editable. */
  source: 'foreground' | 'review' | 'user' | 'import' | 'unknown';
  use_count: number;
  view_count: number;
  patch_count: number;
  created_at: string | null;
  last_used_at: string | null;
  last_viewed_at: string | null;
  last_patched_at: string | null;
  archived_at: string | null;
  state: SkillState;
  pinned: boolean;
  verification: Verification;
}

export type Clock = () => Date;
export const systemClock: Clock = () => new Date();

export function emptyUsageRecord(name: string): UsageRecord {
  return {
    name,
    created_by: null,
    source: 'unknown',
    use_count: 0,
    view_count: 0,
    patch_count: 0,
    created_at: null,
    last_used_at: null,
    last_viewed_at: null,
    last_patched_at: null,
    archived_at: null,
    state: 'active',
    pinned: false,
    verification: 'unmeasured',
  };
}

/** Newest of used/viewed/patched; creation does not count as activity (Hermes rule). */
export function lastActivityAt(record: UsageRecord): string | null {
  const stamps = [record.last_used_at, record.last_viewed_at, record.last_patched_at].filter(
    (stamp): stamp is string => stamp !== null,
  );
  return stamps.length ? stamps.sort().at(-1)! : null;
}

export function activityCount(record: UsageRecord): number {
  return record.use_count + record.view_count + record.patch_count;
}

export class UsageStore {
  constructor(
    private readonly records: RecordStore<UsageRecord>,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The record, with keys added since it was written backfilled; null when there is none. */
  async find(name: string): Promise<UsageRecord | null> {
    const stored = await this.records.get(name);
    return stored ? { ...emptyUsageRecord(name), ...stored } : null;
  }

  async get(name: string): Promise<UsageRecord> {
    return (await this.find(name)) ?? emptyUsageRecord(name);
  }

  async all(): Promise<UsageRecord[]> {
    return (await this.records.getAll()).map((record) => ({ ...emptyUsageRecord(record.name), ...record }));
  }

  async update(name: string, change: (record: UsageRecord, now: string) => void): Promise<UsageRecord | null> {
    if (!name) return null;
    const record = await this.get(name);
    change(record, this.clock().toISOString());
    await this.records.put(name, record);
    return record;
  }

  recordCreated(name: string, source: UsageRecord['source']): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.created_at = now;
      record.source = source;
      record.created_by = source === 'review' ? 'agent' : null;
      record.state = 'active';
      record.archived_at = null;
      record.verification = source === 'review' || source === 'import' ? 'staged' : record.verification;
    });
  }

  bumpView(name: string): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.view_count += 1;
      record.last_viewed_at = now;
      if (record.state === 'stale') record.state = 'active';
    });
  }

  bumpUse(name: string): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.use_count += 1;
      record.last_used_at = now;
      if (record.state === 'stale') record.state = 'active';
    });
  }

  bumpPatch(name: string): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.patch_count += 1;
      record.last_patched_at = now;
      // An edited skill's earlier verdict no longer describes it (SPEC §10.2 step 7).
      if (record.verification === 'promoted' || record.verification === 'rejected') record.verification = 'staged';
    });
  }

  setState(name: string, state: SkillState): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.state = state;
      record.archived_at = state === 'archived' ? now : null;
    });
  }

  setPinned(name: string, pinned: boolean): Promise<UsageRecord | null> {
    return this.update(name, (record) => {
      record.pinned = pinned;
    });
  }

  setVerification(name: string, verification: Verification): Promise<UsageRecord | null> {
    return this.update(name, (record) => {
      record.verification = verification;
    });
  }

  async forget(name: string): Promise<void> {
    await this.records.delete(name);
  }

  /** Restores a record exactly as it was (rollback of a delete). */
  async restore(record: UsageRecord): Promise<void> {
    await this.records.put(record.name, record);
  }
}
