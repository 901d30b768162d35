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
