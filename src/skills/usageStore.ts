import type { RecordStore } from '../storage/recordStore';
import type { ForgedToolState, ToolCodeRefusal } from './forgedToolState';
import { createdByFor, type CreatedBy, type UsageSource } from '../tools/writeContext';
import { emptyOutcomes, type CandidateCase, type UseOutcomes } from './candidateCases';
import type { InstalledSource } from './installedSource';
import {
  acceptArrivedVerdicts,
  approveModelVerdict,
  markModelVerdictsStale,
  modelLabelsOf,
  sameModelLabels,
  setModelVerdict,
  setModelVerdictStale,
  type ArrivedVerdict,
  type ModelLabel,
  type ModelVerdicts,
  type Verification,
} from './modelVerdicts';

/**
 * Per-skill usage record (Hermes' `.usage.json` entry, one IndexedDB record per skill).
 * `created_by: "agent"` is the opt-in to curator management and to review edits: only a skill
 * the review agent created carries it. Which origin yields which `source` and `created_by` is
 * the table in tools/writeContext.ts (docs/write-origins.md).
 */
export type SkillState = 'active' | 'stale' | 'archived';
export type { Verification };

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
  /**
   * The verdict word of the last gate run applied to this skill; `staged` without a run for
   * learned and imported skills, `unmeasured` for the rest. An edit does not change the word:
   * it sets `verification_stale` (docs/gate.md, "Effects").
   */
  verification: Verification;
  /** SKILL.md or evals/ changed since the verdict was measured: the label says [unverified]. */
  verification_stale: boolean;
  /** The gate run (IndexedDB `verdicts`) the verification came from; null when none ran. */
  verdict_id: string | null;
  /** The user approved the staged verdict `verdict_id` ([approved], never [verified]). */
  approved_by: 'user' | null;
  /** The skill's forged tools: proof, switch and runs, by tool name (skills/forgedToolState.ts). Absent = none proven yet. */
  tools?: Record<string, ForgedToolState>;
  /**
   * Tools whose code the security scan refused (a block, or held in Pending), by tool name, so
   * the Tools entry says why there is no code (skills/forgedToolState.ts). Absent = none.
   */
  tool_refusals?: Record<string, ToolCodeRefusal>;
  /**
   * The newest verdict of each model it was measured on, by model key (gate/modelKey.ts): the
   * index of a chat labels by its own model's entry (docs/gate.md, "Per-model verdicts").
   */
  model_verdicts: ModelVerdicts;
  /** Requests from later chats that loaded the skill, waiting to be added or dismissed (candidateCases.ts). */
  candidate_cases: CandidateCase[];
  /** Keys of dismissed candidates (candidateCases.ts `candidateKey`). */
  dismissed_candidates: string[];
  /** The chats that loaded it and what the user did next (candidateCases.ts). */
  use_outcomes: UseOutcomes;
  /**
   * Where an installed skill came from (installedSource.ts): its source, exact revision, the
   * upstream digest and the hash of what was installed. null for skills not installed from a link.
   */
  installed_from: InstalledSource | null;
}

/**
 * What the skill index shows of a record; only records whose label differs from the default
 * (unverified, active) are kept. The label text itself is the gate's to choose (the index
 * takes its label function by injection, skillIndex.ts).
 */
export interface UsageLabel {
  verification: Verification;
  state: SkillState;
  /** Present (true) only when the verdict no longer describes the skill's bytes. */
  stale?: true;
  /** Present only when the user approved the staged verdict. */
  approvedBy?: 'user';
  /** Per model key, that model's verdict; absent when no run recorded its model. */
  models?: Record<string, ModelLabel>;
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
  /** Being built from the records (`buildLabels`): updates keep it, readers build it again. */
  building?: true;
}

const isLabelsRecord = (value: unknown): value is LabelsRecord => (value as LabelsRecord | undefined)?.kind === 'labels';

/** The label to keep for a record, or null when it shows the default (unverified, active). */
function labelOf(record: UsageRecord | null | undefined): UsageLabel | null {
  if (!record) return null;
  // Staged and unmeasured both show as [unverified] unless approved; promoted, rejected, an
  // approval and any state but active can change what the index shows.
  const approved = record.approved_by === 'user';
  const models = modelLabelsOf(record);
  const shown = record.verification === 'promoted' || record.verification === 'rejected' || approved || record.state !== 'active' || models !== undefined;
  if (!shown) return null;
  return {
    verification: record.verification,
    state: record.state,
    ...(record.verification_stale ? { stale: true as const } : {}),
    ...(approved ? { approvedBy: 'user' as const } : {}),
    ...(models ? { models } : {}),
  };
}

const sameLabel = (a: UsageLabel | null, b: UsageLabel | null) =>
  a?.verification === b?.verification &&
  a?.state === b?.state &&
  a?.stale === b?.stale &&
  a?.approvedBy === b?.approvedBy &&
  sameModelLabels(a?.models, b?.models);

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
    verification_stale: false,
    verdict_id: null,
    approved_by: null,
    model_verdicts: {},
    candidate_cases: [],
    dismissed_candidates: [],
    use_outcomes: emptyOutcomes(),
    installed_from: null,
  };
}

export { activityCount, lastActivityAt } from './usageActivity';

/** What creating (or importing, or learning) a skill does to its usage record. */
function markCreated(record: UsageRecord, now: string, source: UsageRecord['source'], installedFrom?: InstalledSource): void {
  record.created_at = now;
  // A zip import is no link install: a skill imported over an installed one loses its source.
  if (installedFrom) record.installed_from = installedFrom;
  else if (source === 'import') record.installed_from = null;
  record.source = source;
  record.created_by = createdByFor(source);
  record.state = 'active';
  record.archived_at = null;
  // Learned and imported skills start staged whatever their files claim; nothing measured
  // so far describes the new bytes.
  if (source === 'review' || source === 'import') {
    record.verification = 'staged';
    record.verdict_id = null;
    record.verification_stale = false;
    record.model_verdicts = {};
  } else {
    if (record.verdict_id !== null) record.verification_stale = true;
    // A verdict that arrived from another device has no local run (verdict_id null) but goes stale too.
    markModelVerdictsStale(record);
  }
  record.approved_by = null;
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
    if (isLabelsRecord(stored) && !stored.building) return new Map(Object.entries(JSON.parse(stored.json) as Record<string, UsageLabel>));
    return this.buildLabels();
  }

  /**
   * Builds the labels record from every usage record, once per database (records from before
   * labels were kept). No lost update: a `building` labels record is put first, so every update
   * from then on edits it; the labels are then computed from the records as read inside the
   * transaction that writes them, keeping what updates of records this read did not see added.
   */
  private async buildLabels(): Promise<Map<string, UsageLabel>> {
    await this.records.updateMany([LABELS_KEY], ([current]) => ({
      put: isLabelsRecord(current) ? [] : [[LABELS_KEY, { kind: 'labels', json: '{}', building: true } as unknown as UsageRecord]],
    }));
    const names = (await this.records.keys()).filter((key) => key !== LABELS_KEY);
    let built = new Map<string, UsageLabel>();
    await this.records.updateMany([...names, LABELS_KEY], (current) => {
      const kept = current[names.length] as unknown;
      const labels: Record<string, UsageLabel> = isLabelsRecord(kept) ? (JSON.parse(kept.json) as Record<string, UsageLabel>) : {};
      names.forEach((name, i) => {
        const record = current[i];
        const label = labelOf(record && { ...emptyUsageRecord(name), ...record });
        if (label) labels[name] = label;
        else delete labels[name];
      });
      built = new Map(Object.entries(labels));
      return { put: [[LABELS_KEY, { kind: 'labels', json: JSON.stringify(labels) } as unknown as UsageRecord]] };
    });
    return built;
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

  recordCreated(name: string, source: UsageRecord['source'], installedFrom?: InstalledSource): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => markCreated(record, now, source, installedFrom));
  }

  /**
   * Creations and forgets of several skills, in order, in one transaction with the labels
   * record (a batched import: each skill still gets its own forget and created).
   */
  async lifecycleMany(ops: ReadonlyArray<{ op: 'created'; name: string; source: UsageRecord['source']; installedFrom?: InstalledSource } | { op: 'forget'; name: string }>): Promise<void> {
    const named = ops.filter((op) => op.name);
    if (named.length === 0) return;
    const now = this.clock().toISOString();
    const names = [...new Set(named.map((op) => op.name))];
    const apply = (current: (UsageRecord | undefined)[], labelsRecord: unknown): { put: [string, UsageRecord][]; remove: string[] } => {
      const stored = new Map(names.map((name, i) => [name, current[i]]));
      const next = new Map<string, UsageRecord | null>();
      for (const op of named) {
        if (op.op === 'forget') {
          next.set(op.name, null);
          continue;
        }
        const previous = next.has(op.name) ? next.get(op.name) : stored.get(op.name);
        const record = { ...emptyUsageRecord(op.name), ...(previous ?? {}) };
        markCreated(record, now, op.source, op.installedFrom);
        next.set(op.name, record);
      }
      const put: [string, UsageRecord][] = [];
      const remove: string[] = [];
      const labels: Record<string, UsageLabel> | null = isLabelsRecord(labelsRecord) ? (JSON.parse(labelsRecord.json) as Record<string, UsageLabel>) : null;
      let labelsChanged = false;
      for (const [name, record] of next) {
        if (record) put.push([name, record]);
        else remove.push(name);
        const before = stored.get(name);
        const beforeLabel = labelOf(before && { ...emptyUsageRecord(name), ...before });
        const afterLabel = labelOf(record);
        if (labels && !sameLabel(beforeLabel, afterLabel)) {
          if (afterLabel) labels[name] = afterLabel;
          else delete labels[name];
          labelsChanged = true;
        }
      }
      if (labels && labelsChanged) put.push([LABELS_KEY, { kind: 'labels', json: JSON.stringify(labels) } as unknown as UsageRecord]);
      return { put, remove };
    };
    await this.records.updateMany([...names, LABELS_KEY], (current) => apply(current.slice(0, names.length) as (UsageRecord | undefined)[], current[names.length]));
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
      // An edited skill's earlier verdict no longer describes it (docs/gate.md, "Effects"): the
      // word stays as the record of what was measured, the label falls back to [unverified].
      if (record.verdict_id !== null) record.verification_stale = true;
      // Also a verdict that arrived from another device (docs/sync.md, "Proof travels").
      markModelVerdictsStale(record);
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

  /**
   * Applies a gate run (gate/gateEffects.ts): its verdict word, its id, fresh again, and any
   * earlier approval gone (an approval is of one verdict). With the run's model key, it is
   * also that model's verdict (other models keep theirs).
   */
  applyVerdict(name: string, verification: Verification, verdictId: string, modelKey?: string): Promise<UsageRecord | null> {
    return this.update(name, (record) => {
      record.verification = verification;
      record.verdict_id = verdictId;
      record.verification_stale = false;
      record.approved_by = null;
      if (modelKey !== undefined) setModelVerdict(record, modelKey, verification, verdictId);
    });
  }

  /**
   * Verdicts another device measured on the bytes this skill now has (docs/sync.md, "Proof
   * travels"): each becomes that model's verdict, marked `measured_on: 'another-device'`. The
   * record's own verdict fields (this device's last run) stay as they are.
   */
  acceptArrivedVerdicts(name: string, verdicts: readonly ArrivedVerdict[]): Promise<UsageRecord | null> {
    return this.update(name, (record) => acceptArrivedVerdicts(record, verdicts));
  }

  /** Marks the verdict stale (true) or current again (false), e.g. after a rollback to verified bytes. */
  setVerificationStale(name: string, stale: boolean): Promise<UsageRecord | null> {
    return this.update(name, (record) => {
      record.verification_stale = stale;
      if (record.verdict_id !== null) setModelVerdictStale(record, record.verdict_id, stale);
    });
  }

  /**
   * The source record after an update from the source (or the rollback of one): with
   * `staleVerdict`, a verdict measured on the earlier bytes no longer describes the skill, as
   * after an edit (docs/install.md, "Updates").
   */
  setInstalledFrom(name: string, installedFrom: InstalledSource | null, staleVerdict: boolean): Promise<UsageRecord | null> {
    return this.update(name, (record, now) => {
      record.installed_from = installedFrom;
      if (!staleVerdict) return;
      record.patch_count += 1;
      record.last_patched_at = now;
      if (record.verdict_id !== null) record.verification_stale = true;
      // Also a verdict that arrived from another device (docs/sync.md, "Proof travels").
      markModelVerdictsStale(record);
    });
  }

  /** The user approved the staged verdict `verdictId` (the gate checks that it is the current one). */
  approveVerdict(name: string, verdictId: string): Promise<UsageRecord | null> {
    return this.update(name, (record) => {
      if (record.verdict_id !== verdictId) return;
      record.approved_by = 'user';
      approveModelVerdict(record, verdictId);
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
    await this.records.updateMany([name, LABELS_KEY], apply);
  }
}
