/**
 * A forged tool's cases, `evals/tool-cases.json` (docs/forged-tools.md, "The form"):
 * `{ "tool": "<tool-name>", "cases": [{ "id", "input", "expect"?, "checks"? }] }`, or a list of
 * such objects when a skill has several tools. A case passes when the tool's output deep-equals
 * `expect` and passes every check (checks read the output as text: a string as it is, any other
 * value as its JSON). Parsing never rewrites the file.
 */
import { parseJsonWithLine, validateToolName, type ToolManifest } from '../skills/forgedTools';
import { valueProblem } from '../skills/jsonSchemaSubset';
import { checkProblems, normalizeCheckType } from './checks';
import type { Check } from './types';

export interface ToolCase {
  id: string | number;
  input: Record<string, unknown>;
  expect?: unknown;
  checks?: Check[];
}

export interface ToolCaseSet {
  tool: string;
  cases: ToolCase[];
}

/** More cases than this cost time on every Check again and say nothing new about a procedure. */
export const MAX_TOOL_CASES = 60;

export type ToolCasesParse = { ok: true; sets: ToolCaseSet[] } | { ok: false; error: string; problems?: string[] };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const SHAPE_HINT =
  'evals/tool-cases.json must be {"tool": "<tool-name>", "cases": [{"id": 1, "input": {...}, "expect": <output>}]} (or a list of such objects, one per tool).';

function normalizeChecks(checks: unknown): unknown {
  if (!Array.isArray(checks)) return checks;
  return checks.map((check) => {
    if (!isRecord(check)) return check;
    const type = normalizeCheckType(check.type);
    return type && type !== check.type ? { ...check, type } : check;
  });
}

function caseProblems(raw: unknown, at: string, seen: Set<string>): string[] {
  if (!isRecord(raw)) return [`${at}: must be an object with id, input and expect or checks`];
  const problems: string[] = [];
  const id = raw.id;
  if (!((typeof id === 'string' && id.trim() !== '') || Number.isInteger(id))) problems.push(`${at}.id: give a number or a non-empty string`);
  else if (seen.has(String(id))) problems.push(`${at}.id: ${JSON.stringify(id)} is used twice; ids must be unique`);
  else seen.add(String(id));
  if (!isRecord(raw.input)) problems.push(`${at}.input: must be an object of the tool's arguments`);
  if (raw.expect === undefined && raw.checks === undefined) problems.push(`${at}: give "expect" (the exact output) or "checks", or both`);
  if (raw.checks !== undefined) {
    if (!Array.isArray(raw.checks) || raw.checks.length === 0) problems.push(`${at}.checks: must be a non-empty list of checks`);
    else
      raw.checks.forEach((check, index) => {
        const problem = checkProblems(check)[0];
        if (problem) problems.push(`${at}.checks[${index}].${problem.field}: ${problem.message}`);
      });
  }
  return problems;
}

function setProblems(raw: unknown, at: string): { set?: ToolCaseSet; problems: string[] } {
  if (!isRecord(raw)) return { problems: [`${at}: ${SHAPE_HINT}`] };
  const nameError = validateToolName(raw.tool);
  if (nameError) return { problems: [`${at}.tool: ${nameError}`] };
  if (!Array.isArray(raw.cases) || raw.cases.length === 0) return { problems: [`${at}.cases: must be a non-empty list`] };
  if (raw.cases.length > MAX_TOOL_CASES) return { problems: [`${at}.cases: ${raw.cases.length} cases; the limit is ${MAX_TOOL_CASES}`] };
  const seen = new Set<string>();
  const cases = raw.cases.map((item) => (isRecord(item) && item.checks !== undefined ? { ...item, checks: normalizeChecks(item.checks) } : item));
  const problems = cases.flatMap((item, index) => caseProblems(item, `${at}.cases[${index}]`, seen));
  return problems.length ? { problems } : { set: { tool: raw.tool as string, cases: cases as ToolCase[] }, problems };
}

/** Parses and checks the file's shape (no tool files needed). */
export function parseToolCasesFile(text: string): ToolCasesParse {
  const parsed = parseJsonWithLine(text, 'evals/tool-cases.json');
  if (!parsed.ok) return parsed;
  const list = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  if (list.length === 0) return { ok: false, error: SHAPE_HINT };
  const sets: ToolCaseSet[] = [];
  const problems: string[] = [];
  const tools = new Set<string>();
  list.forEach((raw, index) => {
    const checked = setProblems(raw, Array.isArray(parsed.value) ? `[${index}]` : 'file');
    problems.push(...checked.problems);
    if (checked.set && tools.has(checked.set.tool)) problems.push(`[${index}].tool: '${checked.set.tool}' has two case lists; merge them`);
    if (checked.set) {
      tools.add(checked.set.tool);
      sets.push(checked.set);
    }
  });
  if (problems.length) return { ok: false, error: `evals/tool-cases.json: ${problems[0]}`, problems };
  return { ok: true, sets };
}

/**
 * Problems of a case set against its tool's manifest: each input must fit `input_schema`,
 * each `expect` must fit `output_schema` when there is one. A case that cannot be a valid
 * call proves nothing about the tool.
 */
export function casesAgainstManifest(set: ToolCaseSet, manifest: ToolManifest): string[] {
  const problems: string[] = [];
  set.cases.forEach((testCase, index) => {
    const input = valueProblem(manifest.input_schema, testCase.input, `cases[${index}].input`);
    if (input) problems.push(`${input} (tools/${set.tool}.json input_schema)`);
    if (manifest.output_schema && testCase.expect !== undefined) {
      const expect = valueProblem(manifest.output_schema, testCase.expect, `cases[${index}].expect`);
      if (expect) problems.push(`${expect} (tools/${set.tool}.json output_schema)`);
    }
  });
  return problems;
}
