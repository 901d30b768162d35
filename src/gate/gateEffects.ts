import { commitSkillChange, type LifecycleFailure, type SkillChange } from '../skills/skillLifecycle';
import type { SkillEngine } from '../skills/skillEngine';
import type { LedgerEntry } from '../skills/ledger';
import { verdictModelKey } from './modelKey';
import type { VerdictRecord } from './types';
import { freshness, settleRun, type MeasuredHashes, type VerdictStore } from './verdictStore';

/**
 * What a finished gate run does to a skill (docs/gate.md, "Effects"): its record is stored,
 * and unless the skill changed while it ran, the usage record takes its verdict word, a
 * verdict change leaves a ledger entry with actor `gate` pointing at the run, and the change
 * goes through the skill lifecycle's commit path — under the skill's lock, with one change
 * event, which drops the cached index and its labels.
 */
export interface GateEffectDeps {
  engine: SkillEngine;
  verdicts: VerdictStore;
  /**
   * The hashes of the skill as it is now (SKILL.md and canonical evals), read under the skill's
   * lock; null when the skill is gone. Compared with the run's to tell a superseded run.
   */
  currentHashes: (skill: string) => Promise<MeasuredHashes | null>;
}

export type ApplyVerdictResult =
  | { status: 'applied'; record: VerdictRecord; changed: boolean; entry: LedgerEntry | null }
  | { status: 'superseded'; record: VerdictRecord };

/** The ledger and change-event action of a verdict change. */
export const VERDICT_ACTION = 'verdict';
export const APPROVE_ACTION = 'approve';

const noFiles = () => ({ before: new Map(), after: new Map(), changes: { writes: [], deletes: [] } });

/**
 * Stores a finished run and applies it. A run whose skill or cases changed while it ran (or
 * whose skill is gone) is stored as `superseded` and changes nothing else. The hashes are
 * compared under the skill's lock, so no write can land between the check and the effects.
 */
export async function applyVerdict(record: VerdictRecord, deps: GateEffectDeps): Promise<ApplyVerdictResult> {
  const { engine } = deps;
  let superseded: VerdictRecord | null = null;
  const committed = await commitSkillChange(engine, record.skill, async (): Promise<SkillChange<{ record: VerdictRecord; changed: boolean }> | LifecycleFailure> => {
    const settled = record.status === 'superseded' ? record : settleRun(record, await deps.currentHashes(record.skill));
    await deps.verdicts.put(settled);
    if (settled.status === 'superseded') {
      superseded = settled;
      return { success: false, error: `The skill '${record.skill}' changed while it was being verified; the run is kept as superseded.` };
    }
    const usage = await engine.usage.find(record.skill);
    const word = settled.verdict.verdict;
    const previous = usage && usage.verification !== 'unmeasured' ? usage.verification : null;
    const changed = previous !== word;
    return {
      skill: record.skill,
      action: VERDICT_ACTION,
      dir: engine.catalog.findByName(record.skill)[0]?.dir ?? '',
      // Only a change of the word is a ledger entry; a re-run that confirms it refreshes the record.
      ...(changed
        ? {
            files: {
              actor: 'gate' as const,
              label: `verdict ${record.skill}`,
              ...noFiles(),
              evidence: { verdict_id: settled.id, from: previous, to: word, code: settled.verdict.code, reason: settled.verdict.reason },
            },
          }
        : {}),
      usage: [{ op: 'applyVerdict', name: record.skill, verification: word, verdictId: settled.id, modelKey: verdictModelKey(settled) }],
      result: { record: settled, changed },
    };
  });
  if (superseded) return { status: 'superseded', record: superseded };
  if (!committed.success) throw new Error(committed.error);
  return { status: 'applied', record: committed.result.record, changed: committed.result.changed, entry: committed.entry };
}

/**
 * The user's **Approve** of a staged skill: the current verdict must be staged and still
 * describe the skill. The label becomes [approved], never [verified]; the ledger entry is the
 * user's.
 */
export async function approveSkill(
  skill: string,
  recordId: string,
  deps: Pick<GateEffectDeps, 'engine' | 'verdicts'>,
): Promise<{ success: true; record: VerdictRecord; entry: LedgerEntry | null } | LifecycleFailure> {
  const { engine } = deps;
  const committed = await commitSkillChange(engine, skill, async (): Promise<SkillChange<VerdictRecord> | LifecycleFailure> => {
    const usage = await engine.usage.find(skill);
    if (usage?.verdict_id !== recordId) return { success: false, error: `Run ${recordId} is not the current verdict of '${skill}'; verify it again first.` };
    if (usage.verification_stale) {
      return { success: false, error: `'${skill}' changed since it was verified, so that verdict is stale. Verify it again before approving.` };
    }
    const approved = await deps.verdicts.approve(skill, recordId);
    if (!approved.success) return approved;
    return {
      skill,
      action: APPROVE_ACTION,
      dir: engine.catalog.findByName(skill)[0]?.dir ?? '',
      files: { actor: 'user', label: `approve ${skill}`, ...noFiles(), evidence: { verdict_id: recordId, code: approved.record.verdict.code } },
      usage: [{ op: 'approveVerdict', name: skill, verdictId: recordId }],
      result: approved.record,
    };
  });
  return committed.success ? { success: true, record: committed.result, entry: committed.entry } : committed;
}

/**
 * Re-derives from the hashes whether the current verdict still describes the skill, and
 * keeps the usage record's stale flag (what the index label reads) in step. For changes that
 * do not go through skill_manage (which marks the verdict stale itself): a rollback, a restore,
 * a write from another tool. Returns the freshness, or null when the gate never ran.
 */
export async function refreshFreshness(skill: string, deps: GateEffectDeps): Promise<'fresh' | 'stale' | null> {
  const { engine } = deps;
  // Set when nothing needs writing: then there is no commit and no change event.
  let settled: { freshness: 'fresh' | 'stale' | null } | null = null;
  const committed = await commitSkillChange(engine, skill, async (): Promise<SkillChange<'fresh' | 'stale'> | LifecycleFailure> => {
    const usage = await engine.usage.find(skill);
    const record = usage?.verdict_id ? await deps.verdicts.get(usage.verdict_id) : null;
    if (!usage || !record) {
      settled = { freshness: null };
      return { success: false, error: `'${skill}' has no verdict.` };
    }
    const current = await deps.currentHashes(skill);
    const now = current ? freshness(record, current) : 'stale';
    if ((now === 'stale') === usage.verification_stale) {
      settled = { freshness: now };
      return { success: false, error: 'The stored freshness is current.' };
    }
    return {
      skill,
      action: VERDICT_ACTION,
      dir: engine.catalog.findByName(skill)[0]?.dir ?? '',
      usage: [{ op: 'setVerificationStale', name: skill, stale: now === 'stale' }],
      result: now,
    };
  });
  if (committed.success) return committed.result;
  if (settled) return (settled as { freshness: 'fresh' | 'stale' | null }).freshness;
  throw new Error(committed.error);
}
