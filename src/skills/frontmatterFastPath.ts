/**
 * The fast path for plain frontmatter (docs/frontmatter.md, "Fast path"): most SKILL.md files
 * hold a handful of `key: value` lines, sometimes a nested `metadata:` map and a `[a, b]` or
 * `- item` list. Reading those with a small line reader is several times faster than building
 * a `yaml` Document, and gives exactly the value the `yaml` library gives with
 * FRONTMATTER_YAML_OPTIONS (tests/unit/frontmatterFastPath.test.ts compares the two over many
 * shapes).
 *
 * The reader accepts only a narrow grammar and returns `null` for anything else, so the caller
 * falls back to the `yaml` library, which also produces every error message:
 * - lines are block-mapping entries `key: value` / `key:` (spaces for indentation, no tabs
 *   anywhere), full-line `# comments` and blank lines; `\r\n` line ends;
 * - keys are simple words (letters, digits, `_`, `-`, `.`), never repeated in one mapping;
 * - a `key:` with nothing after it holds a nested mapping or a `- item` list on the deeper
 *   lines below it, or no value;
 * - values are one-line plain scalars without `: `, ` #` or a leading indicator; quoted
 *   scalars without escapes (`"…"` with no `\` or `"`, `'…'` with no `'`); or a flow list
 *   `[a, b]` of such scalars with no `,[]{}:#` in plain items.
 * Plain scalars are typed as frontmatterSchema.ts types them: `true`/`false`, numbers whose
 * text is exactly what was written, `null`/`~`/nothing as null, all else text.
 */
import { CANONICAL_NUMBER } from './frontmatterSchema';

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Keys the core schema would not read as text, or that are special on a JS object. */
const RESERVED_KEYS = new Set(['true', 'false', 'null', 'Null', 'NULL', '__proto__']);
const NULL_TEXT = /^(?:~|null|Null|NULL)$/;
/** First characters that make a value something other than a simple plain scalar. */
const INDICATORS = new Set(['-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', "'", '"', '%', '@', '`']);

interface Line {
  indent: number;
  /** The line without indentation and without a trailing `\r` or spaces. */
  text: string;
}

/** Characters the fast path does not reason about: controls, tabs, BOM, line separators. */
function hasUnusualCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0xfeff || c === 0x2028 || c === 0x2029 || c === 0xfffe || c === 0xffff) {
      return true;
    }
  }
  return false;
}

function typedPlain(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (NULL_TEXT.test(text)) return null;
  if (CANONICAL_NUMBER.test(text)) {
    const value = Number(text);
    return String(value) === text ? value : text;
  }
  return text;
}

const NOT_SIMPLE = Symbol('not simple');

/** A one-line block-context scalar, or NOT_SIMPLE. */
function readScalar(text: string): unknown {
  const first = text[0];
  if (first === '"' || first === "'") {
    if (text.length < 2 || text[text.length - 1] !== first) return NOT_SIMPLE;
    const inner = text.slice(1, -1);
    if (inner.includes(first) || (first === '"' && inner.includes('\\'))) return NOT_SIMPLE;
    return inner;
  }
  if (INDICATORS.has(first)) {
    // `-3` is a number; any other leading `-` (`- x`, `-x`, `---`) is left to the library.
    return first === '-' && CANONICAL_NUMBER.test(text) ? typedPlain(text) : NOT_SIMPLE;
  }
  if (text.endsWith(':') || text.includes(': ') || text.includes(' #')) return NOT_SIMPLE;
  return typedPlain(text);
}

/** `[a, b]` with simple items, or NOT_SIMPLE. */
function readFlowList(text: string): unknown {
  if (text[text.length - 1] !== ']') return NOT_SIMPLE;
  const inner = text.slice(1, -1).trim();
  if (inner === '') return [];
  const items: unknown[] = [];
  for (const part of inner.split(',')) {
    const item = part.trim();
    if (item === '') return NOT_SIMPLE;
    const first = item[0];
    if (first === '"' || first === "'") {
      const value = readScalar(item);
      if (value === NOT_SIMPLE) return NOT_SIMPLE;
      items.push(value);
      continue;
    }
    if (/[[\]{}:#"']/.test(item) || INDICATORS.has(first)) {
      if (!(first === '-' && CANONICAL_NUMBER.test(item))) return NOT_SIMPLE;
    }
    items.push(typedPlain(item));
  }
  return items;
}

function readValue(text: string): unknown {
  return text[0] === '[' ? readFlowList(text) : readScalar(text);
}

function splitLines(raw: string): Line[] | null {
  const lines: Line[] = [];
  for (const rawLine of raw.split('\n')) {
    let end = rawLine.length;
    if (end > 0 && rawLine.charCodeAt(end - 1) === 13) end--;
    while (end > 0 && rawLine.charCodeAt(end - 1) === 32) end--;
    let indent = 0;
    while (indent < end && rawLine.charCodeAt(indent) === 32) indent++;
    if (indent === end) continue;
    const text = rawLine.slice(indent, end);
    if (hasUnusualCharacter(text)) return null;
    if (text[0] === '#') continue;
    lines.push({ indent, text });
  }
  return lines;
}

interface Cursor {
  lines: Line[];
  at: number;
}

/** The `- item` lines of a block list at `indent`, or NOT_SIMPLE. */
function readBlockList(cursor: Cursor, indent: number): unknown {
  const items: unknown[] = [];
  while (cursor.at < cursor.lines.length) {
    const line = cursor.lines[cursor.at];
    if (line.indent < indent) break;
    if (line.indent > indent || !line.text.startsWith('- ')) {
      // A deeper line continues an item or nests: not simple. A sibling key ends the list
      // only when the list is indented deeper than its key (checked by the caller).
      if (line.indent === indent && !line.text.startsWith('-')) break;
      return NOT_SIMPLE;
    }
    const itemText = line.text.slice(2).trimStart();
    if (itemText === '' || itemText[0] === '[') return NOT_SIMPLE;
    const value = readScalar(itemText);
    if (value === NOT_SIMPLE) return NOT_SIMPLE;
    items.push(value);
    cursor.at++;
  }
  return items;
}

/** A block mapping whose keys sit at `indent`; NOT_SIMPLE when anything is outside the grammar. */
function readMapping(cursor: Cursor, indent: number): Record<string, unknown> | typeof NOT_SIMPLE {
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  while (cursor.at < cursor.lines.length) {
    const line = cursor.lines[cursor.at];
    if (line.indent < indent) break;
    if (line.indent > indent) return NOT_SIMPLE;
    const colon = line.text.indexOf(':');
    if (colon <= 0) return NOT_SIMPLE;
    const key = line.text.slice(0, colon);
    if (!KEY.test(key) || RESERVED_KEYS.has(key) || seen.has(key)) return NOT_SIMPLE;
    seen.add(key);
    cursor.at++;
    const rest = line.text.slice(colon + 1);
    if (rest !== '') {
      if (rest[0] !== ' ') return NOT_SIMPLE;
      const valueText = rest.trimStart();
      const value = readValue(valueText);
      if (value === NOT_SIMPLE) return NOT_SIMPLE;
      // A deeper line after a one-line value would continue it (multi-line plain scalar).
      const next = cursor.lines[cursor.at];
      if (next && next.indent > indent) return NOT_SIMPLE;
      out[key] = value;
      continue;
    }
    const next = cursor.lines[cursor.at];
    if (!next || next.indent < indent || (next.indent === indent && !next.text.startsWith('- '))) {
      out[key] = null;
      continue;
    }
    if (next.text.startsWith('-')) {
      const list = readBlockList(cursor, next.indent);
      if (list === NOT_SIMPLE) return NOT_SIMPLE;
      const after = cursor.lines[cursor.at];
      if (after && after.indent > indent) return NOT_SIMPLE;
      out[key] = list;
      continue;
    }
    if (next.indent === indent) return NOT_SIMPLE;
    const child = readMapping(cursor, next.indent);
    if (child === NOT_SIMPLE) return NOT_SIMPLE;
    const after = cursor.lines[cursor.at];
    if (after && after.indent > indent) return NOT_SIMPLE;
    out[key] = child;
  }
  return out;
}

/**
 * The frontmatter mapping of `raw` (the text between the fences) when it is plain enough for
 * the fast path, else null: then the caller parses it with the `yaml` library.
 */
export function readSimpleFrontmatter(raw: string): Record<string, unknown> | null {
  const lines = splitLines(raw);
  if (!lines || lines.length === 0 || lines[0].indent !== 0) return null;
  const cursor: Cursor = { lines, at: 0 };
  const mapping = readMapping(cursor, 0);
  if (mapping === NOT_SIMPLE || cursor.at !== lines.length) return null;
  return mapping;
}
