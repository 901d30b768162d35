/**
 * A skill's verdicts per model (docs/gate.md, "Per-model verdicts"): a verdict belongs to the
 * model it was measured on, so the usage record keeps the newest verdict of each model, and the
 * index a chat sends shows `[verified]` only for a skill promoted on that chat's model. The keys
 * are the gate's model keys (gate/modelKey.ts); this module only keeps the map in step with
 * the usage record's own verdict fields.
 */
/** The verdict word a usage record keeps (usageStore.ts re-exports it). */
export type Verification = 'unmeasured' | 'staged' | 'promoted' | 'rejected';

/** The part of a usage record this module keeps. */
interface WithModelVerdicts {
  model_verdicts: ModelVerdicts;
}

/** The newest verdict of one model. */
export interface ModelVerdict {
  verification: Verification;
  /** The gate run (IndexedDB `verdicts`) it came from. */
  verdict_id: string;
  /** SKILL.md or evals/ changed since this model's verdict was measured. */
  stale: boolean;
  /** The user approved this staged verdict ([approved], never [verified]). */
  approved?: boolean;
  /**
   * Measured by another device on exactly these bytes and received by sync (docs/sync.md,
   * "Proof travels"): it counts like this device's own verdict, but no local run backs it, so
   * `verdict_id` names no stored run.
   */
  measured_on?: 'another-device';
}

/** A verdict that arrived with a skill's files: the model it was measured on and its word. */
export interface ArrivedVerdict {
  model: string;
  verification: Verification;
}

/** The `verdict_id` of a verdict measured on another device (no run of this device's `verdicts` store). */
export const ANOTHER_DEVICE_VERDICT_ID = 'another-device';

/** What the index needs of one model's verdict (only what can change the label). */
export interface ModelLabel {
  verification: Verification;
  stale?: true;
  approvedBy?: 'user';
}

export type ModelVerdicts = Record<string, ModelVerdict>;

/** A run on `modelKey` was applied: that model's verdict is this one, fresh. */
export function setModelVerdict(record: WithModelVerdicts, modelKey: string, verification: Verification, verdictId: string): void {
  record.model_verdicts = { ...record.model_verdicts, [modelKey]: { verification, verdict_id: verdictId, stale: false } };
}

/**
 * Verdicts another device measured on the bytes just written here: each is that model's
 * verdict, fresh, unless this device holds its own fresh verdict of the model (a local
 * measurement of the same bytes is never replaced by a copy).
 */
export function acceptArrivedVerdicts(record: WithModelVerdicts, verdicts: readonly ArrivedVerdict[]): void {
  const next: ModelVerdicts = { ...record.model_verdicts };
  for (const { model, verification } of verdicts) {
    if (verification === 'unmeasured') continue;
    const own = next[model];
    if (own && !own.stale && own.measured_on === undefined) continue;
    next[model] = { verification, verdict_id: ANOTHER_DEVICE_VERDICT_ID, stale: false, measured_on: 'another-device' };
  }
  record.model_verdicts = next;
}

/**
 * Whether a fresh verdict of `modelKey` already describes the skill's bytes (measured here or
 * on another device): then an automatic gate run of that model has nothing to learn
 * (docs/gate.md, "Triggers").
 */
export function hasFreshVerdict(record: Partial<WithModelVerdicts> | null | undefined, modelKey: string): boolean {
  const entry = record?.model_verdicts?.[modelKey];
  return !!entry && !entry.stale && entry.verification !== 'unmeasured';
}

/** An edit: no model's verdict describes the new bytes. */
export function markModelVerdictsStale(record: WithModelVerdicts): void {
  const next: ModelVerdicts = {};
  for (const [key, entry] of Object.entries(record.model_verdicts ?? {})) next[key] = { ...entry, stale: true };
  record.model_verdicts = next;
}

/** The verdict `verdictId` became stale or fresh again (a rollback to the measured bytes). */
export function setModelVerdictStale(record: WithModelVerdicts, verdictId: string, stale: boolean): void {
  record.model_verdicts = mapEntry(record.model_verdicts, verdictId, (entry) => ({ ...entry, stale }));
}

/** The user approved the staged verdict `verdictId`. */
export function approveModelVerdict(record: WithModelVerdicts, verdictId: string): void {
  record.model_verdicts = mapEntry(record.model_verdicts, verdictId, (entry) => ({ ...entry, approved: true }));
}

function mapEntry(verdicts: ModelVerdicts | undefined, verdictId: string, change: (entry: ModelVerdict) => ModelVerdict): ModelVerdicts {
  const next: ModelVerdicts = {};
  for (const [key, entry] of Object.entries(verdicts ?? {})) next[key] = entry.verdict_id === verdictId ? change(entry) : entry;
  return next;
}

/** The per-model part of a usage label; undefined when no model has a verdict. */
export function modelLabelsOf(record: WithModelVerdicts): Record<string, ModelLabel> | undefined {
  const entries = Object.entries(record.model_verdicts ?? {});
  if (entries.length === 0) return undefined;
  const models: Record<string, ModelLabel> = {};
  for (const [key, entry] of entries) {
    models[key] = { verification: entry.verification, ...(entry.stale ? { stale: true as const } : {}), ...(entry.approved ? { approvedBy: 'user' as const } : {}) };
  }
  return models;
}

/** Whether two labels' per-model parts are equal (key order aside). */
export function sameModelLabels(a: Record<string, ModelLabel> | undefined, b: Record<string, ModelLabel> | undefined): boolean {
  const keysA = Object.keys(a ?? {}).sort();
  const keysB = Object.keys(b ?? {}).sort();
  if (keysA.join('\n') !== keysB.join('\n')) return false;
  return keysA.every((key) => {
    const x = a![key]!;
    const y = b![key]!;
    return x.verification === y.verification && x.stale === y.stale && x.approvedBy === y.approvedBy;
  });
}
