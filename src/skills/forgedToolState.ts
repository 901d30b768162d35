/**
 * What Knack remembers about a skill's forged tool (docs/forged-tools.md, "Proof" and "Use"),
 * kept in the skill's usage record (IndexedDB, never in the skill's files, so an imported skill
 * cannot bring its own "proven"): the last proof and the bytes it was about, the user's switch,
 * and how often the chat ran it.
 */
export type ToolVerdictWord = 'promoted' | 'staged' | 'rejected';

/** One case of the last proof, as the skill view shows it (held-out cases included: the view is the user's). */
export interface ToolCaseRecord {
  id: string | number;
  side: 'dev' | 'holdout';
  pass: boolean | null;
  input?: Record<string, unknown>;
  expect?: unknown;
  actual?: string;
  error?: string;
}

export interface ToolHashes {
  code: string;
  manifest: string;
  /** The tool's own case list, canonical JSON. */
  cases: string;
}

export interface ForgedToolState {
  verdict: ToolVerdictWord;
  /** decide()'s code and reason sentence. */
  code: string;
  reason: string;
  hashes: ToolHashes;
  checked_at: string;
  passed: number;
  failed: number;
  cases: ToolCaseRecord[];
  /** The user's switch: false = never offered, whatever the proof says. */
  enabled: boolean;
  run_count: number;
  last_run_at: string | null;
}

export const sameHashes = (a: ToolHashes, b: ToolHashes): boolean => a.code === b.code && a.manifest === b.manifest && a.cases === b.cases;

/** Offered to the chat: proven on exactly these bytes, and not switched off. */
export function isOffered(state: ForgedToolState | undefined, now: ToolHashes): boolean {
  return state !== undefined && state.enabled && state.verdict === 'promoted' && sameHashes(state.hashes, now);
}

/** What the model sees of a tool's proof (skill_view): its verdict and the development failures, never a held-out outcome. */
export interface ForgedToolModelView {
  tool: string;
  verdict: ToolVerdictWord;
  offered: boolean;
  development_failures: Array<Pick<ToolCaseRecord, 'id' | 'input' | 'expect' | 'actual' | 'error'>>;
  hint?: string;
}

const MAX_FAILURES_SHOWN = 5;

/**
 * The blinded view of every proven tool of a skill, for a review writing a repair
 * (docs/forged-tools.md, "Proof"): held-out cases stay a fair test only if their outcomes
 * never reach the writer. `offered` is as of the last proof; a changed file is re-proven.
 */
export function forgedToolsForModel(tools: Record<string, ForgedToolState> | undefined): ForgedToolModelView[] {
  return Object.entries(tools ?? {}).map(([tool, state]) => {
    const failures = state.cases
      .filter((c) => c.side === 'dev' && c.pass === false)
      .slice(0, MAX_FAILURES_SHOWN)
      .map(({ id, input, expect, actual, error }) => ({ id, ...(input ? { input } : {}), ...(expect !== undefined ? { expect } : {}), ...(actual !== undefined ? { actual } : {}), ...(error ? { error } : {}) }));
    const hint =
      state.verdict === 'promoted'
        ? undefined
        : `Fix tools/${tool}.js for these development failures; a repair is kept only if it passes more cases than this version.`;
    return { tool, verdict: state.verdict, offered: state.verdict === 'promoted' && state.enabled, development_failures: failures, ...(hint ? { hint } : {}) };
  });
}

/** One finding of the security scan in a tool's code, as the Tools entry shows it. */
export interface RefusalFinding {
  /** 1-based; 0 for a finding about the whole file. */
  line: number;
  severity: string;
  description: string;
  match: string;
}

/**
 * The security scan's refusal of a tool's code (docs/forged-tools.md, "Refused code"), kept
 * in the skill's usage record so the Tools entry can say why the tool has no code instead of
 * "no cases". Superseded as soon as the code is stored (approved, or written again).
 */
export interface ToolCodeRefusal {
  at: string;
  /** `blocked`: not written. `held`: staged in Pending, written only if the user approves it. */
  decision: 'blocked' | 'held';
  /** The staged write of a held refusal (PendingStore); null for a block. */
  pending_id: string | null;
  /** The scan's verdict of the skill with this code (scanner.ts): `dangerous`, `caution`. */
  verdict: string;
  /** The scan's findings in the tool's code file, the worst first, at most MAX_REFUSAL_FINDINGS. */
  findings: RefusalFinding[];
}

export const MAX_REFUSAL_FINDINGS = 3;

const SEVERITY_ORDER = ['critical', 'high', 'medium', 'low'];

/** The refusal of `codePath` (a path inside the skill) from the scan's verdict and findings. */
export function codeRefusal(
  scan: { verdict: string; findings: ReadonlyArray<RefusalFinding & { file: string }> },
  codePath: string,
  decision: ToolCodeRefusal['decision'],
  pendingId: string | null,
  at: string,
): ToolCodeRefusal {
  const rank = (severity: string) => (SEVERITY_ORDER.includes(severity) ? SEVERITY_ORDER.indexOf(severity) : SEVERITY_ORDER.length);
  const findings = scan.findings
    .filter((finding) => finding.file === codePath)
    .sort((a, b) => rank(a.severity) - rank(b.severity) || a.line - b.line)
    .slice(0, MAX_REFUSAL_FINDINGS)
    .map(({ line, severity, description, match }) => ({ line, severity, description, match }));
  return { at, decision, pending_id: pendingId, verdict: scan.verdict, findings };
}

/** What the Tools entry knows of one tool when it writes its Proof line. */
export interface ToolProofFacts {
  state: ForgedToolState | null;
  /** The proof is about the bytes stored now. */
  fresh: boolean;
  caseCount: number;
  /** The scan's refusal of the code, when the tool has no code stored. */
  refusal?: ToolCodeRefusal;
  /** A held refusal whose staged write is still in Pending. */
  refusalPending?: boolean;
}

/** The Proof line of a tool's entry in the skill view: its verdict, or why there is none. */
export function toolProofText(facts: ToolProofFacts): string {
  if (facts.refusal) return 'not proven: the security scan refused its code';
  if (!facts.state) return facts.caseCount === 0 ? 'not proven: no cases' : 'not proven yet';
  return facts.fresh ? facts.state.verdict : `${facts.state.verdict} (files changed since; checking again)`;
}

/**
 * Why the scan refused a tool's code, in the user's words: the file, the verdict and the
 * findings, and what the user can do (a held write waits in Pending).
 */
export function refusalText(tool: string, refusal: ToolCodeRefusal, pending: boolean): string {
  const findings = refusal.findings.map((finding) => `${finding.line > 0 ? `line ${finding.line}` : 'the file'}: ${finding.description} (“${finding.match}”)`);
  const why = findings.length > 0 ? `: ${findings.join('; ')}` : '';
  const what = refusal.decision === 'held' && pending ? 'It waits for your confirmation in Pending.' : 'Nothing was written.';
  return `The security scan refused tools/${tool}.js (${refusal.verdict} verdict)${why}. ${what}`;
}
