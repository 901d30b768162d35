import type { RecordStore } from '../storage/recordStore';
import { createdByFor, type CreatedBy, type UsageSource } from '../tools/writeContext';

/**
 * Per-skill usage record (Hermes' `.usage.json` entry, one IndexedDB record per skill).
 * `created_by: "agent"` is the opt-in to curator management and to review edits: only a skill
 * the review agent created carries it. Which origin yields which `source` and `created_by` is
 * the table in tools/writeContext.ts (docs/write-origins.md).
 */
export type SkillState = 'active' | 'stale' | 'archived';
export type Verification = 'unmeasured' | 'staged' | 'promoted' | 'rejected';

export interface UsageRecord {
  name: string;
  created_by: CreatedBy;
  /** Where the skill came from; imported skills are user-owned but never review-editable. */
  source: UsageSource;
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

/** What the skill index shows of a record; only values other than the defaults are kept. */
export interface UsageLabel {
  verification: Verification;
  state: SkillState;
}

/**
 * Key of the record that holds every non-default label, kept current by every update, so a
 * session start reads one record instead of every usage record (10,000 at 10,000 skills).
 * Not a valid skill name.
 */
const LABELS_KEY = '#labels';

interface LabelsRecord {
  kind: 'labels';
  /** JSON of name → UsageLabel: one string clones far faster than thousands of objects. */
  json: string;
}

const isLabelsRecord = (value: unknown): value is LabelsRecord => (value as LabelsRecord | undefined)?.kind === 'labels';

/** The label to keep for a record, or null when it shows the default (unverified, active). */
function labelOf(record: UsageRecord | null | undefined): UsageLabel | null {
  if (!record) return null;
  // Staged and unmeasured both show as [unverified]; promoted, rejected and any state but
  // active change what the index shows.
  const shown = record.verification === 'promoted' || record.verification === 'rejected' || record.state !== 'active';
  return shown ? { verification: record.verification, state: record.state } : null;
}

const sameLabel = (a: UsageLabel | null, b: UsageLabel | null) => a?.verification === b?.verification && a?.state === b?.state;

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
    return (await this.records.getAll())
      .filter((record) => !isLabelsRecord(record))
      .map((record) => ({ ...emptyUsageRecord(record.name), ...record }));
  }

  /** Verification and state of every skill whose label is not the default (unverified, active). */
  async labels(): Promise<Map<string, UsageLabel>> {
    const stored: unknown = await this.records.get(LABELS_KEY);
    if (isLabelsRecord(stored)) return new Map(Object.entries(JSON.parse(stored.json) as Record<string, UsageLabel>));
    // None kept yet (records from before labels were kept, or written around this store):
    // build it once from every record. A label change landing between the read and the put
    // would be missed, as an update only edits an existing labels record; that window is
    // one read of the store, once per database.
    const labels: Record<string, UsageLabel> = {};
    for (const record of await this.all()) {
      const label = labelOf(record);
      if (label) labels[record.name] = label;
    }
    await this.records.put(LABELS_KEY, { kind: 'labels', json: JSON.stringify(labels) } as unknown as UsageRecord);
    return new Map(Object.entries(labels));
  }

  async update(name: string, change: (record: UsageRecord, now: string) => void): Promise<UsageRecord | null> {
    if (!name) return null;
    const now = this.clock().toISOString();
    let updated: UsageRecord | null = null;
    await this.writeWithLabels(name, (stored) => {
      const record = { ...emptyUsageRecord(name), ...stored };
      change(record, now);
      updated = record;
      return record;
    });
    return updated;
  }

  recordCreated(name: string, source: UsageRecord['source']): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.created_at = now;
      record.source = source;
      record.created_by = createdByFor(source);
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
    await this.writeWithLabels(name, () => null);
  }

  /** Restores a record exactly as it was (rollback of a delete). */
  async restore(record: UsageRecord): Promise<void> {
    await this.writeWithLabels(record.name, () => record);
  }

  /**
   * Replaces (or, for null, deletes) the record of `name` with what `next` makes of the stored
   * one, and the labels record with it when the label changed: in one transaction where the
   * store has them, so another tab's update cannot come in between.
   */
  private async writeWithLabels(name: string, next: (stored: UsageRecord | undefined) => UsageRecord | null): Promise<void> {
    const apply = ([stored, labelsRecord]: unknown[]): { put: [string, UsageRecord][]; remove: string[] } => {
      const current = stored as UsageRecord | undefined;
      const record = next(current);
      const put: [string, UsageRecord][] = record ? [[name, record]] : [];
      const remove = record ? [] : [name];
      const before = labelOf(current && { ...emptyUsageRecord(name), ...current });
      const after = labelOf(record);
      // Without a labels record there is nothing to keep current: labels() builds it.
      if (isLabelsRecord(labelsRecord) && !sameLabel(before, after)) {
        const labels = JSON.parse(labelsRecord.json) as Record<string, UsageLabel>;
        if (after) labels[name] = after;
        else delete labels[name];
        put.push([LABELS_KEY, { kind: 'labels', json: JSON.stringify(labels) } as unknown as UsageRecord]);
      }
      return { put, remove };
    };
    if (this.records.updateMany) {
      await this.records.updateMany([name, LABELS_KEY], apply);
      return;
    }
    const { put, remove } = apply([await this.records.get(name), await this.records.get(LABELS_KEY)]);
    if (put.length) await this.records.putMany(put);
    for (const key of remove) await this.records.delete(key);
  }
}
