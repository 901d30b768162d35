/**
 * Mechanical checks of an answer (docs/gate-cases.md): what each check type means, whether a
 * check is well formed, how the answer text is cut out of a model reply, and `scoreOutput`,
 * the one place an answer is scored.
 *
 * Regex checks never run here: they go through a `RegexRunner`, which in the app runs them in
 * a short-lived worker under a watchdog (workerRegexRunner.ts), because a pattern with
 * catastrophic backtracking would otherwise hang whatever thread evaluates it. A regex that
 * times out makes the case unscorable for that run; it is never a failed check.
 *
 * Type imports only: the regex check worker bundles this module, so it stays dependency-free.
 */
import type { Check, CheckType } from './types';

export const CHECK_TYPES: readonly CheckType[] = [
  'contains',
  'not_contains',
  'icontains',
  'not_icontains',
  'contains_any',
  'icontains_any',
  'contains_all',
  'icontains_all',
  'regex',
  'not_regex',
  'equals',
  'starts_with',
  'ends_with',
  'is_json',
  'length',
];

/** Checks that pass when something is absent: a case made only of these can rarely show a gain. */
export const NEGATIVE_CHECK_TYPES: ReadonlySet<CheckType> = new Set(['not_contains', 'not_icontains', 'not_regex']);

const LIST_TYPES: ReadonlySet<CheckType> = new Set(['contains_any', 'icontains_any', 'contains_all', 'icontains_all']);
const REGEX_TYPES: ReadonlySet<CheckType> = new Set(['regex', 'not_regex']);

export const MAX_CHECK_VALUE_CHARS = 500;
export const MAX_CHECK_LIST_ITEMS = 20;
export const ALLOWED_REGEX_FLAGS = 'imsu';
export const REGEX_TIMEOUT_MS = 1_000;

/** Length in code points, so an emoji or an astral character counts once. */
export function codePointLength(text: string): number {
  return Array.from(text).length;
}

export function isCheckType(value: unknown): value is CheckType {
  return typeof value === 'string' && (CHECK_TYPES as readonly string[]).includes(value);
}

/**
 * The canonical check type for a name written elsewhere: promptfoo's kebab-case
 * (`not-contains`, `icontains-any`, `starts-with`, `is-json`) and any letter case map onto
 * Knack's snake_case. Null when there is no such check type.
 */
export function normalizeCheckType(name: unknown): CheckType | null {
  if (typeof name !== 'string') return null;
  const canonical = name.trim().toLowerCase().replace(/-/g, '_');
  return isCheckType(canonical) ? canonical : null;
}

export function isRegexCheck(check: Pick<Check, 'type'>): boolean {
  return REGEX_TYPES.has(check.type);
}

export function isListCheck(check: Pick<Check, 'type'>): boolean {
  return LIST_TYPES.has(check.type);
}

// -------------------------------------------------------------------------------------------
// Well-formedness

/** One thing wrong with a check. `field` is relative to the check: type, value, value[2], flags. */
export interface CheckProblem {
  field: 'type' | 'value' | 'flags' | `value[${number}]`;
  message: string;
  /** The regex itself cannot run (bad flags, too long, does not compile): the whole case is excluded. */
  regex?: boolean;
}

const REFUSED_FLAGS: Record<string, string> = {
  g: "flag 'g' is refused: test() with g keeps lastIndex between calls, so a result would depend on the check before it. Remove it; a check needs one match.",
  y: "flag 'y' is refused: it anchors at lastIndex, which test() moves between calls. Remove it and anchor with ^ instead.",
  d: "flag 'd' is refused: it only records match indices, which a check never reads. Remove it.",
};

/** Why a flags string cannot be used, or null. Allowed: a subset of "imsu", each at most once. */
export function regexFlagsProblem(flags: unknown): string | null {
  if (flags === undefined) return null;
  if (typeof flags !== 'string') return 'flags must be a string such as "i" (allowed: i, m, s, u).';
  const seen = new Set<string>();
  for (const flag of flags) {
    if (REFUSED_FLAGS[flag]) return REFUSED_FLAGS[flag];
    if (!ALLOWED_REGEX_FLAGS.includes(flag)) return `unknown flag '${flag}'; allowed flags are i, m, s and u.`;
    if (seen.has(flag)) return `flag '${flag}' is given twice; give each flag once.`;
    seen.add(flag);
  }
  return null;
}

function textValueProblem(value: unknown, label: string): string | null {
  if (typeof value !== 'string') return `${label} must be a string.`;
  if (value.length === 0) return `${label} is empty; write the text the answer must (or must not) contain.`;
  const length = codePointLength(value);
  if (length > MAX_CHECK_VALUE_CHARS) {
    return `${label} is ${length} characters; the limit is ${MAX_CHECK_VALUE_CHARS}. Check for a shorter, distinctive phrase.`;
  }
  return null;
}

function listProblems(value: unknown): CheckProblem[] {
  if (!Array.isArray(value)) {
    return [{ field: 'value', message: 'value must be a list of strings, e.g. ["Pretendard", "Noto Sans KR"].' }];
  }
  if (value.length === 0 || value.length > MAX_CHECK_LIST_ITEMS) {
    return [{ field: 'value', message: `value has ${value.length} items; give 1 to ${MAX_CHECK_LIST_ITEMS} strings.` }];
  }
  const problems: CheckProblem[] = [];
  value.forEach((item, index) => {
    const message = textValueProblem(item, `value[${index}]`);
    if (message) problems.push({ field: `value[${index}]`, message });
  });
  return problems;
}

function regexProblems(check: Record<string, unknown>): CheckProblem[] {
  const flagsMessage = regexFlagsProblem(check.flags);
  if (flagsMessage) return [{ field: 'flags', message: flagsMessage, regex: true }];
  const valueMessage = textValueProblem(check.value, 'value (the pattern)');
  if (valueMessage) return [{ field: 'value', message: valueMessage, regex: true }];
  try {
    new RegExp(String(check.value), (check.flags as string | undefined) ?? '');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return [{ field: 'value', message: `the pattern does not compile (${detail}). Fix it, or use contains/icontains for plain text.`, regex: true }];
  }
  return [];
}

function lengthProblems(value: unknown): CheckProblem[] {
  const fail = (message: string): CheckProblem[] => [{ field: 'value', message }];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('value must be an object such as {"max": 400} or {"min": 20, "max": 400} (code points).');
  }
  const bounds = value as Record<string, unknown>;
  const extra = Object.keys(bounds).filter((key) => key !== 'min' && key !== 'max');
  if (extra.length > 0) return fail(`value has unknown key '${extra[0]}'; use only min and max.`);
  if (bounds.min === undefined && bounds.max === undefined) return fail('value needs min, max or both, e.g. {"max": 400}.');
  for (const key of ['min', 'max'] as const) {
    const bound = bounds[key];
    if (bound !== undefined && !(Number.isInteger(bound) && (bound as number) >= 0)) {
      return fail(`value.${key} must be a whole number of characters (0 or more).`);
    }
  }
  if (typeof bounds.min === 'number' && typeof bounds.max === 'number' && bounds.min > bounds.max) {
    return fail(`value.min (${bounds.min}) is larger than value.max (${bounds.max}); swap them.`);
  }
  return [];
}

/**
 * Everything wrong with one check, in field order; [] when it can be scored. The type must
 * already be canonical (evalCases.normalizeCheckType maps imported spellings).
 */
export function checkProblems(check: unknown): CheckProblem[] {
  if (typeof check !== 'object' || check === null || Array.isArray(check)) {
    return [{ field: 'type', message: 'a check must be an object such as {"type": "icontains", "value": "Pretendard"}.' }];
  }
  const record = check as Record<string, unknown>;
  if (!isCheckType(record.type)) {
    const shown = typeof record.type === 'string' ? `'${record.type}'` : 'missing';
    return [{ field: 'type', message: `type ${shown} is not a check type; use one of ${CHECK_TYPES.join(', ')}.` }];
  }
  const type = record.type;
  if (REGEX_TYPES.has(type)) return regexProblems(record);
  if (record.flags !== undefined) return [{ field: 'flags', message: `flags apply only to regex and not_regex; remove them from this ${type} check.` }];
  if (LIST_TYPES.has(type)) return listProblems(record.value);
  if (type === 'length') return lengthProblems(record.value);
  if (type === 'is_json') {
    return record.value === undefined ? [] : [{ field: 'value', message: 'is_json takes no value (schemas are not supported); remove value.' }];
  }
  const message = textValueProblem(record.value, 'value');
  return message ? [{ field: 'value', message }] : [];
}

// -------------------------------------------------------------------------------------------
// Regex running

export interface RegexJob {
  pattern: string;
  flags: string;
  text: string;
}

export type RegexOutcome = { ok: true; match: boolean } | { ok: false; reason: string; timedOut?: boolean };

/** Runs regex checks somewhere safe. `testMany` (optional) runs a batch in one worker. */
export interface RegexRunner {
  test(pattern: string, flags: string, text: string): Promise<RegexOutcome>;
  testMany?(jobs: readonly RegexJob[]): Promise<RegexOutcome[]>;
}

/**
 * Compiles and tests one regex job. Self-contained (no imports, no outer names) because the
 * check worker runs it, and the Node test runner ships its source text into a worker thread.
 */
export function runRegexJob(job: RegexJob): RegexOutcome {
  for (const flag of job.flags) {
    if ('imsu'.indexOf(flag) < 0) return { ok: false, reason: `regex flag '${flag}' is not allowed (allowed: i, m, s, u)` };
  }
  let expression: RegExp;
  try {
    expression = new RegExp(job.pattern, job.flags);
  } catch (error) {
    return { ok: false, reason: `invalid regex: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { ok: true, match: expression.test(job.text) };
}

// -------------------------------------------------------------------------------------------
// Answer text

const REASONING_BLOCK = /<(think|thinking)>[\s\S]*?<\/\1>/gi;
const UNCLOSED_LEADING_REASONING = /^\s*<(think|thinking)>(?![\s\S]*<\/\1>)[\s\S]*$/i;
// Chat templates that open the reasoning tag in the prompt leave only the closing tag in the reply.
const ORPHAN_REASONING_CLOSE = /^(?:(?!<think(?:ing)?>)[\s\S])*?<\/think(?:ing)?>/i;
const TOOL_CALL_BLOCK = /<tool_call>[\s\S]*?(?:<\/tool_call>|$)/gi;

/**
 * The text checks are run on: the final reply with reasoning blocks (`<think>`, `<thinking>`,
 * also one left open at the start or closed without its opening tag) and text-protocol
 * `<tool_call>` blocks removed, CRLF turned into LF, NFC-normalised and trimmed. Separate
 * reasoning fields of a reply (reasoning_content) are never passed in.
 */
export function answerText(raw: string): string {
  let text = raw.replace(/\r\n?/g, '\n');
  text = text.replace(REASONING_BLOCK, '');
  text = text.replace(UNCLOSED_LEADING_REASONING, '');
  text = text.replace(ORPHAN_REASONING_CLOSE, '');
  text = text.replace(TOOL_CALL_BLOCK, '');
  return text.normalize('NFC').trim();
}

// -------------------------------------------------------------------------------------------
// Scoring

export interface ScoreResult {
  /** Checks passed; 0 when unscorable. */
  passed: number;
  /** Per check, in order; [] when unscorable. */
  checkPass: boolean[];
  /** Why this answer could not be scored (a regex timed out or could not run, a check is malformed). */
  unscorable?: string;
  /** The reason is a regex watchdog timeout (flag "regex_timeout" on the case). */
  timedOut?: boolean;
}

const FENCED_JSON = /^```json[ \t]*\n([\s\S]*?)\n?```$/i;

function isJson(answer: string): boolean {
  const trimmed = answer.trim();
  const fenced = FENCED_JSON.exec(trimmed);
  try {
    JSON.parse(fenced ? fenced[1] : trimmed);
    return true;
  } catch {
    return false;
  }
}

function texts(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map((item) => String(item).normalize('NFC'));
}

/** Pass or fail of one non-regex check on NFC answer text. */
function passesPlain(check: Check, answer: string, lower: string): boolean {
  const values = check.type === 'length' || check.type === 'is_json' ? [] : texts(check.value);
  const included = (value: string) => answer.includes(value);
  const includedFolded = (value: string) => lower.includes(value.toLowerCase());
  switch (check.type) {
    case 'contains': return included(values[0]);
    case 'not_contains': return !included(values[0]);
    case 'icontains': return includedFolded(values[0]);
    case 'not_icontains': return !includedFolded(values[0]);
    case 'contains_any': return values.some(included);
    case 'icontains_any': return values.some(includedFolded);
    case 'contains_all': return values.every(included);
    case 'icontains_all': return values.every(includedFolded);
    case 'equals': return answer.trim() === values[0].trim();
    case 'starts_with': return answer.trim().startsWith(values[0]);
    case 'ends_with': return answer.trim().endsWith(values[0]);
    case 'is_json': return isJson(answer);
    case 'length': {
      const { min, max } = check.value as { min?: number; max?: number };
      const length = codePointLength(answer);
      return (min === undefined || length >= min) && (max === undefined || length <= max);
    }
    default: return false;
  }
}

async function runRegexes(jobs: RegexJob[], runner: RegexRunner): Promise<RegexOutcome[]> {
  if (jobs.length === 0) return [];
  if (runner.testMany) return runner.testMany(jobs);
  return Promise.all(jobs.map((job) => runner.test(job.pattern, job.flags, job.text)));
}

function unscorable(reason: string, timedOut = false): ScoreResult {
  return timedOut ? { passed: 0, checkPass: [], unscorable: reason, timedOut } : { passed: 0, checkPass: [], unscorable: reason };
}

/**
 * Scores an answer (pass it through `answerText` first) against a case's checks. Both the
 * answer and every check value are NFC-normalised; case-insensitive types fold both sides
 * with toLowerCase(). Malformed checks and regexes that could not run make the answer
 * unscorable with a reason instead of counting as failures.
 */
export async function scoreOutput(answer: string, checks: readonly Check[], regexRunner: RegexRunner): Promise<ScoreResult> {
  const text = answer.normalize('NFC');
  for (const [index, check] of checks.entries()) {
    const problem = checkProblems(check)[0];
    if (problem) return unscorable(`checks[${index}].${problem.field}: ${problem.message}`);
  }
  const regexIndexes = checks.flatMap((check, index) => (isRegexCheck(check) ? [index] : []));
  const jobs = regexIndexes.map((index) => ({
    pattern: String(checks[index].value).normalize('NFC'),
    flags: checks[index].flags ?? '',
    text,
  }));
  const outcomes = await runRegexes(jobs, regexRunner);
  const matches = new Map<number, boolean>();
  for (const [position, outcome] of outcomes.entries()) {
    const index = regexIndexes[position];
    if (!outcome.ok) return unscorable(`checks[${index}] (regex ${jobs[position].pattern}): ${outcome.reason}`, outcome.timedOut === true);
    matches.set(index, outcome.match);
  }
  const lower = text.toLowerCase();
  const checkPass = checks.map((check, index) => {
    if (check.type === 'regex') return matches.get(index) === true;
    if (check.type === 'not_regex') return matches.get(index) === false;
    return passesPlain(check, text, lower);
  });
  return { passed: checkPass.filter(Boolean).length, checkPass };
}
