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
}

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
