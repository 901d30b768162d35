/**
 * What the tab's UI asks of the verification gate (docs/gate.md), apart from starting and
 * stopping runs, which go through the learning loop (review/learningLoop.ts: `verify`,
 * `cancelVerify`, progress listeners) because runs happen in the review worker.
 *
 * Contract only: `createGateServices` (this file's implementation, built by the composition
 * root, `AppServices.gate()`) reads the verdict store, the skill's evals/evals.json and the
 * gate settings. The Skills view's state calls these methods and nothing else of the gate.
 */
import type { ToolOutcome } from '../tools/toolResult';
import type { Check, EvalCase, EvalsFile, VerdictRecord } from '../gate/types';

export interface GateEvidence {
  /** Newest applied run, or null when the skill was never verified. */
  latest: VerdictRecord | null;
  /** Every run of the skill, newest first (superseded ones included). */
  history: VerdictRecord[];
  /** The latest run is about other bytes than the skill's files now. */
  stale: boolean;
  /** The gate's model now, when it differs from the latest run's model ("verified with X; the gate now uses Y"). */
  gateModelNow: string | null;
  /** Replay noise seen for the gate's model: flips in probes. */
  noise: { probes: number; flips: number } | null;
}

export interface GateCasesFile {
  /** evals/evals.json as stored, or null when the skill has none. */
  text: string | null;
  /** Parsed, or null when absent or unparsable (then `error` says why). */
  file: EvalsFile | null;
  error?: string;
}

export interface GateEstimate {
  /** Requests the run would send (cache hits excluded). */
  requests: number;
  /** Requests answered from the cache. */
  cached: number;
  /** The gate provider's host, for the confirmation text; 'this browser' for web-llm. */
  host: string;
  /** Whether the provider is on this machine (web-llm or loopback). */
  local: boolean;
}

export interface GateServices {
  evidence(skill: string): Promise<GateEvidence>;
  /** The user's Approve on a staged verdict: label [approved], never [verified]. */
  approve(skill: string, recordId: string): Promise<ToolOutcome>;
  readCases(skill: string): Promise<GateCasesFile>;
  /** Writes evals/evals.json as the user (skill_manage write_file: validated, ledgered, scanned). */
  saveCases(skill: string, file: EvalsFile): Promise<ToolOutcome>;
  /** Per-field problems of one case while it is being edited (evalCases validateCaseDraft). */
  validateCase(draft: EvalCase, others: EvalCase[]): Record<string, string>;
  /** "Try these checks" against a pasted answer, with the gate's own scoring and regex watchdog. */
  tryChecks(answer: string, checks: Check[]): Promise<{ pass: boolean; reason?: string }[]>;
  /** What a run would cost now (reads the cache; sends nothing). */
  estimate(skill: string): Promise<GateEstimate>;
}
