/**
 * Memory that consolidates before it is full (docs/learning-loop.md, "Memory consolidation"):
 * when MEMORY.md or USER.md passes 80 % of its limit, the background model is asked to merge
 * related entries into fewer, shorter ones. Its answer is never trusted: every name, number and
 * date of the entries it merged must appear in the merged text, the whole must be shorter, and
 * pinned entries are never offered to it; otherwise the change is refused. Plain TypeScript, no
 * DOM: the request runs in the review worker, the check here is pure.
 */
import type { ChatMessage, ChatProvider } from '../providers/provider';
import { ENTRY_DELIMITER, MEMORY_FILE_NAMES, usedChars, type MemoryTarget } from './memoryEntries';

/** A file at or past this share of its limit is consolidated (Hermes consolidates at 80 %). */
export const CONSOLIDATE_AT_PERCENT = 80;
/** Room for the model's answer: the merged entries are shorter than the file. */
export const CONSOLIDATION_MAX_TOKENS = 900;

export const CONSOLIDATION_SYSTEM_V1 = [
  'You tidy an assistant’s memory file. Merge entries that are about the same subject into one shorter entry.',
  'Never drop a fact: every name, number, date, path and identifier of the entries you merge must appear, spelled the same, in the merged entry.',
  'Leave unrelated entries alone. Reply with JSON only: {"merges": [{"entries": [<numbers of 2 or more entries>], "merged": "<the one entry that replaces them>"}]}.',
  'Reply {"merges": []} when nothing is related.',
].join(' ');

export interface ConsolidationMerge {
  /** 0-based positions in the offered (unpinned) entries. */
  entries: number[];
  merged: string;
}

const MONTHS =
  /\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b/giu;
/** Capitalised words that start sentences or instructions, not names. */
const NOT_NAMES = new Set(
  'a an and the this that these those it its he she they we i you user users he’s she’s when if then use uses always never prefers likes wants is are was were has have on in at for of to with from by my our their his her but or so note notes also'.split(' '),
);

/**
 * The facts the mechanical check keeps: numbers (with their separators: 3.11, 2026-12-06,
 * 10:30), month and day names, identifiers (paths, file names, e-mail addresses, words with
 * digits or underscores) and capitalised words that are not sentence openers. Lower case.
 */
export function factsOf(text: string): Set<string> {
  const facts = new Set<string>();
  for (const match of text.matchAll(/\d+(?:[.,:/-]\d+)*/gu)) facts.add(match[0].replace(/[.,:/-]+$/u, ''));
  for (const match of text.matchAll(MONTHS)) facts.add(match[0].toLowerCase());
  for (const match of text.matchAll(/[\p{L}\p{N}_~-]*[./@_:][\p{L}\p{N}_./@~:-]+/gu)) {
    const token = match[0].replace(/[.:]+$/u, '');
    if (/[\p{L}\p{N}]/u.test(token) && /[./@_]/u.test(token)) facts.add(token.toLowerCase());
  }
  for (const match of text.matchAll(/\b\p{Lu}[\p{L}\p{N}'’-]*/gu)) {
    const word = match[0].toLowerCase();
    if (!NOT_NAMES.has(word)) facts.add(word);
  }
  return facts;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `fact` appears in `text` as a whole token (30 is not found in 300). */
function appears(fact: string, text: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(fact)}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

/** The facts of `before` missing from `after` (empty: nothing was lost). */
export function missingFacts(before: readonly string[], after: readonly string[]): string[] {
  const text = after.join('\n');
  const facts = new Set<string>();
  for (const entry of before) for (const fact of factsOf(entry)) facts.add(fact);
  return [...facts].filter((fact) => !appears(fact, text));
}

export function consolidationMessages(target: MemoryTarget, offered: readonly string[]): ChatMessage[] {
  const numbered = offered.map((entry, i) => `${i + 1}. ${entry.replace(/\n/g, ' ')}`).join('\n');
  return [
    { role: 'system', content: CONSOLIDATION_SYSTEM_V1 },
    { role: 'user', content: `The entries of ${MEMORY_FILE_NAMES[target]}:\n${numbered}\n\nMerge the related ones.` },
  ];
}

/** The first JSON object in the answer (fenced or bare). */
function objectIn(answer: string): Record<string, unknown> | null {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/i.exec(answer)?.[1];
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  for (const text of [fenced, start !== -1 && end > start ? answer.slice(start, end + 1) : undefined]) {
    if (text === undefined) continue;
    try {
      const value = JSON.parse(text.trim()) as unknown;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next reading
    }
  }
  return null;
}

/** The merges of an answer, with 1-based entry numbers turned into positions; null when unreadable. */
export function parseMerges(answer: string, offeredCount: number): ConsolidationMerge[] | null {
  const object = objectIn(answer.replace(/<think>[\s\S]*?<\/think>/gi, ''));
  if (!object || !Array.isArray(object.merges)) return null;
  const merges: ConsolidationMerge[] = [];
  for (const item of object.merges as unknown[]) {
    if (item === null || typeof item !== 'object') return null;
    const raw = item as Record<string, unknown>;
    if (!Array.isArray(raw.entries) || typeof raw.merged !== 'string') return null;
    const positions = raw.entries.map((n) => (typeof n === 'number' && Number.isInteger(n) ? n - 1 : -1));
    if (positions.some((p) => p < 0 || p >= offeredCount)) return null;
    merges.push({ entries: [...new Set(positions)].sort((a, b) => a - b), merged: raw.merged.trim() });
  }
  return merges;
}

export type ConsolidationPlan = { ok: true; after: string[] } | { ok: false; reason: string; missing?: string[] };

/**
 * The file after the merges, or why it is refused: a merge of fewer than two entries, an entry in
 * two merges, an empty merged text, a lost fact, or a result that is not shorter. Pinned entries
 * are not in `offered` and keep their places; a merged entry takes the place of its first member.
 */
export function planConsolidation(entries: readonly string[], pinned: ReadonlySet<string>, merges: readonly ConsolidationMerge[]): ConsolidationPlan {
  const offered = entries.filter((entry) => !pinned.has(entry));
  if (merges.length === 0) return { ok: false, reason: 'the background model found no related entries to merge' };
  const used = new Set<number>();
  for (const merge of merges) {
    if (merge.entries.length < 2) return { ok: false, reason: 'a merge must join at least two entries' };
    for (const at of merge.entries) {
      if (used.has(at)) return { ok: false, reason: 'an entry appears in two merges' };
      used.add(at);
    }
  }
  for (const merge of merges) {
    if (!merge.merged) return { ok: false, reason: 'a merged entry is empty' };
    if (merge.merged.includes(ENTRY_DELIMITER.trim() + '\n') || merge.merged.split('\n').some((line) => line.trim() === '§')) {
      return { ok: false, reason: 'a merged entry contains the entry delimiter' };
    }
    const missing = missingFacts(
      merge.entries.map((at) => offered[at]!),
      [merge.merged],
    );
    if (missing.length > 0) return { ok: false, reason: `the merge would drop ${missing.length} fact(s): ${missing.slice(0, 8).join(', ')}`, missing };
  }
  const replaced = new Map<string, string | null>();
  for (const merge of merges) merge.entries.forEach((at, i) => replaced.set(offered[at]!, i === 0 ? merge.merged : null));
  const after: string[] = [];
  for (const entry of entries) {
    if (!replaced.has(entry)) after.push(entry);
    else {
      const merged = replaced.get(entry);
      if (merged) after.push(merged);
    }
  }
  if (usedChars(after) >= usedChars(entries)) return { ok: false, reason: 'the merged entries are not shorter than the originals' };
  return { ok: true, after: [...new Set(after)] };
}

export interface ConsolidationAsk {
  provider: ChatProvider;
  /** The window check of the background model (null: fits). */
  fits: (messages: ChatMessage[], maxTokens: number) => string | null;
  signal?: AbortSignal;
}

/** One request to the background model; the raw answer, or why there is none. */
export async function askForMerges(ask: ConsolidationAsk, target: MemoryTarget, offered: readonly string[]): Promise<{ answer: string } | { error: string }> {
  const messages = consolidationMessages(target, offered);
  const tooLong = ask.fits(messages, CONSOLIDATION_MAX_TOKENS);
  if (tooLong) return { error: tooLong };
  let answer = '';
  try {
    const stream = ask.provider.stream({ messages, maxTokens: CONSOLIDATION_MAX_TOKENS, temperature: 0, signal: ask.signal });
    for await (const part of stream) if (part.type === 'text-delta') answer += part.text;
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
  return { answer };
}

/** A line-level view of the change for Activity: each entry once, marked kept, removed or added. */
export function consolidationDiff(before: readonly string[], after: readonly string[]): { kind: 'same' | 'removed' | 'added'; text: string }[] {
  const kept = new Set(after);
  const old = new Set(before);
  return [
    ...before.map((text) => ({ kind: kept.has(text) ? ('same' as const) : ('removed' as const), text })),
    ...after.filter((text) => !old.has(text)).map((text) => ({ kind: 'added' as const, text })),
  ];
}

/** A consolidation job for the review worker: which file. */
export interface ConsolidationJob {
  runId: string;
  target: MemoryTarget;
}

/**
 * How a consolidation ended: `done` with the file before and after (Activity shows the diff and
 * undoes it), `skipped` when there was nothing to do, `refused` when the answer failed a check.
 */
export type ConsolidationOutcome =
  | { kind: 'done'; target: MemoryTarget; before: string[]; after: string[]; requests: number }
  | { kind: 'skipped'; target: MemoryTarget; reason: string; requests: number }
  | { kind: 'refused'; target: MemoryTarget; reason: string; requests: number; missing?: string[] };

/** Whether a file holding `used` of `limit` characters is past the consolidation mark. */
export function pastConsolidationMark(used: number, limit: number): boolean {
  return limit > 0 && used * 100 > limit * CONSOLIDATE_AT_PERCENT;
}
