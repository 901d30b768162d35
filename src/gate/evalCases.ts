/**
 * A skill's cases, `evals/evals.json` (docs/gate-cases.md): reading the file, normalising
 * imported spellings, validating a write, and choosing which cases can be scored. The rules of
 * one case, the lint warnings and the editor's draft validation are in caseRules.ts and are
 * re-exported here.
 *
 * The file on disk is never rewritten just because it was read: parsing produces a working
 * copy, and only an edit serialises it again (`serializeEvalsFile`, which keeps unknown fields
 * and key order).
 */
import { sha256Hex } from '../skills/ledger';
import { formatCount } from '../tools/toolResult';
import { checkProblems, isListCheck, normalizeCheckType } from './checks';
import type { CaseMessage, Check, EvalCase, EvalsFile, ExcludedCase, ScorableCase } from './types';
import { caseFieldProblems, checkPathProblem, EVALS_LIMITS, isValidCaseId, lintEvalsFile } from './caseRules';

export { normalizeCheckType } from './checks';
export { EVALS_LIMITS, lintEvalsFile, validateCaseDraft, type CaseDraftResult, type FieldProblem } from './caseRules';

/** Reads a file named by a case, relative to the skill folder: bytes or text, null when missing. */
export type ReadCaseFile = (path: string) => Promise<Uint8Array | string | null>;

export type ParseEvalsResult = { ok: true; file: EvalsFile } | { ok: false; error: string };

// -------------------------------------------------------------------------------------------
// Imported spellings

/**
 * A check with its type made canonical. A kebab-case *_any/_all check given one string is
 * promptfoo's comma-separated list, so it is split the way promptfoo splits it.
 */
function normalizeCheck(check: unknown): unknown {
  if (typeof check !== 'object' || check === null || Array.isArray(check)) return check;
  const record = check as Record<string, unknown>;
  const type = normalizeCheckType(record.type);
  if (!type || type === record.type) return check;
  const copy: Record<string, unknown> = { ...record, type };
  if (isListCheck({ type }) && typeof record.value === 'string' && String(record.type).includes('-')) {
    copy.value = record.value.split(',').map((part) => part.trim()).filter((part) => part.length > 0);
  }
  return copy;
}

/** Renames one key in place, keeping the key order of the object. */
function renameKey(record: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key === from ? to : key, value]));
}

function normalizeCase(raw: Record<string, unknown>): EvalCase {
  let record = raw;
  if (record.expectations === undefined && record.assertions !== undefined) record = renameKey(record, 'assertions', 'expectations');
  if (Array.isArray(record.checks)) record = { ...record, checks: record.checks.map(normalizeCheck) };
  return record as EvalCase;
}

// -------------------------------------------------------------------------------------------
// Reading and writing the file

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads `evals/evals.json`. Only the file's structure can make this fail (not JSON, no `evals`
 * list, an eval that is not an object); a case that cannot be scored is excluded later by
 * `scorableCases`, with its reason. `assertions` is read as `expectations`, and imported check
 * names are made canonical. Unknown fields are kept as they are.
 */
export function parseEvalsFile(text: string): ParseEvalsResult {
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `evals/evals.json is not valid JSON (${detail}). Fix the syntax; see docs/gate-cases.md for an example.` };
  }
  if (!isRecord(data)) {
    return { ok: false, error: 'evals/evals.json must be a JSON object such as {"skill_name": "…", "evals": [ … ]}.' };
  }
  if (!Array.isArray(data.evals)) {
    return { ok: false, error: 'evals/evals.json needs an "evals" list: {"evals": [{"id": 1, "prompt": "…", "checks": [ … ]}]}.' };
  }
  const evals: EvalCase[] = [];
  for (const [index, item] of data.evals.entries()) {
    if (!isRecord(item)) return { ok: false, error: `evals[${index}] must be an object with at least "id" and "prompt".` };
    evals.push(normalizeCase(item));
  }
  return { ok: true, file: { ...data, evals } as EvalsFile };
}

/**
 * The file's text after an edit: every field kept in its original order (JSON objects keep
 * insertion order, except that integer-like keys come first, as in any JSON.stringify).
 */
export function serializeEvalsFile(file: EvalsFile, indent = 2): string {
  return `${JSON.stringify(file, null, indent)}\n`;
}

// -------------------------------------------------------------------------------------------
// Validating a write

export type EvalsValidation =
  | { ok: true; file: EvalsFile; warnings: string[] }
  | { ok: false; error: string; errors: string[] };

export interface EvalsValidationOptions {
  /** Reads a file of the skill folder, to check that the files named by cases exist and are text. */
  readFile?: ReadCaseFile;
  /** The skill the file belongs to, for the skill_name warning. */
  skillName?: string;
}

const ERRORS_LISTED = 12;

async function fileErrors(file: EvalsFile, readFile: ReadCaseFile): Promise<string[]> {
  const errors: string[] = [];
  const seen = new Map<string, string | null>();
  for (const [index, item] of file.evals.entries()) {
    if (!Array.isArray(item.files)) continue;
    for (const [position, raw] of item.files.entries()) {
      const checked = checkPathProblem(raw);
      if (typeof checked === 'string') continue; // already reported as a field problem
      if (!seen.has(checked.path)) {
        const content = await readCaseFile(checked.path, readFile);
        seen.set(checked.path, typeof content === 'string' ? content : null);
      }
      const problem = seen.get(checked.path);
      if (problem) errors.push(`evals[${index}].files[${position}]: ${problem}`);
    }
  }
  return errors;
}

function idErrors(file: EvalsFile): string[] {
  const errors: string[] = [];
  const firstById = new Map<string, number>();
  for (const [index, item] of file.evals.entries()) {
    if (!isValidCaseId(item.id)) continue;
    const key = `${typeof item.id}:${item.id}`;
    const earlier = firstById.get(key);
    if (earlier === undefined) firstById.set(key, index);
    else errors.push(`evals[${index}].id: id ${JSON.stringify(item.id)} is already used by evals[${earlier}]; give each case its own id.`);
  }
  return errors;
}

/**
 * Checks the text of `evals/evals.json` before it is written: structure, the limits (at most
 * 100 cases, prompts of 1–8,000 characters, at most 20 well-formed checks per case, unique
 * ids, case files that exist and are text of at most 100 KB). Errors name the field and say
 * what to do; a valid file comes back with its lint warnings.
 */
export async function validateEvalsFile(text: string, options: EvalsValidationOptions = {}): Promise<EvalsValidation> {
  const parsed = parseEvalsFile(text);
  if (!parsed.ok) return { ok: false, error: parsed.error, errors: [parsed.error] };
  const { file } = parsed;
  const errors: string[] = [];
  if (file.evals.length > EVALS_LIMITS.maxEvals) {
    errors.push(`evals: ${file.evals.length} cases; the limit is ${EVALS_LIMITS.maxEvals} per skill. Remove or merge some.`);
  }
  for (const [index, item] of file.evals.entries()) {
    for (const problem of caseFieldProblems(item)) {
      errors.push(`evals[${index}]${problem.field ? `.${problem.field}` : ''}: ${problem.message}`);
    }
  }
  errors.push(...idErrors(file));
  if (options.readFile) errors.push(...(await fileErrors(file, options.readFile)));
  if (errors.length > 0) {
    const listed = errors.slice(0, ERRORS_LISTED).map((line) => `- ${line}`);
    if (errors.length > ERRORS_LISTED) listed.push(`- … and ${errors.length - ERRORS_LISTED} more`);
    const count = errors.length === 1 ? '1 problem' : `${errors.length} problems`;
    const error = `evals/evals.json was not written: ${count}.\n${listed.join('\n')}\nFix them and write the whole file again.`;
    return { ok: false, error, errors };
  }
  return { ok: true, file, warnings: lintEvalsFile(file, { skillName: options.skillName }) };
}

// -------------------------------------------------------------------------------------------
// Scorable cases

export interface CaseFileText {
  text: string;
  sha256: string;
}

/** Reads and checks one case file: text of at most 100 KB. A string is a problem to report. */
export async function readCaseFile(path: string, readFile: ReadCaseFile): Promise<CaseFileText | string> {
  const data = await readFile(path);
  if (data === null) return `file '${path}' does not exist in the skill folder; write it, or remove it from files.`;
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (bytes.byteLength > EVALS_LIMITS.maxFileBytes) {
    return (
      `file '${path}' is ${formatCount(bytes.byteLength)} bytes; a case file must be text of at most 100 KB ` +
      `(${formatCount(EVALS_LIMITS.maxFileBytes)} bytes). Shorten it, or quote the part that matters in the prompt.`
    );
  }
  let text: string;
  try {
    if (bytes.includes(0)) throw new Error('NUL byte');
    text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return `file '${path}' is not UTF-8 text; a case can only carry text files (its content goes into the prompt).`;
  }
  return { text, sha256: await sha256Hex(bytes) };
}

function shownId(item: EvalCase, index: number): string | number {
  return isValidCaseId(item.id) ? item.id : `evals[${index}]`;
}

function validMessages(item: EvalCase): CaseMessage[] {
  return (item.messages ?? []).map((message) => ({ role: message.role, content: message.content }));
}

/** The checks that can be scored, or the reason the case cannot be. */
function usableChecks(item: EvalCase): { checks: Check[]; ignored: string[] } | string {
  if (!Array.isArray(item.checks) || item.checks.length === 0) {
    return 'no checks: add at least one check (e.g. icontains) so the case can be scored.';
  }
  const kept: Check[] = [];
  const dropped: string[] = [];
  for (const [index, check] of item.checks.entries()) {
    const problem = checkProblems(check)[0];
    if (problem?.regex) return `invalid regex in checks[${index}]: ${problem.message}`;
    if (problem) {
      dropped.push(`checks[${index}].${problem.field}: ${problem.message}`);
      continue;
    }
    const { type, value, flags } = check;
    kept.push(flags === undefined ? (value === undefined ? { type } : { type, value }) : { type, value, flags });
  }
  if (kept.length === 0) return `no valid checks (${dropped[0]})`;
  return { checks: kept, ignored: dropped };
}

// Only the fields a replay uses can keep a case out; a malformed expectation is for people.
const SCORED_FIELDS = /^(id|prompt|messages|files)\b/;

/** The first reason a case's own fields (not its checks or files) keep it from being scored. */
function caseShapeReason(item: EvalCase): string | null {
  const problem = caseFieldProblems(item).find((entry) => SCORED_FIELDS.test(entry.field));
  return problem ? `${problem.field}: ${problem.message}` : null;
}

/**
 * The cases that can be replayed, with their files inlined, and the others, each with the
 * reason it is left out (never scored as 0). Checks that are malformed are left out of a
 * case that has other valid checks; an invalid regex excludes the case. Duplicate questions
 * are not detected here (the split does that).
 */
export async function scorableCases(file: EvalsFile, readFile: ReadCaseFile): Promise<{ cases: ScorableCase[]; excluded: ExcludedCase[] }> {
  const cases: ScorableCase[] = [];
  const excluded: ExcludedCase[] = [];
  const seenIds = new Map<string, number>();
  const fileReads = new Map<string, Promise<CaseFileText | string>>();
  for (const [index, item] of file.evals.entries()) {
    const id = shownId(item, index);
    const exclude = (reason: string) => excluded.push({ id, reason });
    if (index >= EVALS_LIMITS.maxEvals) {
      exclude(`beyond the limit of ${EVALS_LIMITS.maxEvals} cases per skill; remove some cases.`);
      continue;
    }
    const shapeReason = caseShapeReason(item);
    if (shapeReason) {
      exclude(shapeReason);
      continue;
    }
    const idKey = `${typeof item.id}:${item.id}`;
    const earlier = seenIds.get(idKey);
    if (earlier !== undefined) {
      exclude(`id ${JSON.stringify(item.id)} is also used by evals[${earlier}]; give each case its own id.`);
      continue;
    }
    seenIds.set(idKey, index);
    // A near miss measures reach only (reach.ts): replaying it with the skill forced in would
    // measure a load the skill must not get.
    if (item.should_trigger === false) continue;
    const checks = usableChecks(item);
    if (typeof checks === 'string') {
      exclude(checks);
      continue;
    }
    const files = await inlineFiles(item.files ?? [], readFile, fileReads);
    if (typeof files === 'string') {
      exclude(files);
      continue;
    }
    const scorable: ScorableCase = { id: item.id, prompt: item.prompt, messages: validMessages(item), files, checks: checks.checks, source: item.knack?.source === true };
    if (item.knack?.origin === 'chat') scorable.independent = true;
    if (checks.ignored.length > 0) scorable.ignoredChecks = checks.ignored;
    cases.push(scorable);
  }
  return { cases, excluded };
}

async function inlineFiles(
  paths: string[],
  readFile: ReadCaseFile,
  cache: Map<string, Promise<CaseFileText | string>>,
): Promise<ScorableCase['files'] | string> {
  const files: ScorableCase['files'] = [];
  for (const raw of paths) {
    const checked = checkPathProblem(raw);
    if (typeof checked !== 'object') return checked;
    let read = cache.get(checked.path);
    if (!read) {
      read = readCaseFile(checked.path, readFile);
      cache.set(checked.path, read);
    }
    const content = await read;
    if (typeof content === 'string') return content;
    files.push({ path: checked.path, ...content });
  }
  return files;
}
