/**
 * The stored evidence of a finished run (docs/gate.md, "Evidence"): which bytes and cases were
 * measured (hashes), the split by reference, both arms of every case, the cost, the model and
 * the parameters actually sent, the policy, and the verdict decide() returned. A verdict is
 * about one (skill bytes, cases, model, protocol) tuple; `isSuperseded` tells a caller whether
 * the files changed while the run was going.
 */
import { sha256Hex } from '../skills/ledger';
import { canonicalJson } from './canonicalJson';
import { modelKeyOf } from './modelKey';
import type { RecordedParams } from './replayArm';
import type { RunMeter } from './gatePair';
import type { CaseRef, CaseResult, CheckDiagnostic, EvidencePolicy, ExcludedCase, EvalsFile, Split, SplitCase, Verdict, VerdictRecord } from './types';

export const GATE_PROTOCOL = 'gate.v1' as const;

/** Hash of SKILL.md as stored (its bytes, UTF-8 when given as text). */
export function skillHashOf(markdown: string | Uint8Array): Promise<string> {
  return sha256Hex(typeof markdown === 'string' ? new TextEncoder().encode(markdown) : markdown);
}

/** What `casesHashOf` calls a skill without evals/evals.json. */
export const NO_CASES_HASH = 'none';

/**
 * Hash of the cases: canonical JSON of the parsed file (so re-indenting it changes nothing),
 * the raw text when it does not parse, and `NO_CASES_HASH` when there is no file.
 */
export async function casesHashOf(evalsText: string | null, parsed?: EvalsFile): Promise<string> {
  if (evalsText === null) return NO_CASES_HASH;
  let text = evalsText;
  if (parsed) {
    try {
      text = canonicalJson(parsed);
    } catch {
      // A value without a canonical form (cannot come from JSON.parse): hash the text instead.
    }
  }
  return sha256Hex(new TextEncoder().encode(text));
}

export interface MeasuredHashes {
  skillHash: string;
  casesHash: string;
}

/**
 * True when the skill or its cases changed since the run measured them: the finished result is
 * then stored as superseded and not applied (its verdict is about bytes that no longer exist).
 */
export function isSuperseded(record: Pick<VerdictRecord, 'skillHash' | 'casesHash'>, current: MeasuredHashes): boolean {
  return record.skillHash !== current.skillHash || record.casesHash !== current.casesHash;
}

/** The record with its status set from the current files. */
export function withSupersession(record: VerdictRecord, current: MeasuredHashes): VerdictRecord {
  return { ...record, status: isSuperseded(record, current) ? 'superseded' : 'applied' };
}

const refOf = (testCase: SplitCase): CaseRef => ({ id: testCase.id, key: testCase.key, ...(testCase.independent ? { independent: true as const } : {}) });

export interface RecordParts {
  id: string;
  skill: string;
  skillHash: string;
  casesHash: string;
  skillVersion: number;
  policy: EvidencePolicy;
  provider: string;
  modelId: string;
  params: RecordedParams;
  verdict: Verdict;
  startedAt: number;
  finishedAt: number;
  split?: Split;
  /** Every case left out, with its reason (while reading the file, and duplicates). */
  excluded: ExcludedCase[];
  cases: CaseResult[];
  meter: RunMeter;
  checkDiagnostics: CheckDiagnostic[];
  vsPrevious?: VerdictRecord['vsPrevious'];
}

export function buildVerdictRecord(parts: RecordParts): VerdictRecord {
  const { split, meter } = parts;
  const record: VerdictRecord = {
    id: parts.id,
    skill: parts.skill,
    skillHash: parts.skillHash,
    casesHash: parts.casesHash,
    skillVersion: parts.skillVersion,
    protocol: GATE_PROTOCOL,
    policy: parts.policy,
    model: { provider: parts.provider, id: parts.modelId, params: { ...parts.params } },
    modelKey: modelKeyOf({ provider: parts.provider, id: parts.modelId }),
    context: 'isolated',
    verdict: parts.verdict,
    startedAt: new Date(parts.startedAt).toISOString(),
    finishedAt: new Date(parts.finishedAt).toISOString(),
    split: {
      // Cases left out by the cost cap stay on their side in the stored split.
      dev: [...(split?.dev ?? []), ...(split?.notRun ?? []).filter((c) => c.side === 'dev')].map(refOf),
      holdout: [...(split?.holdout ?? []), ...(split?.notRun ?? []).filter((c) => c.side === 'holdout')].map(refOf),
      excluded: [...parts.excluded],
    },
    cases: parts.cases,
    cost: {
      requests: meter.requests,
      cacheHits: meter.cacheHits,
      promptTokens: meter.promptTokens,
      completionTokens: meter.completionTokens,
      estimated: meter.estimated,
      usd: null,
      ms: Math.max(0, parts.finishedAt - parts.startedAt),
    },
    status: 'applied',
    checkDiagnostics: parts.checkDiagnostics,
  };
  if (parts.vsPrevious) record.vsPrevious = parts.vsPrevious;
  return record;
}
