/**
 * The memory file format (docs/learning-loop.md): two plain
 * files whose entries are joined by a line holding only "§". Limits count characters of the
 * joined text, so the delimiters count too.
 */
import { formatCount } from '../tools/toolResult';

export type MemoryTarget = 'memory' | 'user';
export const MEMORY_TARGETS: readonly MemoryTarget[] = ['memory', 'user'];

export const ENTRY_DELIMITER = '\n§\n';

export const MEMORY_FILE_PATHS: Readonly<Record<MemoryTarget, string>> = {
  memory: 'memories/MEMORY.md',
  user: 'memories/USER.md',
};

export const MEMORY_FILE_NAMES: Readonly<Record<MemoryTarget, string>> = {
  memory: 'MEMORY.md',
  user: 'USER.md',
};

/** Characters of the joined text each file may hold. */
export const DEFAULT_MEMORY_LIMITS: Readonly<Record<MemoryTarget, number>> = {
  memory: 2200,
  user: 1375,
};

/** After this many failed consolidations in one turn the tool tells the model to stop. */
export const MAX_CONSOLIDATION_FAILURES_PER_TURN = 3;

/** Width of ambiguous-match previews in error messages. */
export const MATCH_PREVIEW_CHARS = 80;

export function isMemoryTarget(value: unknown): value is MemoryTarget {
  return value === 'memory' || value === 'user';
}

/** The raw pieces between delimiters, trimmed, empty ones dropped (duplicates kept). */
function splitPieces(text: string): string[] {
  return text
    .split(ENTRY_DELIMITER)
    .map((piece) => piece.trim())
    .filter((piece) => piece.length > 0);
}

/** Entries of a file: split on the delimiter, trimmed, empties dropped, exact duplicates removed (first kept). */
export function parseEntries(text: string | null): string[] {
  if (!text) return [];
  return [...new Set(splitPieces(text.replace(/\r\n/g, '\n')))];
}

export function joinEntries(entries: readonly string[]): string {
  return entries.join(ENTRY_DELIMITER);
}

/** Characters the entries take once joined (what the limit measures). */
export function usedChars(entries: readonly string[]): number {
  return joinEntries(entries).length;
}

export function usagePercent(used: number, limit: number): number {
  return limit > 0 ? Math.round((used / limit) * 100) : 100;
}

/** "X/L" with thousands separators, as failures report it. */
export function usageFraction(used: number, limit: number): string {
  return `${formatCount(used)}/${formatCount(limit)}`;
}

/** "p% — X/L chars", as successes and the system-prompt header report it. */
export function usageLabel(used: number, limit: number): string {
  return `${usagePercent(used, limit)}% — ${usageFraction(used, limit)} chars`;
}

/** First 80 characters of an entry for an error message. */
export function previewEntry(entry: string): string {
  return entry.length > MATCH_PREVIEW_CHARS ? `${entry.slice(0, MATCH_PREVIEW_CHARS)}...` : entry;
}

/**
 * Signs that the file was written by something other than this format (a manual edit, a
 * shell append): it does not survive a split and re-join, or one entry alone is larger than
 * the whole store may be. Rewriting such a file from its parsed entries could lose text, so
 * replace, remove and batches refuse and back the file up instead.
 */
export function detectDrift(raw: string | null, limit: number): string | null {
  if (raw === null) return null;
  const text = raw.replace(/\r\n/g, '\n').trim();
  if (text.length === 0) return null;
  const pieces = splitPieces(text);
  if (joinEntries(pieces) !== text) return 'its entries are not separated the way the memory tool writes them';
  const oversized = pieces.find((piece) => piece.length > limit);
  if (oversized) return `one entry is ${formatCount(oversized.length)} characters, more than the whole store's limit of ${formatCount(limit)}`;
  return null;
}

const wordsOf = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 2));

/**
 * The entries a shrunken snapshot keeps (docs/context-window.md, "Memory"): within `maxChars`,
 * entries sharing words with the conversation's request first, then the newest (the files
 * append, so later entries are the more recent); the kept ones stay in file order.
 */
export function mostUsefulEntries(entries: readonly string[], maxChars: number, relevantTo = ''): string[] {
  if (usedChars(entries) <= maxChars) return [...entries];
  const request = wordsOf(relevantTo);
  const score = (entry: string) => [...wordsOf(entry)].filter((word) => request.has(word)).length;
  const order = entries.map((entry, at) => ({ entry, at, score: score(entry) })).sort((a, b) => b.score - a.score || b.at - a.at);
  const kept = new Set<number>();
  let used = 0;
  for (const { entry, at } of order) {
    const cost = entry.length + (kept.size ? ENTRY_DELIMITER.length : 0);
    if (used + cost > maxChars) continue;
    kept.add(at);
    used += cost;
  }
  return entries.filter((_, at) => kept.has(at));
}
