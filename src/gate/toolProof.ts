/**
 * Proving a forged tool (docs/forged-tools.md, "Proof"): its cases run in the sandbox, input in
 * and output compared, with **zero model calls**. The cases are split into development and
 * held-out sides by the same function as replays (split.ts, keyed by the input); a passing case
 * counts as "up", a failing one as "down" (ties are impossible), and the verdict comes from the
 * one `decide` every skill verdict comes from, so the three words mean the same for tools.
 *
 * Plain TypeScript: the sandbox and the regex runner are injected, so the proof runs the same
 * in the review worker, the page and the Node unit tests.
 */
import type { SandboxResult } from '../tools/forgedSandbox';
import type { ToolManifest } from '../skills/forgedTools';
import { valueProblem } from '../skills/jsonSchemaSubset';
import { canonicalJson } from './canonicalJson';
import { scoreOutput, type RegexRunner } from './checks';
import { decide } from './decide';
import { splitCases } from './split';
import { buildEvidence } from './summary';
import { MAX_TOOL_CASES, type ToolCase, type ToolCaseSet } from './toolCases';
import type { ArmResult, CaseResult, PolicyThresholds, ScorableCase, Verdict } from './types';

/** Runs a tool's code on one input in the sandbox. */
export type ToolCaller = (code: string, input: unknown) => Promise<SandboxResult>;

export interface ToolCaseOutcome {
  id: string | number;
  side: 'dev' | 'holdout';
  /** null: the sandbox itself failed (not the tool's fault), so the case was not measured. */
  pass: boolean | null;
  input: Record<string, unknown>;
  expect?: unknown;
  /** The output as JSON text, cut to 500 characters; absent when the call failed. */
  actual?: string;
  /** Why the case failed: the sandbox's error, the first differing check, or the output schema. */
  error?: string;
}

export interface ToolProof {
  tool: string;
  verdict: Verdict;
  cases: ToolCaseOutcome[];
  passed: number;
  failed: number;
  /** Cases left out (duplicates of another case's input). */
  excluded: { id: string | number; reason: string }[];
  ms: number;
}

export interface ToolUnderTest {
  code: string;
  manifest: ToolManifest;
  cases: ToolCaseSet;
}

const EXCERPT_CHARS = 500;

/** The text checks read: a string output as it is, any other output as its JSON. */
export function outputText(outputJson: string): string {
  const value: unknown = JSON.parse(outputJson);
  return typeof value === 'string' ? value : outputJson;
}

/** Deep equality of JSON values, independent of key order. */
export function sameJsonValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Pass or fail of one case, with the reason of a failure. Exported for the repair rule's tests. */
export async function judgeCase(testCase: ToolCase, result: SandboxResult, manifest: ToolManifest, regexRunner: RegexRunner): Promise<Pick<ToolCaseOutcome, 'pass' | 'actual' | 'error'>> {
  if (!result.ok) return { pass: result.failure === 'crashed' ? null : false, error: result.error };
  const actual = result.outputJson.length > EXCERPT_CHARS ? `${result.outputJson.slice(0, EXCERPT_CHARS)}…` : result.outputJson;
  const output: unknown = JSON.parse(result.outputJson);
  if (manifest.output_schema) {
    const problem = valueProblem(manifest.output_schema, output, 'output');
    if (problem) return { pass: false, actual, error: `${problem} (output_schema)` };
  }
  if (testCase.expect !== undefined && !sameJsonValue(output, testCase.expect)) {
    return { pass: false, actual, error: `expected ${canonicalJson(testCase.expect)}, got ${actual}` };
  }
  if (testCase.checks?.length) {
    const score = await scoreOutput(outputText(result.outputJson), testCase.checks, regexRunner);
    if (score.unscorable) return { pass: null, actual, error: score.unscorable };
    const failedAt = score.checkPass.indexOf(false);
    if (failedAt >= 0) return { pass: false, actual, error: `check ${failedAt + 1} (${testCase.checks[failedAt]!.type}) failed` };
  }
  return { pass: true, actual };
}

/** A tool case as the split sees it: its question is its input. */
function asScorable(testCase: ToolCase): ScorableCase {
  return { id: testCase.id, prompt: canonicalJson(testCase.input), messages: [], files: [], checks: [], source: false };
}

const arm = (status: ArmResult['status'], passed: number, error?: string): ArmResult => ({
  status,
  passed,
  checkPass: status === 'ok' ? [passed === 1] : [],
  outputRef: '',
  excerpt: '',
  ...(error ? { error } : {}),
});

/**
 * The case as decide() reads it: one check; a pass is up (0 → 1), a fail down (1 → 0), and a
 * sandbox failure unmeasured (never scored against the tool).
 */
function asCaseResult(outcome: ToolCaseOutcome): CaseResult {
  if (outcome.pass === null) {
    return { id: outcome.id, side: outcome.side, checks: 1, base: arm('error', 0, outcome.error), skill: arm('error', 0, outcome.error), outcome: 'unmeasured', flags: [] };
  }
  return {
    id: outcome.id,
    side: outcome.side,
    checks: 1,
    base: arm('ok', outcome.pass ? 0 : 1),
    skill: arm('ok', outcome.pass ? 1 : 0),
    outcome: outcome.pass ? 'up' : 'down',
    flags: [],
  };
}

/** Runs every case of the tool (development first) and decides. No model is involved. */
export async function proveTool(tool: ToolUnderTest, call: ToolCaller, regexRunner: RegexRunner, policy: PolicyThresholds): Promise<ToolProof> {
  const started = performance.now();
  const split = await splitCases(tool.cases.cases.map(asScorable), undefined, MAX_TOOL_CASES);
  const byId = new Map(tool.cases.cases.map((testCase) => [String(testCase.id), testCase]));
  const outcomes: ToolCaseOutcome[] = [];
  for (const planned of [...split.dev, ...split.holdout]) {
    const testCase = byId.get(String(planned.id))!;
    const result = await call(tool.code, testCase.input);
    const judged = await judgeCase(testCase, result, tool.manifest, regexRunner);
    outcomes.push({ id: testCase.id, side: planned.side, input: testCase.input, ...(testCase.expect !== undefined ? { expect: testCase.expect } : {}), ...judged });
  }
  const evidence = buildEvidence({ hasCasesFile: true, split, results: outcomes.map(asCaseResult), providerLabel: 'the sandbox' });
  return {
    tool: tool.cases.tool,
    verdict: decide(evidence, policy),
    cases: outcomes,
    passed: outcomes.filter((outcome) => outcome.pass === true).length,
    failed: outcomes.filter((outcome) => outcome.pass === false).length,
    excluded: split.excluded,
    ms: performance.now() - started,
  };
}

/** The failures a repair may see: development cases only, so the held-out side stays a fair test. */
export function developmentFailures(proof: ToolProof): Pick<ToolCaseOutcome, 'id' | 'input' | 'expect' | 'actual' | 'error'>[] {
  return proof.cases
    .filter((outcome) => outcome.side === 'dev' && outcome.pass === false)
    .map(({ id, input, expect, actual, error }) => ({ id, input, ...(expect !== undefined ? { expect } : {}), ...(actual !== undefined ? { actual } : {}), ...(error ? { error } : {}) }));
}

/**
 * The repair rule: a rewrite is kept only when it passes more cases than the current version,
 * measured on the same cases; equal or fewer and the current version stays.
 */
export function keepRepair(current: Pick<ToolProof, 'passed'>, repaired: Pick<ToolProof, 'passed'>): boolean {
  return repaired.passed > current.passed;
}
