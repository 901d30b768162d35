/**
 * Find-and-replace that tolerates the ways a model misquotes a file (docs/fuzzy-patch.md).
 *
 * Nine strategies are tried in a fixed order, from exact to approximate; the first one that
 * finds anything decides the matches. Before anything is written, guards refuse what would
 * likely corrupt the file: an old_string of only whitespace, several matches without
 * replace_all (the error lists where they are), replace_all on an approximate match, escape
 * drift, and a new_string whose indentation does not fit the matched block. Then `\t`/`\r`
 * unescaping, Unicode preservation and re-indentation shape the replacement, which is spliced
 * in from the end of the text towards the start.
 *
 * Line endings: a CRLF file stays CRLF. Line spans end before a line's `\r`, and a replacement
 * with bare `\n` landing in a CRLF region gets `\r\n` (`matchLineEndings`). This is a
 * deliberate Knack improvement over the Hermes behaviour this module otherwise follows: keep it.
 *
 * Speed matters (≤ 10 ms on a 100,000-character file for a whitespace-only match and for a
 * no-match): the exact strategy searches the raw text and nothing is split into lines until
 * a later strategy needs it; the file's lines, their trimmed forms and the normalised texts
 * are then each built once per call, line scans compare the first line before anything else,
 * and the similarity strategies reject hopeless pairs with cheap bounds before computing a
 * real ratio.
 */
import { FILE_PREVIEW_CHARS } from './constants';

export type MatchStrategy =
  | 'exact'
  | 'line_trimmed'
  | 'whitespace_normalized'
  | 'indentation_flexible'
  | 'escape_normalized'
  | 'trimmed_boundary'
  | 'unicode_normalized'
  | 'block_anchor'
  | 'context_aware';

export interface FuzzyReplaceResult {
  /** The new text, or the original text when nothing was replaced. */
  content: string;
  /** Replacements made; 0 on any error. */
  count: number;
  /** The strategy that matched, or null when nothing was replaced. */
  strategy: MatchStrategy | null;
  /** Null on success; otherwise a message for the model. */
  error: string | null;
}

/** Message when nothing matched; `formatNoMatchHint` keys on its first words. */
export const NO_MATCH_ERROR =
  'Could not find a match for old_string in the file. Re-read the file with skill_view and copy the lines to change exactly, with enough context to be unique.';

/** [start, end) offsets into the file. */
type Span = readonly [number, number];

// Similarity lives in textSimilarity.ts; re-exported for callers and tests of the patch.
export { editOpcodes, matchingBlocks, ratioIfAtLeast, similarityRatio, type EditOpcode, type MatchingBlock } from './textSimilarity';
import { editOpcodes, ratioIfAtLeast } from './textSimilarity';
import { firstNonBlankLine, reindentReplacement, suspiciousIndentation } from './patchIndentation';

export { reindentReplacement, suspiciousIndentation } from './patchIndentation';


// =============================================================================================
// Text helpers

/** Python `str.strip()` and friends: Unicode whitespace, which JavaScript's trim also uses. */
const trim = (s: string): string => s.trim();
const trimStart = (s: string): string => s.trimStart();

/** The file split into lines once, with offsets and lazily built trimmed views. */
class FileLines {
  readonly lines: string[];
  readonly starts: Int32Array;
  private trimmedCache?: string[];
  private leftTrimmedCache?: string[];
  private anchorCache?: string[];

  constructor(text: string) {
    this.lines = text.split('\n');
    this.starts = new Int32Array(this.lines.length);
    let offset = 0;
    for (let i = 0; i < this.lines.length; i++) {
      this.starts[i] = offset;
      offset += this.lines[i].length + 1;
    }
  }

  /** End of line i, before its `\n` and before a CRLF's `\r` (so line endings survive a patch). */
  end(i: number): number {
    const line = this.lines[i];
    return this.starts[i] + line.length - (line.endsWith('\r') ? 1 : 0);
  }

  /** Span of lines [first, first + n). */
  span(first: number, n: number): Span {
    return [this.starts[first], this.end(first + n - 1)];
  }

  get trimmed(): string[] {
    return (this.trimmedCache ??= this.lines.map(trim));
  }

  get leftTrimmed(): string[] {
    return (this.leftTrimmedCache ??= this.lines.map(trimStart));
  }

  /** Trimmed and Unicode-normalised: what block_anchor compares first and last lines with. */
  get anchors(): string[] {
    return (this.anchorCache ??= this.trimmed.map((line) => (UNICODE_CHARS_RE.test(line) ? normalizeUnicode(line) : line)));
  }
}

/** Windows of `pattern.length` lines whose lines equal `pattern` (given a per-line view). */
function findLineWindows(view: string[], pattern: string[], file: FileLines): Span[] {
  const k = pattern.length;
  const spans: Span[] = [];
  const first = pattern[0];
  for (let i = 0; i + k <= view.length; i++) {
    if (view[i] !== first) continue;
    let j = 1;
    while (j < k && view[i + j] === pattern[j]) j++;
    if (j === k) spans.push(file.span(i, k));
  }
  return spans;
}

/**
 * A character-level rewrite of the file (blank runs collapsed, typographic characters
 * replaced). `step` says, for the source character at `i`, how many source characters it
 * consumes and how many output characters it produces. The rewritten text itself is built
 * with a native `replace`; offsets are only mapped back for the spans that matched.
 */
type RewriteStep = (source: string, i: number) => { consumed: number; produced: number };

/**
 * Map spans of rewritten text back to the source in one forward walk: a span starts where the
 * source character producing its first output character starts, and ends where the source
 * character producing its last output character ends (so a match ending in a collapsed blank
 * run covers the whole run, and one ending before it leaves the run alone).
 */
function mapSpansBack(source: string, spans: Span[], step: RewriteStep): Span[] {
  type Query = { k: number; span: number; isEnd: boolean };
  const queries: Query[] = [];
  spans.forEach(([s, e], span) => {
    queries.push({ k: s, span, isEnd: false });
    queries.push({ k: e, span, isEnd: true });
  });
  // At equal offsets, ends first: an end at k belongs to the character before k.
  queries.sort((a, b) => a.k - b.k || Number(b.isEnd) - Number(a.isEnd));
  const starts = new Int32Array(spans.length).fill(-1);
  const ends = new Int32Array(spans.length).fill(-1);
  let q = 0;
  let i = 0;
  let k = 0;
  while (q < queries.length && i < source.length) {
    const { consumed, produced } = step(source, i);
    // Output chars [k, k + produced) come from source [i, i + consumed).
    while (q < queries.length) {
      const query = queries[q];
      if (!query.isEnd && query.k >= k && query.k < k + produced) starts[query.span] = i;
      else if (query.isEnd && query.k > k && query.k <= k + produced) ends[query.span] = i + consumed;
      else if (query.k < k + (query.isEnd ? 1 : 0)) {
        // Empty span or already passed: pin it to the current source position.
        if (query.isEnd) ends[query.span] = i;
        else starts[query.span] = i;
      } else break;
      q++;
    }
    i += consumed;
    k += produced;
  }
  for (; q < queries.length; q++) {
    const query = queries[q];
    if (query.isEnd) ends[query.span] = source.length;
    else starts[query.span] = source.length;
  }
  return spans.map((_, n) => [starts[n], Math.max(starts[n], ends[n])] as Span);
}

const blankRunStep: RewriteStep = (source, i) => {
  const c = source.charCodeAt(i);
  if (c !== 32 && c !== 9) return { consumed: 1, produced: 1 };
  let j = i + 1;
  while (j < source.length && (source.charCodeAt(j) === 32 || source.charCodeAt(j) === 9)) j++;
  return { consumed: j - i, produced: 1 };
};

const unicodeStep: RewriteStep = (source, i) => ({
  consumed: 1,
  produced: UNICODE_REPLACEMENTS.get(source[i])?.length ?? 1,
});

/** A small rewritten text with a per-character map (used on one matched region at a time). */
interface MappedText {
  text: string;
  /** Source offset of the first source character of output char k. */
  from: Int32Array;
  /** Source offset just after the last source character of output char k. */
  to: Int32Array;
}

function buildMappedText(source: string, rewrite: (ch: string) => string): MappedText {
  let text = '';
  const from: number[] = [];
  const to: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const out = rewrite(source[i]);
    text += out;
    for (let k = 0; k < out.length; k++) {
      from.push(i);
      to.push(i + 1);
    }
  }
  return { text, from: Int32Array.from(from), to: Int32Array.from(to) };
}

/** Non-overlapping occurrences, left to right (a match is skipped past as a whole). */
function findAllExact(haystack: string, needle: string): Span[] {
  const spans: Span[] = [];
  if (needle.length === 0) return spans;
  let at = haystack.indexOf(needle);
  while (at !== -1) {
    spans.push([at, at + needle.length]);
    at = haystack.indexOf(needle, at + needle.length);
  }
  return spans;
}

// ---- whitespace normalisation

/** Runs of spaces and tabs become one space; newlines are kept. */
function collapseBlanks(text: string): string {
  return text.replace(/[ \t]+/g, ' ');
}

// ---- Unicode normalisation

/** Typographic characters a model tends to retype in ASCII. */
const UNICODE_REPLACEMENTS: ReadonlyMap<string, string> = new Map([
  ['\u201c', '"'],
  ['\u201d', '"'],
  ['\u2018', "'"],
  ['\u2019', "'"],
  ['\u2014', '--'],
  ['\u2013', '-'],
  ['\u2010', '-'],
  ['\u2011', '-'],
  ['\u2212', '-'],
  ['\u2026', '...'],
  ['\u00a0', ' '],
  ['\u2002', ' '],
  ['\u2003', ' '],
  ['\u2004', ' '],
  ['\u2005', ' '],
  ['\u2006', ' '],
  ['\u2007', ' '],
  ['\u2008', ' '],
  ['\u2009', ' '],
  ['\u200a', ' '],
  ['\u202f', ' '],
  ['\u205f', ' '],
  ['\u3000', ' '],
]);
const UNICODE_CHARS_RE = /[\u201c\u201d\u2018\u2019\u2014\u2013\u2010\u2011\u2212\u2026\u00a0\u2002-\u200a\u202f\u205f\u3000]/;
const UNICODE_CHARS_GLOBAL_RE = new RegExp(UNICODE_CHARS_RE.source, 'g');

function normalizeUnicode(text: string): string {
  return text.replace(UNICODE_CHARS_GLOBAL_RE, (ch) => UNICODE_REPLACEMENTS.get(ch) ?? ch);
}

function normalizeUnicodeMapped(text: string): MappedText {
  return buildMappedText(text, (ch) => UNICODE_REPLACEMENTS.get(ch) ?? ch);
}

// ---- escapes

const LITERAL_ESCAPE_RE = /\\[ntr]/;

function unescapeNewlinesTabs(text: string): string {
  return text.replace(/\\n/g, '\n').replace(/\\t/g, '\t').replace(/\\r/g, '\r');
}

// =============================================================================================
// Strategies

interface MatchContext {
  content: string;
  old: string;
  /** The file split into lines: built on first use, so an exact match never splits the file. */
  readonly file: FileLines;
  patternLines: string[];
}

function matchContext(content: string, old: string): MatchContext {
  let file: FileLines | undefined;
  return {
    content,
    old,
    patternLines: old.split('\n'),
    get file() {
      return (file ??= new FileLines(content));
    },
  };
}

interface StrategyMatch {
  spans: Span[];
  /** Set by unicode_normalized when the match was exact in normalised text (enables preservation). */
  unicodeExact?: boolean;
}

function strategyExact(ctx: MatchContext): StrategyMatch {
  return { spans: findAllExact(ctx.content, ctx.old) };
}

function strategyLineTrimmed(ctx: MatchContext): StrategyMatch {
  return { spans: findLineWindows(ctx.file.trimmed, ctx.patternLines.map(trim), ctx.file) };
}

function strategyWhitespaceNormalized(ctx: MatchContext): StrategyMatch {
  const pattern = collapseBlanks(ctx.old);
  // Nothing to gain when neither side has a run to collapse (exact already failed).
  if (pattern === ctx.old && !/[ \t]{2}|\t/.test(ctx.content)) return { spans: [] };
  // A span ending in a non-blank char maps to that char's end, so the blank run after the match
  // stays in the file (word boundary); a span ending in a collapsed run consumes the whole run.
  const found = findAllExact(collapseBlanks(ctx.content), pattern);
  return { spans: found.length > 0 ? mapSpansBack(ctx.content, found, blankRunStep) : [] };
}

function strategyIndentationFlexible(ctx: MatchContext): StrategyMatch {
  return { spans: findLineWindows(ctx.file.leftTrimmed, ctx.patternLines.map(trimStart), ctx.file) };
}

function strategyEscapeNormalized(ctx: MatchContext): StrategyMatch {
  if (!LITERAL_ESCAPE_RE.test(ctx.old)) return { spans: [] };
  const unescaped = unescapeNewlinesTabs(ctx.old);
  if (unescaped === ctx.old) return { spans: [] };
  return { spans: findAllExact(ctx.content, unescaped) };
}

function strategyTrimmedBoundary(ctx: MatchContext): StrategyMatch {
  const pattern = ctx.patternLines;
  const k = pattern.length;
  const first = trim(pattern[0]);
  const last = trim(pattern[k - 1]);
  const { lines, trimmed } = ctx.file;
  const spans: Span[] = [];
  for (let i = 0; i + k <= lines.length; i++) {
    if (trimmed[i] !== first) continue;
    if (k > 1 && trimmed[i + k - 1] !== last) continue;
    let j = 1;
    while (j < k - 1 && lines[i + j] === pattern[j]) j++;
    if (k <= 2 || j === k - 1) spans.push(ctx.file.span(i, k));
  }
  return { spans };
}

function strategyUnicodeNormalized(ctx: MatchContext): StrategyMatch {
  const contentHas = UNICODE_CHARS_RE.test(ctx.content);
  const oldHas = UNICODE_CHARS_RE.test(ctx.old);
  if (!contentHas && !oldHas) return { spans: [] };
  const pattern = normalizeUnicode(ctx.old);
  const normalized = contentHas ? normalizeUnicode(ctx.content) : ctx.content;
  const exact = findAllExact(normalized, pattern);
  if (exact.length > 0) return { spans: mapSpansBack(ctx.content, exact, unicodeStep), unicodeExact: true };
  // Fallback: line-trimmed comparison on the normalised text.
  const normalizedLines = new FileLines(normalized);
  const windows = findLineWindows(normalizedLines.trimmed, pattern.split('\n').map(trim), normalizedLines);
  return { spans: windows.length > 0 ? mapSpansBack(ctx.content, windows, unicodeStep) : [] };
}

function strategyBlockAnchor(ctx: MatchContext): StrategyMatch {
  const pattern = ctx.patternLines;
  const k = pattern.length;
  if (k < 2) return { spans: [] };
  const anchors = ctx.file.anchors;
  const first = normalizeUnicode(trim(pattern[0]));
  const last = normalizeUnicode(trim(pattern[k - 1]));
  const candidates: number[] = [];
  for (let i = 0; i + k <= anchors.length; i++) {
    if (anchors[i] === first && anchors[i + k - 1] === last) candidates.push(i);
  }
  if (candidates.length === 0) return { spans: [] };
  // One candidate may be loosely similar; several must be clearly similar to pick between.
  const threshold = candidates.length === 1 ? 0.5 : 0.7;
  const patternMiddle = pattern.slice(1, k - 1).map(trim).join('\n');
  const spans: Span[] = [];
  for (const i of candidates) {
    if (k <= 2) {
      spans.push(ctx.file.span(i, k));
      continue;
    }
    const middle = ctx.file.trimmed.slice(i + 1, i + k - 1).join('\n');
    if (ratioIfAtLeast(middle, patternMiddle, threshold) >= threshold) spans.push(ctx.file.span(i, k));
  }
  return { spans };
}

/** Similarity a pattern line needs in context_aware; a blank pattern line needs a blank line. */
const CONTEXT_LINE_SIMILARITY = 0.8;

function contextLineFits(fileLine: string, patternLine: string): boolean {
  if (patternLine === '') return fileLine === '';
  return ratioIfAtLeast(fileLine, patternLine, CONTEXT_LINE_SIMILARITY) >= CONTEXT_LINE_SIMILARITY;
}

/**
 * Sliding windows of the pattern's line count. The first and last non-blank pattern lines are
 * anchors, checked first; then every line must fit, not just half of them: with a half rule a
 * pattern whose middle lines are unrelated to the file still matched, and the patch deleted
 * the real lines between the anchors. Blank pattern lines must meet blank lines for the same
 * reason (a blank must never swallow a real line).
 */
function strategyContextAware(ctx: MatchContext): StrategyMatch {
  const pattern = ctx.patternLines.map(trim);
  const k = pattern.length;
  const firstAnchor = pattern.findIndex((line) => line !== '');
  if (firstAnchor === -1) return { spans: [] };
  let lastAnchor = k - 1;
  while (pattern[lastAnchor] === '') lastAnchor--;
  const trimmed = ctx.file.trimmed;
  const spans: Span[] = [];
  for (let i = 0; i + k <= trimmed.length; i++) {
    if (!contextLineFits(trimmed[i + firstAnchor], pattern[firstAnchor])) continue;
    if (lastAnchor !== firstAnchor && !contextLineFits(trimmed[i + lastAnchor], pattern[lastAnchor])) continue;
    let j = 0;
    while (j < k && (j === firstAnchor || j === lastAnchor || contextLineFits(trimmed[i + j], pattern[j]))) j++;
    if (j === k) spans.push(ctx.file.span(i, k));
  }
  return { spans };
}

const STRATEGIES: ReadonlyArray<[MatchStrategy, (ctx: MatchContext) => StrategyMatch]> = [
  ['exact', strategyExact],
  ['line_trimmed', strategyLineTrimmed],
  ['whitespace_normalized', strategyWhitespaceNormalized],
  ['indentation_flexible', strategyIndentationFlexible],
  ['escape_normalized', strategyEscapeNormalized],
  ['trimmed_boundary', strategyTrimmedBoundary],
  ['unicode_normalized', strategyUnicodeNormalized],
  ['block_anchor', strategyBlockAnchor],
  ['context_aware', strategyContextAware],
];

/** Run the strategies in order; the first with any match wins. Exported for tests and tools. */
export function findMatches(content: string, oldString: string): { strategy: MatchStrategy; spans: Span[]; unicodeExact: boolean } | null {
  const ctx = matchContext(content, oldString);
  for (const [name, run] of STRATEGIES) {
    const found = run(ctx);
    if (found.spans.length > 0) return { strategy: name, spans: found.spans, unicodeExact: found.unicodeExact === true };
  }
  return null;
}

// =============================================================================================
// Shaping the replacement

const DRIFT_SEQUENCES = ["\\'", '\\"'] as const;

function escapeDriftError(oldString: string, newString: string, regions: string[]): string | null {
  for (const seq of DRIFT_SEQUENCES) {
    if (!newString.includes(seq) || !oldString.includes(seq)) continue;
    if (regions.some((region) => region.includes(seq))) continue;
    const quote = seq[1];
    return (
      `Escape-drift detected: old_string and new_string both contain the literal sequence ${seq} (a backslash ` +
      `before ${quote}), but the matched text in the file does not. This is usually an over-escaped tool call. ` +
      `Re-read the file with skill_view and send old_string/new_string with plain ${quote} characters, no backslash.`
    );
  }
  return null;
}

/** Literal `\t` / `\r` in new_string become real characters only where the region has them. */
function unescapeTabsAndReturns(newString: string, region: string): string {
  let out = newString;
  if (region.includes('\t') && out.includes('\\t')) out = out.replace(/\\t/g, '\t');
  if (region.includes('\r') && out.includes('\\r')) out = out.replace(/\\r/g, '\r');
  return out;
}

/**
 * For unicode_normalized matches: apply the edit between normalised old and new onto the
 * original region, so the em dashes, smart quotes and ellipses the edit did not touch keep
 * their original form. Returns null when the region does not normalise to old exactly.
 */
function preserveUnicode(region: string, oldString: string, newString: string): string | null {
  const regionMapped = normalizeUnicodeMapped(region);
  const oldNormalized = normalizeUnicode(oldString);
  if (regionMapped.text !== oldNormalized) return null;
  const newMapped = normalizeUnicodeMapped(newString);
  let out = '';
  let regionCursor = 0;
  let newCursor = 0;
  const copy = (source: string, mapped: MappedText, start: number, end: number, cursor: number): [string, number] => {
    if (end <= start) return ['', cursor];
    const from = Math.max(cursor, mapped.from[start]);
    const to = mapped.to[end - 1];
    return to > from ? [source.slice(from, to), to] : ['', cursor];
  };
  for (const op of editOpcodes(oldNormalized, newMapped.text)) {
    if (op.op === 'equal') {
      const [text, cursor] = copy(region, regionMapped, op.aStart, op.aEnd, regionCursor);
      out += text;
      regionCursor = cursor;
      newCursor = Math.max(newCursor, op.bEnd > op.bStart ? newMapped.to[op.bEnd - 1] : newCursor);
    } else {
      if (op.aEnd > op.aStart) regionCursor = Math.max(regionCursor, regionMapped.to[op.aEnd - 1]);
      const [text, cursor] = copy(newString, newMapped, op.bStart, op.bEnd, newCursor);
      out += text;
      newCursor = cursor;
    }
  }
  return out;
}

/**
 * In a CRLF region or line, bare `\n` in the replacement becomes `\r\n`, so a patch never
 * leaves a file with mixed line endings (a deliberate Knack improvement over Hermes).
 */
function matchLineEndings(replacement: string, content: string, span: Span): string {
  if (!replacement.includes('\n')) return replacement;
  const lineEnd = content.indexOf('\n', span[0]);
  const crlf = lineEnd > 0 && content.charCodeAt(lineEnd - 1) === 13;
  if (!crlf) return replacement;
  return replacement.replace(/\r?\n/g, '\r\n');
}

/** Keep the first of overlapping spans (line-window strategies can overlap). */
function nonOverlapping(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const kept: Span[] = [];
  let lastEnd = -1;
  for (const span of sorted) {
    if (span[0] < lastEnd) continue;
    kept.push(span);
    lastEnd = span[1];
  }
  return kept;
}

// =============================================================================================
// Entry points

/** How many match locations an ambiguity error lists. */
const LISTED_MATCHES = 5;

/** `line 3: "text"` for each span (1-based line of the span's start), at most LISTED_MATCHES. */
function describeMatchLocations(content: string, spans: readonly Span[]): string {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  const described: string[] = [];
  let line = 1;
  let scanned = 0;
  for (const [start] of sorted.slice(0, LISTED_MATCHES)) {
    for (let at = content.indexOf('\n', scanned); at !== -1 && at < start; at = content.indexOf('\n', at + 1)) line++;
    scanned = start;
    const lineStart = content.lastIndexOf('\n', start - 1) + 1;
    const lineEnd = content.indexOf('\n', start);
    const text = content.slice(lineStart, lineEnd === -1 ? content.length : lineEnd).trim();
    described.push(`line ${line}: ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)}`);
  }
  const more = sorted.length - described.length;
  return described.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

function ambiguityError(content: string, spans: readonly Span[], strategy: MatchStrategy): string {
  const where = describeMatchLocations(content, spans);
  const fix =
    strategy === 'exact'
      ? 'Provide more context to make it unique, or use replace_all=True to change every match.'
      : 'Include more of the surrounding lines in old_string so it matches one place only (replace_all only applies to exact matches).';
  return `Found ${spans.length} matches for old_string (${where}). ${fix}`;
}

/**
 * Replace `oldString` with `newString` in `content` (docs/fuzzy-patch.md).
 * Never throws; an error leaves `content` unchanged and `count` 0, and says what to do next.
 */
export function fuzzyFindAndReplace(content: string, oldString: string, newString: string, replaceAll = false): FuzzyReplaceResult {
  const unchanged = (error: string): FuzzyReplaceResult => ({ content, count: 0, strategy: null, error });
  if (oldString === '') return unchanged('old_string cannot be empty');
  if (oldString.trim() === '') {
    return unchanged('old_string is only whitespace: provide non-blank text to match (copy the lines to change from skill_view).');
  }
  if (oldString === newString) return unchanged('old_string and new_string are identical');

  const found = findMatches(content, oldString);
  if (!found) return unchanged(NO_MATCH_ERROR);
  const { strategy } = found;
  if (replaceAll && strategy !== 'exact') {
    // An approximate strategy can match look-alike blocks the model never meant; changing all
    // of them at once is how a patch spreads damage, so only a literal match may be repeated.
    return unchanged(
      `replace_all only applies to exact matches: old_string matched only approximately (strategy ${strategy}). ` +
        'Copy old_string exactly from skill_view to replace every occurrence, or patch one place at a time without replace_all.',
    );
  }
  if (found.spans.length > 1 && !replaceAll) return unchanged(ambiguityError(content, found.spans, strategy));
  const spans = nonOverlapping(found.spans);
  const regions = spans.map(([s, e]) => content.slice(s, e));

  if (strategy !== 'exact') {
    const drift = escapeDriftError(oldString, newString, regions);
    if (drift) return unchanged(drift);
  }

  let result = content;
  for (let n = spans.length - 1; n >= 0; n--) {
    const span = spans[n];
    const region = regions[n];
    let replacement = unescapeTabsAndReturns(newString, region);
    let preserved: string | null = null;
    if (strategy === 'unicode_normalized' && found.unicodeExact) preserved = preserveUnicode(region, oldString, replacement);
    if (preserved !== null) replacement = preserved;
    else if (strategy !== 'exact') {
      const indentation = suspiciousIndentation(region, oldString, replacement);
      if (indentation) return unchanged(indentation);
      replacement = reindentReplacement(region, oldString, replacement);
    }
    replacement = matchLineEndings(replacement, content, span);
    result = result.slice(0, span[0]) + replacement + result.slice(span[1]);
  }
  return { content: result, count: spans.length, strategy, error: null };
}

/** What `patch` shows of the file when nothing matched: the first 500 characters. */
export function filePreview(content: string): string {
  return content.length > FILE_PREVIEW_CHARS ? `${content.slice(0, FILE_PREVIEW_CHARS)}...` : content;
}

/**
 * Sections of `content` that look like old_string's first non-blank line (difflib ratio > 0.3),
 * best first, at most `maxResults`, each with `contextLines` lines around it and numbered
 * `   N| line`. Sections are joined by a `---` line; "" when nothing is similar.
 */
export function findClosestLines(oldString: string, content: string, contextLines = 2, maxResults = 3): string {
  if (!oldString || !content) return '';
  const anchorLine = firstNonBlankLine(oldString);
  if (anchorLine === null) return '';
  const anchor = anchorLine.trim();
  const lines = content.split('\n');
  const scored: Array<{ line: number; score: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const candidate = lines[i].trim();
    if (candidate === '') continue;
    const score = ratioIfAtLeast(anchor, candidate, 0.3);
    if (score > 0.3) scored.push({ line: i, score });
  }
  if (scored.length === 0) return '';
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  const span = oldString.split('\n').length;
  const sections: string[] = [];
  for (const { line } of scored.slice(0, maxResults)) {
    const from = Math.max(0, line - contextLines);
    const to = Math.min(lines.length, line + span + contextLines);
    const numbered: string[] = [];
    for (let i = from; i < to; i++) numbered.push(`${String(i + 1).padStart(4)}| ${lines[i].replace(/\r$/, '')}`);
    sections.push(numbered.join('\n'));
  }
  return sections.join('\n---\n');
}

/**
 * The "did you mean" addition for a failed patch: only for a plain no-match (count 0 and an
 * error starting "Could not find") and only when something similar exists; else "".
 * The caller appends it to the error: `error + formatNoMatchHint(error, count, old, content)`.
 */
export function formatNoMatchHint(error: string | null | undefined, count: number, oldString: string, content: string): string {
  if (count !== 0 || !error || !error.startsWith('Could not find')) return '';
  const sections = findClosestLines(oldString, content);
  if (!sections) return '';
  return `\n\nDid you mean one of these sections?\n${sections}`;
}
