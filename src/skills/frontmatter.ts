/**
 * SKILL.md parsing: the YAML frontmatter between `---` fences and the Markdown body after it.
 *
 * Rules (docs/frontmatter.md):
 * - An optional UTF-8 BOM may precede the opening fence; the first line must be `---`.
 * - The closing fence is the first later line that is `---`, optionally followed by spaces,
 *   tabs, `\r` or a YAML comment after a space (`--- # end`); the opening fence may carry the
 *   same. The search is line-based so a `---` inside a YAML value never ends the frontmatter
 *   (skills-ref's `split("---")` gets this wrong, see docs/frontmatter.md).
 * - Values are typed so that they read back as written: `yes`, `0755`, `1.0` and `2026-01-02`
 *   stay text (frontmatterSchema.ts, docs/frontmatter.md).
 * - Two entry points: `parseSkillFile` is strict (writes through skill_manage are validated
 *   with it) and `parseSkillFileLenient` is for showing skills (catalogue, index, skill_view,
 *   the Skills view): when the YAML breaks it repairs it or reads `key: value` lines instead.
 * - CRLF files parse; unknown fields are kept; duplicate keys are an error in the strict
 *   parser (the lenient import loader accepts them with a warning, last value wins).
 * - Files are never re-serialised. Views and exports use the original text; when the app
 *   changes a field, `setFrontmatterFields` rewrites only the frontmatter region and leaves
 *   the BOM, the fences, the line endings and the body byte-for-byte as they were.
 */
import { isMap, isScalar, parseDocument, stringify } from 'yaml';
import { readSimpleFrontmatter } from './frontmatterFastPath';
import { readFrontmatterLines } from './frontmatterLines';
import { FRONTMATTER_YAML_OPTIONS } from './frontmatterSchema';

export const BOM = '\uFEFF';

export type FrontmatterErrorCode = 'no_frontmatter' | 'unclosed' | 'yaml_error' | 'duplicate_key' | 'not_mapping';

/** Where the parts of a SKILL.md sit, as offsets into the original string (BOM included). */
export interface FrontmatterLayout {
  hasBom: boolean;
  /** Line ending of the opening fence line; used when the app writes frontmatter text. */
  lineEnding: '\n' | '\r\n';
  /** First character of the YAML text (the line after the opening fence). */
  yamlStart: number;
  /** First character of the closing fence line (= end of the YAML text). */
  yamlEnd: number;
  /** First character of the body (after the closing fence line and its line break). */
  bodyOffset: number;
  /** 1-based line number of the closing fence. */
  closingFenceLine: number;
}

export interface ParsedSkillFile {
  ok: true;
  /** The YAML mapping, every field kept (nested maps and lists included). */
  frontmatter: Record<string, unknown>;
  /** Text after the closing fence line, untouched. */
  body: string;
  /** YAML text between the fences, untouched. */
  raw: string;
  /** Offset of `body` in the original string. */
  bodyOffset: number;
  layout: FrontmatterLayout;
}

export interface FrontmatterError {
  ok: false;
  code: FrontmatterErrorCode;
  /** Human-readable, without a "SKILL.md" prefix; line numbers are file lines (1-based). */
  message: string;
  /** 1-based file line of a YAML error, when known. */
  line?: number;
}

export type ParseSkillFileResult = ParsedSkillFile | FrontmatterError;

export interface ParseOptions {
  /** Accept repeated keys (last one wins). Off by default: the strict parser reports them. */
  allowDuplicateKeys?: boolean;
}

// -------------------------------------------------------------------------------------------
// Decoding

export interface DecodedText {
  /** The text; a leading BOM is kept so that the original bytes can be reproduced. */
  text: string;
  /** True when the bytes were not valid UTF-8 and U+FFFD replacement characters were used. */
  invalidUtf8: boolean;
}

/**
 * Decode the bytes of a SKILL.md (or any text file of a skill). Invalid UTF-8 does not throw:
 * it is replaced with U+FFFD and flagged, so the importer can warn instead of losing the file.
 */
export function decodeSkillText(bytes: Uint8Array): DecodedText {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes), invalidUtf8: false };
  } catch {
    return { text: new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes), invalidUtf8: true };
  }
}

// -------------------------------------------------------------------------------------------
// Locating the fences

/**
 * True when `content.slice(start, end)` is `---` followed only by spaces, tabs or `\r`, or by
 * a comment: a `#` after at least one space or tab, as YAML reads `--- # end`.
 */
function isFenceLine(content: string, start: number, end: number): boolean {
  if (end - start < 3) return false;
  if (content.charCodeAt(start) !== 45 || content.charCodeAt(start + 1) !== 45 || content.charCodeAt(start + 2) !== 45) {
    return false;
  }
  for (let i = start + 3; i < end; i++) {
    const c = content.charCodeAt(i);
    if (c === 35 && i > start + 3) return true;
    if (c !== 32 && c !== 9 && c !== 13) return false;
  }
  return true;
}

export type LocateResult = { ok: true; layout: FrontmatterLayout } | { ok: false; code: 'no_frontmatter' | 'unclosed' };

/** Find the fences without parsing YAML. Linear in the size of the frontmatter. */
export function locateFrontmatter(content: string): LocateResult {
  const hasBom = content.startsWith(BOM);
  const start = hasBom ? 1 : 0;
  let lineEnd = content.indexOf('\n', start);
  const firstEnd = lineEnd === -1 ? content.length : lineEnd;
  if (!isFenceLine(content, start, firstEnd)) return { ok: false, code: 'no_frontmatter' };
  if (lineEnd === -1) return { ok: false, code: 'unclosed' };
  const lineEnding = content.charCodeAt(firstEnd - 1) === 13 ? '\r\n' : '\n';
  const yamlStart = lineEnd + 1;
  let pos = yamlStart;
  let line = 2;
  while (pos <= content.length) {
    lineEnd = content.indexOf('\n', pos);
    const end = lineEnd === -1 ? content.length : lineEnd;
    if (isFenceLine(content, pos, end)) {
      return {
        ok: true,
        layout: {
          hasBom,
          lineEnding,
          yamlStart,
          yamlEnd: pos,
          bodyOffset: lineEnd === -1 ? content.length : lineEnd + 1,
          closingFenceLine: line,
        },
      };
    }
    if (lineEnd === -1) break;
    pos = lineEnd + 1;
    line++;
  }
  return { ok: false, code: 'unclosed' };
}

// -------------------------------------------------------------------------------------------
// Parsing

export const NO_FRONTMATTER_MESSAGE = 'the file must start with a YAML frontmatter fence (---) on its first line';
export const UNCLOSED_MESSAGE = 'the frontmatter is not closed: add a line containing only --- after the YAML';

/**
 * yaml reports positions relative to the YAML text and appends a code excerpt; keep the first
 * line only and shift line numbers so they count from the top of the file.
 */
function describeYamlError(message: string, fenceOffsetLines: number): { message: string; line?: number } {
  const firstLine = message.split('\n')[0].replace(/:\s*$/, '');
  let line: number | undefined;
  const text = firstLine.replace(/ at line (\d+), column (\d+)/, (_m, l: string, c: string) => {
    line = Number(l) + fenceOffsetLines;
    return ` at line ${line}, column ${c}`;
  });
  return { message: text, line };
}

export type YamlMappingResult = { ok: true; value: Record<string, unknown> } | FrontmatterError;

/**
 * The frontmatter mapping of `raw`: plain frontmatter through the fast path
 * (frontmatterFastPath.ts, same result as the library), anything else through `yaml`, which
 * also gives every error.
 */
export function parseYamlMapping(raw: string, options: ParseOptions, fenceOffsetLines: number): YamlMappingResult {
  const simple = readSimpleFrontmatter(raw);
  if (simple) return { ok: true, value: simple };
  return parseYamlMappingWithLibrary(raw, options, fenceOffsetLines);
}

/** `parseYamlMapping` without the fast path: the `yaml` library only (the fast path's reference). */
export function parseYamlMappingWithLibrary(raw: string, options: ParseOptions, fenceOffsetLines: number): YamlMappingResult {
  const doc = parseDocument(raw, { ...FRONTMATTER_YAML_OPTIONS, uniqueKeys: !options.allowDuplicateKeys, prettyErrors: true });
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const { message, line } = describeYamlError(first.message, fenceOffsetLines);
    if (first.code === 'DUPLICATE_KEY') {
      return { ok: false, code: 'duplicate_key', message: `duplicate key in frontmatter: ${message}`, line };
    }
    return { ok: false, code: 'yaml_error', message, line };
  }
  let value: unknown;
  try {
    // maxAliasCount bounds alias expansion ("billion laughs").
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, code: 'yaml_error', message: error instanceof Error ? error.message : String(error) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, code: 'not_mapping', message: 'the frontmatter must be a YAML mapping (key: value pairs)' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Parse a SKILL.md strictly. Never throws. */
export function parseSkillFile(content: string, options: ParseOptions = {}): ParseSkillFileResult {
  const located = locateFrontmatter(content);
  if (!located.ok) {
    return {
      ok: false,
      code: located.code,
      message: located.code === 'no_frontmatter' ? NO_FRONTMATTER_MESSAGE : UNCLOSED_MESSAGE,
    };
  }
  const { layout } = located;
  const raw = content.slice(layout.yamlStart, layout.yamlEnd);
  const parsed = parseYamlMapping(raw, options, 1);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    frontmatter: parsed.value,
    body: content.slice(layout.bodyOffset),
    raw,
    bodyOffset: layout.bodyOffset,
    layout,
  };
}

/** Alias of `parseSkillFile`, for callers that think of it as "the frontmatter parser". */
export const parseFrontmatter = parseSkillFile;

export interface LenientParsedSkillFile extends ParsedSkillFile {
  /** Set when the YAML did not parse as written: what was wrong, and how the fields were read. */
  yamlProblem?: string;
}

export type LenientParseResult = LenientParsedSkillFile | FrontmatterError;

/**
 * Parse a SKILL.md to show it (catalogue, index, skill_view, the Skills view). Repeated keys
 * are accepted (last wins). YAML that does not parse is repaired (`repairFrontmatterYaml`)
 * and, failing that, read with the `key: value` line reader (frontmatterLines.ts), so a
 * hand-written `description: Use when: deploying` still gives the skill its name and
 * description. Missing or unclosed fences stay errors: there is no frontmatter to read.
 * Never throws. Writes are validated with the strict `parseSkillFile`, never with this.
 */
export function parseSkillFileLenient(content: string): LenientParseResult {
  const strict = parseSkillFile(content, { allowDuplicateKeys: true });
  if (strict.ok || strict.code !== 'yaml_error') return strict;
  const located = locateFrontmatter(content);
  if (!located.ok) return strict;
  const { layout } = located;
  const raw = content.slice(layout.yamlStart, layout.yamlEnd);
  const parts = { body: content.slice(layout.bodyOffset), raw, bodyOffset: layout.bodyOffset, layout };
  const fix = repairFrontmatterYaml(raw);
  if (fix.repairs.length > 0) {
    const retry = parseYamlMapping(fix.text, { allowDuplicateKeys: true }, 1);
    if (retry.ok) {
      return { ok: true, frontmatter: retry.value, ...parts, yamlProblem: `${strict.message}; read after repair (${fix.repairs.join('; ')})` };
    }
  }
  const fields = readFrontmatterLines(raw);
  if (Object.keys(fields).length === 0) return strict;
  return { ok: true, frontmatter: fields, ...parts, yamlProblem: `${strict.message}; read as plain key: value lines` };
}

// -------------------------------------------------------------------------------------------
// Reading fields

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A scalar field as text: strings as they are, numbers and booleans converted, else undefined. */
export function readScalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return undefined;
}

export function readName(frontmatter: Record<string, unknown>): string | undefined {
  const name = readScalarText(frontmatter.name)?.trim();
  return name ? name : undefined;
}

export function readDescription(frontmatter: Record<string, unknown>): string | undefined {
  const description = readScalarText(frontmatter.description)?.trim();
  return description ? description : undefined;
}

/** `metadata.hermes` when it is a mapping, else an empty object. */
export function readHermesMetadata(frontmatter: Record<string, unknown>): Record<string, unknown> {
  const metadata = frontmatter.metadata;
  if (!isRecord(metadata)) return {};
  const hermes = metadata.hermes;
  return isRecord(hermes) ? hermes : {};
}

function stripQuotes(text: string): string {
  const t = text.trim();
  if (t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0]) return t.slice(1, -1).trim();
  return t;
}

/**
 * A list-valued field as strings. Accepts a YAML list, a `"[a, b]"` string or a comma
 * separated string (all seen in real skills); quotes are stripped and empty items dropped.
 */
export function parseStringList(value: unknown): string[] {
  let items: unknown[];
  if (Array.isArray(value)) {
    items = value;
  } else if (typeof value === 'string') {
    let text = value.trim();
    if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
    items = text.split(',');
  } else {
    return [];
  }
  const out: string[] = [];
  for (const item of items) {
    const text = readScalarText(item);
    if (text === undefined) continue;
    const cleaned = stripQuotes(text);
    if (cleaned) out.push(cleaned);
  }
  return out;
}

/** Tags from `metadata.hermes.tags`, else top-level `tags`. */
export function readTags(frontmatter: Record<string, unknown>): string[] {
  const hermes = readHermesMetadata(frontmatter);
  return parseStringList(hermes.tags !== undefined ? hermes.tags : frontmatter.tags);
}

/** Related skills from `metadata.hermes.related_skills`, else top-level `related_skills`. */
export function readRelatedSkills(frontmatter: Record<string, unknown>): string[] {
  const hermes = readHermesMetadata(frontmatter);
  return parseStringList(hermes.related_skills !== undefined ? hermes.related_skills : frontmatter.related_skills);
}

/** Category from `metadata.hermes.category`, else top-level `category`. */
export function readCategory(frontmatter: Record<string, unknown>): string | undefined {
  const hermes = readHermesMetadata(frontmatter);
  const value = readScalarText(hermes.category ?? frontmatter.category)?.trim();
  return value ? value : undefined;
}

/** `platforms` as a list (a single string is accepted); empty means every platform. */
export function readPlatforms(frontmatter: Record<string, unknown>): string[] {
  return parseStringList(frontmatter.platforms);
}

/** `environments` as a list (Hermes: kanban, docker, s6; offer-time filter). */
export function readEnvironments(frontmatter: Record<string, unknown>): string[] {
  return parseStringList(frontmatter.environments);
}

/** Index visibility conditions from `metadata.hermes` (docs/skill-tools.md). */
export interface SkillConditions {
  /** Hide the skill when any of these toolsets is available. */
  fallbackForToolsets: string[];
  /** Hide the skill when any of these tools is available. */
  fallbackForTools: string[];
  /** Hide the skill when any of these toolsets is missing. */
  requiresToolsets: string[];
  /** Hide the skill when any of these tools is missing. */
  requiresTools: string[];
}

export function readConditions(frontmatter: Record<string, unknown>): SkillConditions {
  const hermes = readHermesMetadata(frontmatter);
  return {
    fallbackForToolsets: parseStringList(hermes.fallback_for_toolsets),
    fallbackForTools: parseStringList(hermes.fallback_for_tools),
    requiresToolsets: parseStringList(hermes.requires_toolsets),
    requiresTools: parseStringList(hermes.requires_tools),
  };
}

// -------------------------------------------------------------------------------------------
// Editing fields without re-serialising the file

export type FrontmatterEditResult = { ok: true; content: string } | FrontmatterError;

/**
 * Replace the YAML text between the fences with `yamlText`. Everything else (BOM, fence
 * lines, body) is copied unchanged; `yamlText` is converted to the file's line ending.
 */
export function replaceFrontmatterText(content: string, yamlText: string): FrontmatterEditResult {
  const located = locateFrontmatter(content);
  if (!located.ok) {
    return {
      ok: false,
      code: located.code,
      message: located.code === 'no_frontmatter' ? NO_FRONTMATTER_MESSAGE : UNCLOSED_MESSAGE,
    };
  }
  const { layout } = located;
  let text = yamlText.replace(/\r\n/g, '\n');
  if (text.length > 0 && !text.endsWith('\n')) text += '\n';
  if (layout.lineEnding === '\r\n') text = text.replace(/\n/g, '\r\n');
  return { ok: true, content: content.slice(0, layout.yamlStart) + text + content.slice(layout.yamlEnd) };
}

/** A scalar as a one-line YAML value, or null when it needs more than one line. */
function oneLineYamlScalar(value: unknown): string | null {
  if (value !== null && typeof value === 'object') return null;
  const text = stringify(value, { lineWidth: 0 }).replace(/\n$/, '');
  return text.includes('\n') ? null : text;
}

/**
 * Set (or, with `undefined`, delete) top-level frontmatter fields.
 *
 * When every change is a one-line scalar on an existing one-line value or a new key, the
 * YAML text is spliced in place so comments, key order and quoting of the other fields stay
 * exactly as written. Anything else falls back to re-serialising the frontmatter only (the
 * `yaml` Document keeps comments); the body is never touched.
 */
export function setFrontmatterFields(content: string, fields: Record<string, unknown>): FrontmatterEditResult {
  const parsed = parseSkillFile(content);
  if (!parsed.ok) return parsed;
  const doc = parseDocument(parsed.raw, { ...FRONTMATTER_YAML_OPTIONS, uniqueKeys: true });
  const map = doc.contents;
  if (!isMap(map)) return { ok: false, code: 'not_mapping', message: 'the frontmatter must be a YAML mapping' };

  // Try the in-place splice first.
  type Splice = { start: number; end: number; text: string };
  const splices: Splice[] = [];
  const appended: string[] = [];
  let spliceable = true;
  for (const [key, value] of Object.entries(fields)) {
    const scalar = value === undefined ? null : oneLineYamlScalar(value);
    if (scalar === null) {
      spliceable = false;
      break;
    }
    const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    if (!pair) {
      appended.push(`${stringify(key).replace(/\n$/, '')}: ${scalar}`);
      continue;
    }
    const node = pair.value;
    if (!isScalar(node) || !node.range) {
      spliceable = false;
      break;
    }
    const [start, valueEnd] = node.range;
    if (parsed.raw.slice(start, valueEnd).includes('\n')) {
      spliceable = false;
      break;
    }
    splices.push({ start, end: valueEnd, text: scalar });
  }

  let newRaw: string;
  if (spliceable) {
    newRaw = parsed.raw;
    for (const s of splices.sort((a, b) => b.start - a.start)) {
      newRaw = newRaw.slice(0, s.start) + s.text + newRaw.slice(s.end);
    }
    if (appended.length > 0) {
      const eol = parsed.layout.lineEnding;
      if (newRaw.length > 0 && !newRaw.endsWith('\n')) newRaw += eol;
      newRaw += appended.join(eol) + eol;
    }
    return { ok: true, content: content.slice(0, parsed.layout.yamlStart) + newRaw + content.slice(parsed.layout.yamlEnd) };
  }

  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) {
      doc.set(key, value);
      continue;
    }
    // A comment written above a deleted key is about the file, not only that key: keep it.
    const index = map.items.findIndex((item) => isScalar(item.key) && String(item.key.value) === key);
    if (index === -1) continue;
    const removedKey = map.items[index].key;
    const comment = isScalar(removedKey) ? removedKey.commentBefore : undefined;
    map.items.splice(index, 1);
    if (comment) {
      const next = map.items[index]?.key;
      if (isScalar(next)) next.commentBefore = next.commentBefore ? `${comment}\n${next.commentBefore}` : comment;
      else doc.comment = doc.comment ? `${doc.comment}\n${comment}` : comment;
    }
  }
  newRaw = doc.toString({ lineWidth: 0 });
  return replaceFrontmatterText(content, newRaw);
}

const NON_PLAIN_START = new Set(['"', "'", '[', '{', '|', '>', '&', '*', '!', '#', '%', '@', '`']);

/**
 * The repairs the agentskills client guide suggests for hand-written frontmatter:
 * an unquoted value containing `: ` ("description: Use when: …") is double-quoted, and
 * tab indentation becomes spaces. Returns the repaired text and what was changed.
 */
export function repairFrontmatterYaml(raw: string): { text: string; repairs: string[] } {
  const repairs: string[] = [];
  const lines = raw.split('\n');
  const pairRe = /^([ \t]*(?:- )?)([^\s:#'"][^:]*?):[ \t]+(.*?)[ \t]*$/;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    const cr = line.endsWith('\r') ? '\r' : '';
    if (cr) line = line.slice(0, -1);
    const tabs = /^\t+/.exec(line);
    if (tabs) {
      line = '  '.repeat(tabs[0].length) + line.slice(tabs[0].length);
      repairs.push(`line ${i + 2}: tab indentation replaced with spaces`);
    }
    const m = pairRe.exec(line);
    if (m && m[3] && !NON_PLAIN_START.has(m[3][0]) && (m[3].includes(': ') || m[3].endsWith(':'))) {
      const quoted = '"' + m[3].replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
      line = `${m[1]}${m[2]}: ${quoted}`;
      repairs.push(`line ${i + 2}: quoted the value of '${m[2]}' because it contains ': '`);
    }
    lines[i] = line + cr;
  }
  return { text: lines.join('\n'), repairs };
}
