/**
 * Checks drafted for a case that came from a chat (docs/gate.md, "Independent cases"): the user's
 * request is real, but a case also needs checks, and writing them is the work that stops users
 * from adding cases. The review model drafts them from the skill and the request; the user
 * confirms or edits them in the case editor before anything is saved.
 *
 * One request, no tools, fitted to the drafting model's window: when the skill is too long, it
 * is cut (the request stays whole). The answer is read leniently (fenced or bare JSON, an object
 * or a bare list) and strictly checked: a check the gate would refuse is dropped, not saved.
 */
import type { ChatMessage, ChatProvider } from '../providers/provider';
import { checkProblems, normalizeCheckType } from './checks';
import type { RequestFits } from './gatePair';
import type { Check } from './types';

/** The drafter's instructions (versioned with the words: a change is a new request). */
export const CHECK_DRAFT_SYSTEM_V1 = [
  'You write the checks of one test case for a skill. A check is a mechanical test of the answer an assistant gives to the request:',
  'it passes for a good answer, one that does what the skill teaches, and fails for a generic or careless one.',
  'Reply with JSON only: {"expected_output": "<one sentence: what a good answer does>", "checks": [<2 to 4 checks>]}.',
  'Each check is {"type": "<type>", "value": <value>}. Types: icontains (a word or phrase a good answer uses, any case),',
  'contains (exact case), not_icontains (a phrase a good answer avoids), icontains_any and icontains_all (a list of phrases),',
  'regex (a pattern; optional "flags" from "imsu"), starts_with, ends_with, is_json (no value), length ({"min": n, "max": n}).',
  'Prefer what the skill requires and a generic answer would miss; never a check every answer passes.',
].join(' ');

/** Most checks kept from one draft; the editor can add more. */
export const MAX_DRAFTED_CHECKS = 6;
/** Room for the drafter's answer. */
export const CHECK_DRAFT_MAX_TOKENS = 400;

export interface DraftSkill {
  name: string;
  markdown: string;
}

/** The drafter's request with the skill's text as given (cut by the caller when it must be). */
export function checkDraftMessages(skill: DraftSkill, prompt: string, cutNote = ''): ChatMessage[] {
  const user = [`Skill: ${skill.name}`, '--- SKILL.md ---', skill.markdown + cutNote, '--- end of SKILL.md ---', 'The request the case replays:', prompt].join('\n');
  return [
    { role: 'system', content: CHECK_DRAFT_SYSTEM_V1 },
    { role: 'user', content: user },
  ];
}

/**
 * The request cut to fit the window: the whole skill when it fits, else the longest head of it
 * that does (binary search on characters, the window check deciding); null when even the
 * request without the skill does not fit.
 */
export function fittedCheckDraftMessages(skill: DraftSkill, prompt: string, fits: RequestFits, maxTokens = CHECK_DRAFT_MAX_TOKENS): ChatMessage[] | null {
  const whole = checkDraftMessages(skill, prompt);
  if (fits(whole, maxTokens) === null) return whole;
  const cut = (chars: number) => checkDraftMessages({ ...skill, markdown: skill.markdown.slice(0, chars) }, prompt, '\n[… the rest of SKILL.md is left out: it does not fit the model’s window]');
  if (fits(cut(0), maxTokens) !== null) return null;
  let low = 0;
  let high = skill.markdown.length;
  while (high - low > 64) {
    const middle = Math.floor((low + high) / 2);
    if (fits(cut(middle), maxTokens) === null) low = middle;
    else high = middle;
  }
  return cut(low);
}

export interface ParsedDraft {
  checks: Check[];
  expectedOutput: string | null;
  /** Checks the answer gave that the gate would refuse (unknown type, bad value, bad regex). */
  dropped: number;
}

/** The first JSON value in the answer: a fenced block, or the span from the first `{` or `[` to its last partner. */
function jsonIn(answer: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(answer)?.[1];
  const candidates = [fenced, answer];
  for (const open of ['{', '[']) {
    const close = open === '{' ? '}' : ']';
    const start = answer.indexOf(open);
    const end = answer.lastIndexOf(close);
    if (start !== -1 && end > start) candidates.push(answer.slice(start, end + 1));
  }
  for (const text of candidates) {
    if (text === undefined) continue;
    try {
      return JSON.parse(text.trim());
    } catch {
      // try the next reading
    }
  }
  return null;
}

/** The usable checks of a drafter's answer, each as the gate would accept it. */
export function parseDraftedChecks(answer: string): ParsedDraft {
  const json = jsonIn(answer);
  const object = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null;
  const list = Array.isArray(json) ? json : Array.isArray(object?.checks) ? (object.checks as unknown[]) : [];
  const expected = typeof object?.expected_output === 'string' && object.expected_output.trim() !== '' ? object.expected_output.trim() : null;
  const checks: Check[] = [];
  let dropped = 0;
  for (const item of list) {
    const check = normalizedCheck(item);
    if (check && checkProblems(check).length === 0 && checks.length < MAX_DRAFTED_CHECKS) checks.push(check);
    else dropped++;
  }
  return { checks, expectedOutput: expected, dropped };
}

/** A check with its type spelled as the gate spells it, and only the fields a check has. */
function normalizedCheck(item: unknown): Check | null {
  if (item === null || typeof item !== 'object') return null;
  const raw = item as Record<string, unknown>;
  const type = normalizeCheckType(raw.type);
  if (!type) return null;
  return { type, ...(raw.value !== undefined ? { value: raw.value } : {}), ...(typeof raw.flags === 'string' ? { flags: raw.flags } : {}) };
}

export type CheckDraft = ({ success: true } & ParsedDraft) | { success: false; error: string };

export interface CheckDrafter {
  provider: ChatProvider;
  /** The drafting model's window check (the same one the gate's requests pass). */
  fits: RequestFits;
  signal?: AbortSignal;
}

/** Asks the model for checks (one request, no tools). A failure is an answer, never a throw. */
export async function draftChecks(drafter: CheckDrafter, skill: DraftSkill, prompt: string): Promise<CheckDraft> {
  const messages = fittedCheckDraftMessages(skill, prompt, drafter.fits);
  if (!messages) return { success: false, error: 'the request alone does not fit the review model’s window' };
  let text = '';
  try {
    const stream = drafter.provider.stream({ messages, maxTokens: CHECK_DRAFT_MAX_TOKENS, temperature: 0, signal: drafter.signal });
    for await (const part of stream) if (part.type === 'text-delta') text += part.text;
  } catch (error) {
    return { success: false, error: error instanceof Error ? error.message : String(error) };
  }
  const parsed = parseDraftedChecks(text);
  if (parsed.checks.length === 0) {
    return { success: false, error: parsed.dropped > 0 ? `the ${parsed.dropped} checks it wrote are not valid checks` : 'its answer held no checks' };
  }
  return { success: true, ...parsed };
}
