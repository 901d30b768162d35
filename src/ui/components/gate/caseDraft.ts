/**
 * Pure helpers of the case editor: which input a check type needs, converting a check when
 * its type changes, and cleaning a draft before it is validated or saved. No validation rule
 * lives here: the editor asks the `validate` it is given (src/gate's case validator).
 */
import type { Check, CheckType, EvalCase } from '../../../gate/types';

/** Every check type, in the order the editor's select lists them. */
export const CHECK_TYPES: readonly CheckType[] = [
  'icontains',
  'contains',
  'not_icontains',
  'not_contains',
  'icontains_any',
  'contains_any',
  'icontains_all',
  'contains_all',
  'regex',
  'not_regex',
  'equals',
  'starts_with',
  'ends_with',
  'is_json',
  'length',
];

export type ValueKind = 'text' | 'list' | 'pattern' | 'bounds' | 'none';

export function valueKind(type: CheckType): ValueKind {
  if (type.endsWith('_any') || type.endsWith('_all')) return 'list';
  if (type === 'regex' || type === 'not_regex') return 'pattern';
  if (type === 'length') return 'bounds';
  if (type === 'is_json') return 'none';
  return 'text';
}

/** The only flags a check may carry, in the order they are written. */
export const REGEX_FLAGS = [
  { flag: 'i', words: 'ignore case' },
  { flag: 'm', words: 'multiline' },
  { flag: 's', words: 'dot matches newline' },
  { flag: 'u', words: 'unicode' },
] as const;

export function toggleFlag(flags: string | undefined, flag: string, on: boolean): string {
  const set = new Set((flags ?? '').split(''));
  if (on) set.add(flag);
  else set.delete(flag);
  return REGEX_FLAGS.map((item) => item.flag)
    .filter((item) => set.has(item))
    .join('');
}

function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join('\n');
  if (typeof value === 'string') return value;
  return '';
}

/** A list value as the editor's textarea shows it: one item a line. */
export function listText(value: unknown): string {
  return Array.isArray(value) ? value.map(String).join('\n') : asText(value);
}

/** The textarea back to a list. Empty lines stay while typing; `cleanCase` drops them. */
export function textList(text: string): string[] {
  return text.split('\n');
}

/** A check of another type, keeping whatever of the old value still makes sense. */
export function convertCheck(check: Check, type: CheckType): Check {
  const from = valueKind(check.type);
  const to = valueKind(type);
  const next: Check = { type };
  if (to === 'list') next.value = from === 'list' ? check.value : asText(check.value) ? [asText(check.value)] : [''];
  else if (to === 'text' || to === 'pattern') next.value = from === 'list' ? ((check.value as unknown[])[0] ?? '').toString() : asText(check.value);
  else if (to === 'bounds') next.value = from === 'bounds' ? check.value : {};
  if (to === 'pattern' && from === 'pattern' && check.flags) next.flags = check.flags;
  return next;
}

export function newCheck(): Check {
  return { type: 'icontains', value: '' };
}

/** Length bounds from two number inputs; an empty input leaves that bound out. */
export function boundsFrom(bounds: unknown, field: 'min' | 'max', input: string): { min?: number; max?: number } {
  const next = { ...((bounds ?? {}) as { min?: number; max?: number }) };
  const number = input.trim() === '' ? Number.NaN : Number(input);
  if (Number.isFinite(number)) next[field] = number;
  else delete next[field];
  return next;
}

/**
 * The case as it is validated and saved: blank lines of list values and expectations
 * dropped, an empty optional `expected_output` removed. Every other field stays as it was.
 */
export function cleanCase(draft: EvalCase): EvalCase {
  const clean: EvalCase = { ...draft };
  if (Array.isArray(draft.checks)) {
    clean.checks = draft.checks.map((check) =>
      Array.isArray(check.value) ? { ...check, value: check.value.filter((item) => String(item).trim() !== '') } : { ...check },
    );
  }
  for (const field of ['expectations', 'assertions'] as const) {
    const list = draft[field];
    if (Array.isArray(list)) clean[field] = list.filter((item) => String(item).trim() !== '');
  }
  if (clean.expected_output === '') delete clean.expected_output;
  return clean;
}

/** The next free id: one more than the largest numeric id (skill-creator ids are small integers). */
export function nextCaseId(cases: EvalCase[]): number {
  const numbers = cases.map((item) => Number(item.id)).filter((id) => Number.isInteger(id));
  return numbers.length === 0 ? 1 : Math.max(...numbers) + 1;
}

export function newCase(cases: EvalCase[], now: string): EvalCase {
  return { id: nextCaseId(cases), prompt: '', checks: [newCheck()], knack: { origin: 'user', created_at: now } };
}

/** Validator keys as the editor files them: "checks[0].value" and "checks.0.value" are the same field. */
export function normaliseErrorKeys(errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(errors)) {
    if (message) out[key.replace(/\[(\d+)\]/g, '.$1')] = message;
  }
  return out;
}

/** Errors the form has no field for (shown above the case), given the keys it does show. */
export function otherErrors(errors: Record<string, string>, checkCount: number): string[] {
  const shown = new Set(['id', 'prompt', 'expected_output', 'expectations', 'assertions', 'checks']);
  for (let index = 0; index < checkCount; index += 1) {
    for (const suffix of ['', '.type', '.value', '.flags', '.value.min', '.value.max']) shown.add(`checks.${index}${suffix}`);
  }
  return Object.entries(errors)
    .filter(([key]) => !shown.has(key))
    .map(([key, message]) => `${key}: ${message}`);
}

/** The errors of check `index`, whichever of its keys the validator used. */
export function checkErrors(errors: Record<string, string>, index: number): string[] {
  return ['', '.type', '.value', '.value.min', '.value.max', '.flags']
    .map((suffix) => errors[`checks.${index}${suffix}`])
    .filter((message): message is string => Boolean(message));
}
