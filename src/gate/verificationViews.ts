import type { SkillVerificationSource, SkillVerificationView } from '../skills/skillEngine';
import type { UsageStore } from '../skills/usageStore';
import type { VerdictCode, VerdictRecord } from './types';
import type { VerdictStore } from './verdictStore';

/**
 * What leaves the gate besides the index label (docs/gate.md, "What the models see" and
 * "Effects"): the blinded verification skill_view gives the models, and the
 * `evals/verification.json` sidecar an export carries. Both only read a stored record.
 */

/** The sidecar's path is skills/zipExport.ts `VERIFICATION_SIDECAR_FILE`; SKILL.md bytes stay untouched. */
export const VERIFICATION_SIDECAR_FORMAT = 'knack.verification.v1';

/**
 * Reasons that quote held-out results (counts, means, p-values), replaced for the models by a
 * sentence that says what the verdict means and what would settle it. The review agent edits
 * skills: what it learns about held-out cases it can fit, and they stop being held out.
 */
const BLINDED_REASONS: Partial<Record<VerdictCode, string>> = {
  thin_holdout: 'Staged: the development cases improved, but too few held-out cases could confirm it. More cases would settle it.',
  holdout_regressed:
    'Rejected: the skill made answers worse on cases it was not written from. Make the procedure more general rather than fitting particular cases.',
  holdout_ceiling: 'Staged: the development cases improved, but the held-out cases could not confirm it. Harder cases would settle it.',
  weak_holdout: 'Staged: the gain is not yet strong enough to call the skill verified. More cases would settle it.',
  weak_overall: 'Staged: the gain is not yet strong enough to call the skill verified. More cases would settle it.',
  promoted: 'Promoted: the skill improved answers on cases it was not written from.',
  dev_only: 'Staged: the development cases improved, but the held-out cases did not confirm it. Unproven, not rejected.',
};

/** Dev cases whose with-skill answer was scored and failed at least one check. */
function devFailingCaseIds(record: VerdictRecord): (string | number)[] {
  return record.cases.filter((item) => item.side === 'dev' && item.skill.checkPass.includes(false)).map((item) => item.id);
}

/** The verification skill_view returns: never a held-out case id, answer or outcome. */
export function blindedVerification(record: VerdictRecord, stale = false): SkillVerificationView {
  const { verdict } = record;
  return {
    verdict: verdict.verdict,
    code: verdict.code,
    reason: BLINDED_REASONS[verdict.code] ?? verdict.reason,
    devFailingCaseIds: devFailingCaseIds(record),
    stale,
  };
}

/** The sidecar's content (people read it; an import records it as a claim, never as a verdict). */
export interface VerificationSidecar {
  format: typeof VERIFICATION_SIDECAR_FORMAT;
  protocol: VerdictRecord['protocol'];
  verdict: string;
  code: VerdictCode;
  sub: VerdictRecord['verdict']['sub'];
  reason: string;
  numbers: VerdictRecord['verdict']['numbers'];
  model: VerdictRecord['model'];
  policy: VerdictRecord['policy'];
  date: string;
  /** The bytes the verdict is about, so a reader can tell whether it describes these files. */
  skillHash: string;
  casesHash: string;
  approvedBy?: 'user';
}

export function verificationSidecarContent(record: VerdictRecord): VerificationSidecar {
  return {
    format: VERIFICATION_SIDECAR_FORMAT,
    protocol: record.protocol,
    verdict: record.verdict.verdict,
    code: record.verdict.code,
    sub: record.verdict.sub,
    reason: record.verdict.reason,
    numbers: record.verdict.numbers,
    model: record.model,
    policy: record.policy,
    date: record.finishedAt,
    skillHash: record.skillHash,
    casesHash: record.casesHash,
    ...(record.approvedBy ? { approvedBy: record.approvedBy } : {}),
  };
}

/** `evals/verification.json` bytes for an export: pretty JSON with a final newline. */
export function verificationSidecar(record: VerdictRecord): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(verificationSidecarContent(record), null, 2)}\n`);
}

/**
 * The skill tools' window on the gate (`SkillEngine.verification`). The usage record says which
 * run is current and whether it still describes the skill, the same record the index label
 * reads, so skill_view, export and index never disagree.
 */
export function gateVerificationSource(deps: { usage: UsageStore; verdicts: VerdictStore }): SkillVerificationSource {
  const current = async (name: string): Promise<{ record: VerdictRecord; stale: boolean } | null> => {
    const usage = await deps.usage.find(name);
    const record = usage?.verdict_id ? await deps.verdicts.get(usage.verdict_id) : null;
    return usage && record ? { record, stale: usage.verification_stale } : null;
  };
  return {
    async view(name) {
      const found = await current(name);
      return found ? blindedVerification(found.record, found.stale) : null;
    },
    async sidecar(name) {
      const found = await current(name);
      // A stale verdict is about other bytes than the ones exported.
      return found && !found.stale ? verificationSidecar(found.record) : null;
    },
  };
}
