/**
 * The rules one case of `evals/evals.json` must follow, and the lint warnings about cases that
 * are valid but weak (docs/gate-cases.md). Shared by the file validator behind
 * `skill_manage write_file` (evalCases.validateEvalsFile), by `scorableCases`, and by the case
 * editor, which validates a draft as it is typed (`validateCaseDraft`).
 *
 * Problems name their field relative to the case ("checks[0].value"); whole-file messages
 * prefix it with the case's place ("evals[2].checks[0].value").
 */
import { checkFilePath } from '../skills/validation';
import { formatCount } from '../tools/toolResult';
import { checkProblems, codePointLength, isListCheck, NEGATIVE_CHECK_TYPES } from './checks';
import type { Check, EvalCase, EvalsFile } from './types';

export const EVALS_LIMITS = {
  maxEvals: 100,
  maxPromptChars: 8_000,
  maxChecksPerCase: 20,
  /** 100 KB: a case file is inlined into the prompt of every replay. */
  maxFileBytes: 100 * 1024,
} as const;

export interface FieldProblem {
  /** Relative to the case, e.g. "prompt", "checks[1].flags"; "" for the case as a whole. */
  field: string;
  message: string;
}

const ORIGINS = ['review', 'user', 'import', 'chat'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isValidCaseId(id: unknown): id is string | number {
  return Number.isInteger(id) || (typeof id === 'string' && id.trim() !== '');
}

/** A case file path in canonical form, or why it cannot be used. */
export function checkPathProblem(path: unknown): { path: string } | string {
  if (typeof path !== 'string') return 'each entry of files must be a path string such as "evals/files/sample.md".';
  const checked = checkFilePath(path);
  return checked.ok ? { path: checked.path } : checked.error;
}

function promptProblem(prompt: unknown): string | null {
  if (typeof prompt !== 'string' || prompt.trim() === '') return 'prompt is required: write the request a user would send.';
  const length = codePointLength(prompt);
  if (length > EVALS_LIMITS.maxPromptChars) {
    return `prompt is ${formatCount(length)} characters; the limit is ${formatCount(EVALS_LIMITS.maxPromptChars)}. Shorten it, or move long material into a file listed in files.`;
  }
  return null;
}

function listProblems(value: unknown, field: string, itemProblem: (item: unknown, field: string) => FieldProblem[]): FieldProblem[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return [{ field, message: `${field} must be a list.` }];
  return value.flatMap((item, index) => itemProblem(item, `${field}[${index}]`));
}

function messageProblems(message: unknown, field: string): FieldProblem[] {
  if (!isRecord(message)) return [{ field, message: 'a message must be {"role": "user" | "assistant", "content": "…"}.' }];
  if (message.role !== 'user' && message.role !== 'assistant') {
    return [{ field: `${field}.role`, message: 'role must be "user" or "assistant" (the gate supplies the system message).' }];
  }
  if (typeof message.content !== 'string') return [{ field: `${field}.content`, message: 'content must be a string.' }];
  return [];
}

function checksProblems(checks: unknown): FieldProblem[] {
  if (checks === undefined) return [];
  if (!Array.isArray(checks)) {
    return [{ field: 'checks', message: 'checks must be a list such as [{"type": "icontains", "value": "Pretendard"}].' }];
  }
  if (checks.length > EVALS_LIMITS.maxChecksPerCase) {
    return [{ field: 'checks', message: `${checks.length} checks; the limit is ${EVALS_LIMITS.maxChecksPerCase} per case. Split the case in two.` }];
  }
  return checks.flatMap((check, index) =>
    checkProblems(check).map((problem) => ({ field: `checks[${index}].${problem.field}`, message: problem.message })),
  );
}

function provenanceProblems(knack: unknown): FieldProblem[] {
  if (knack === undefined) return [];
  if (!isRecord(knack)) return [{ field: 'knack', message: 'knack must be an object such as {"origin": "user"}.' }];
  if (knack.origin !== undefined && !ORIGINS.includes(knack.origin as string)) {
    return [{ field: 'knack.origin', message: 'origin must be "review", "user", "import" or "chat".' }];
  }
  if (knack.source !== undefined && typeof knack.source !== 'boolean') {
    return [{ field: 'knack.source', message: 'source must be true or false.' }];
  }
  for (const key of ['session_id', 'session_title', 'run_id', 'created_at']) {
    if (knack[key] !== undefined && typeof knack[key] !== 'string') return [{ field: `knack.${key}`, message: `${key} must be a string.` }];
  }
  return [];
}

function stringList(item: unknown, field: string): FieldProblem[] {
  return typeof item === 'string' ? [] : [{ field, message: `${field} must be a string.` }];
}

function fileEntry(item: unknown, field: string): FieldProblem[] {
  const checked = checkPathProblem(item);
  return typeof checked === 'string' ? [{ field, message: checked }] : [];
}

/** Everything wrong with one case's own fields, in field order (files are not read here). */
export function caseFieldProblems(item: unknown): FieldProblem[] {
  if (!isRecord(item)) return [{ field: '', message: 'a case must be an object with at least "id" and "prompt".' }];
  const problems: FieldProblem[] = [];
  if (!isValidCaseId(item.id)) problems.push({ field: 'id', message: 'id is required: a whole number or a non-empty string, unique in the file (e.g. 1).' });
  const prompt = promptProblem(item.prompt);
  if (prompt) problems.push({ field: 'prompt', message: prompt });
  if (item.expected_output !== undefined && typeof item.expected_output !== 'string') {
    problems.push({ field: 'expected_output', message: 'expected_output must be a string (a description for people; it is not scored).' });
  }
  problems.push(...listProblems(item.expectations, 'expectations', stringList));
  problems.push(...listProblems(item.files, 'files', fileEntry));
  problems.push(...listProblems(item.messages, 'messages', messageProblems));
  problems.push(...checksProblems(item.checks));
  problems.push(...provenanceProblems(item.knack));
  if (item.should_trigger !== undefined && typeof item.should_trigger !== 'boolean') {
    problems.push({ field: 'should_trigger', message: 'should_trigger must be true or false (false: a near miss the skill must not be loaded for).' });
  }
  return problems;
}

// -------------------------------------------------------------------------------------------
// Lint: valid but weak cases

const PROBE_TEXT = 'Zq9';

function matchesAnything(check: Check): boolean {
  try {
    const expression = new RegExp(String(check.value), check.flags ?? '');
    return expression.test('') && expression.test(PROBE_TEXT);
  } catch {
    return false;
  }
}

/** Whether an answer that only repeats the prompt would already pass this positive check. */
function echoPasses(check: Check, prompt: string): boolean {
  const folded = check.type.startsWith('i');
  const haystack = folded ? prompt.normalize('NFC').toLowerCase() : prompt.normalize('NFC');
  const appears = (value: unknown) => {
    const needle = String(value).normalize('NFC');
    return haystack.includes(folded ? needle.toLowerCase() : needle);
  };
  if (isListCheck(check)) {
    const values = check.value as unknown[];
    return check.type.endsWith('_any') ? values.some(appears) : values.every(appears);
  }
  return ['contains', 'icontains', 'starts_with', 'ends_with', 'equals'].includes(check.type) && appears(check.value);
}

/** Warnings about one valid case (the file-level duplicate-prompt warning is in lintEvalsFile). */
export function caseLint(item: EvalCase): FieldProblem[] {
  const checks = Array.isArray(item.checks) ? item.checks : [];
  if (checks.length === 0) {
    return [{ field: 'checks', message: 'no checks: this case is left out of verification until it has at least one.' }];
  }
  const warnings: FieldProblem[] = [];
  const valid = checks.map((check, index) => ({ check, index })).filter(({ check }) => checkProblems(check).length === 0);
  if (valid.length > 0 && valid.every(({ check }) => NEGATIVE_CHECK_TYPES.has(check.type))) {
    warnings.push({
      field: 'checks',
      message: 'every check is negative (not_*): the case can only show a gain when the answer without the skill breaks it. Add a positive check.',
    });
  }
  for (const { check, index } of valid) {
    if ((check.type === 'regex' || check.type === 'not_regex') && matchesAnything(check)) {
      const effect = check.type === 'regex' ? 'always passes' : 'always fails';
      warnings.push({ field: `checks[${index}].value`, message: `the pattern matches the empty string, so this check ${effect}. Make it require some text.` });
    } else if (typeof item.prompt === 'string' && echoPasses(check, item.prompt)) {
      warnings.push({
        field: `checks[${index}].value`,
        message: 'the value appears in the prompt, so an answer that repeats the question passes. Check for something only a good answer contains.',
      });
    }
  }
  return warnings;
}

/** The prompt as compared for the duplicate warning: NFC, whitespace collapsed. */
function promptKey(prompt: unknown): string | null {
  return typeof prompt === 'string' ? prompt.normalize('NFC').trim().replace(/\s+/g, ' ') : null;
}

/** Lint warnings for a whole file, each prefixed with the case's place ("evals[2].checks[0].value: …"). */
export function lintEvalsFile(file: EvalsFile, options: { skillName?: string } = {}): string[] {
  const warnings: string[] = [];
  if (options.skillName && typeof file.skill_name === 'string' && file.skill_name !== options.skillName) {
    warnings.push(`skill_name: '${file.skill_name}' differs from the skill's name '${options.skillName}'; set it to '${options.skillName}'.`);
  }
  const firstByPrompt = new Map<string, number>();
  for (const [index, item] of file.evals.entries()) {
    if (!isRecord(item)) continue;
    for (const warning of caseLint(item)) warnings.push(`evals[${index}].${warning.field}: ${warning.message}`);
    const key = promptKey(item.prompt);
    if (key === null || key === '') continue;
    const earlier = firstByPrompt.get(key);
    if (earlier === undefined) firstByPrompt.set(key, index);
    else warnings.push(`evals[${index}].prompt: same prompt as evals[${earlier}]; vary the request, or remove one (a repeat is not new evidence).`);
  }
  return warnings;
}

// -------------------------------------------------------------------------------------------
// The case editor

export interface CaseDraftResult {
  valid: boolean;
  /** field → first error for it ("prompt", "checks[0].value", …). */
  errors: Record<string, string>;
  /** field → first warning for it; a case with warnings can still be saved. */
  warnings: Record<string, string>;
}

function firstPerField(problems: FieldProblem[]): Record<string, string> {
  const byField: Record<string, string> = {};
  for (const problem of problems) byField[problem.field] ??= problem.message;
  return byField;
}

/**
 * Validates one case as the editor holds it, synchronously, so every keystroke can show its
 * errors beside the field. `others` are the file's other cases (for unique ids and repeated
 * prompts). Files are only checked as paths here; whether they exist is checked on save.
 */
export function validateCaseDraft(draft: unknown, context: { others?: readonly unknown[] } = {}): CaseDraftResult {
  const errors = caseFieldProblems(draft);
  const warnings: FieldProblem[] = [];
  if (isRecord(draft)) {
    const others = (context.others ?? []).filter(isRecord);
    if (isValidCaseId(draft.id) && others.some((other) => other.id === draft.id)) {
      errors.push({ field: 'id', message: `id ${JSON.stringify(draft.id)} is already used by another case; pick another.` });
    }
    if (errors.length === 0) warnings.push(...caseLint(draft as EvalCase));
    const key = promptKey(draft.prompt);
    if (key && others.some((other) => promptKey(other.prompt) === key)) {
      warnings.push({ field: 'prompt', message: 'another case has the same prompt; vary the request (a repeat is not new evidence).' });
    }
  }
  return { valid: errors.length === 0, errors: firstPerField(errors), warnings: firstPerField(warnings) };
}
