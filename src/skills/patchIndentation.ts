/**
 * Indentation for approximate patches (docs/fuzzy-patch.md): moving new_string onto the
 * file's indentation, and refusing a new_string whose indentation does not fit the block.
 *
 * When a match is approximate the model's old_string was indented differently from the file,
 * so new_string is written in the model's frame and is shifted onto the file's. That goes
 * wrong when the model mixes frames: it writes most lines relative to its old_string but
 * types one inserted line (or all of them) at the file's real indentation. The shift is then
 * applied twice to those lines and the file is corrupted (a Python block breaks, a YAML key
 * moves under the wrong parent). `suspiciousIndentation` refuses such a new_string.
 */

/** The leading spaces and tabs of a line. */
export function leadingBlank(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(0, i);
}

export function firstNonBlankLine(text: string): string | null {
  for (const line of text.split('\n')) if (line.trim() !== '') return line;
  return null;
}

/**
 * Move new_string onto the file's indentation: the base indent (old_string's first non-blank
 * line) becomes the region's base indent; deeper lines keep their extra indent; shallower
 * lines sit at the file base; blank lines stay as they are.
 */
export function reindentReplacement(region: string, oldString: string, newString: string): string {
  if (newString === '') return newString;
  const oldFirst = firstNonBlankLine(oldString);
  const regionFirst = firstNonBlankLine(region);
  if (oldFirst === null || regionFirst === null) return newString;
  const oldBase = leadingBlank(oldFirst);
  const fileBase = leadingBlank(regionFirst);
  if (oldBase === fileBase) return newString;
  return newString
    .split('\n')
    .map((line) => {
      if (line.trim() === '') return line;
      if (line.startsWith(oldBase)) return fileBase + line.slice(oldBase.length);
      return fileBase + line.trimStart();
    })
    .join('\n');
}

/** Last characters of a line after which the next line is legitimately nested deeper. */
const BLOCK_OPENERS = new Set([':', '{', '(', '[', ',', '\\', '=', '>', '|']);
/** A Markdown list item: its continuation lines are indented under the item's text. */
const LIST_ITEM_RE = /^\s*(?:[-*+]|\d+[.)])\s/;

/** Indentation increases between consecutive non-blank lines: the nesting steps a block uses. */
function nestingSteps(text: string): Set<number> {
  const steps = new Set<number>();
  let previous = -1;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const indent = leadingBlank(line).length;
    if (previous >= 0 && indent > previous) steps.add(indent - previous);
    previous = indent;
  }
  return steps;
}

const quoteLine = (line: string): string => {
  const t = line.trim();
  return JSON.stringify(t.length > 60 ? `${t.slice(0, 57)}...` : t);
};

/**
 * The refusal for a new_string written partly at the file's own indentation, or null.
 *
 * The rule, for an approximate match whose region is indented Δ > 0 columns deeper than
 * old_string's first non-blank line (a tab counts as one column; no check when one base is
 * not a prefix of the other, e.g. tabs against spaces, or when Δ ≤ 0, since re-indentation
 * then anchors shallower lines at the file base and cannot double a shift):
 *
 * A non-blank line of new_string is out of frame when its indent is at least Δ deeper than
 * the non-blank line before it (for the first line: than old_string's base), unless
 *   - that previous line opens a nested block (its last character is one of `: { ( [ , \ = > |`),
 *   - that previous line is a Markdown list item, or
 *   - the same increase already occurs between consecutive lines of old_string or of the
 *     matched region (it is one of the block's own nesting steps).
 * The first line has no such exemption: a new_string that starts Δ deeper than old_string was
 * written at the file's indentation as a whole.
 *
 * A jump of exactly one nesting step after a line that opens a block is always allowed, so a
 * whole block re-indented consistently (every line written relative to old_string) passes.
 * A jump the block does not explain is what a line typed at the file's absolute indentation
 * looks like; after the shift it would sit Δ columns too deep.
 */
export function suspiciousIndentation(region: string, oldString: string, newString: string): string | null {
  const oldFirst = firstNonBlankLine(oldString);
  const regionFirst = firstNonBlankLine(region);
  if (oldFirst === null || regionFirst === null) return null;
  const oldBase = leadingBlank(oldFirst);
  const fileBase = leadingBlank(regionFirst);
  const shift = fileBase.length - oldBase.length;
  if (shift <= 0 || !fileBase.startsWith(oldBase)) return null;

  let steps: Set<number> | null = null;
  let previousIndent = oldBase.length;
  let previousLine: string | null = null;
  const lines = newString.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (line.trim() === '') continue;
    const indent = leadingBlank(line).length;
    const jump = indent - previousIndent;
    const explained =
      jump < shift ||
      (previousLine !== null && (BLOCK_OPENERS.has(previousLine.trimEnd().slice(-1)) || LIST_ITEM_RE.test(previousLine))) ||
      (previousLine !== null && (steps ??= new Set([...nestingSteps(oldString), ...nestingSteps(region)])).has(jump));
    if (!explained) {
      return (
        `Suspicious indentation in new_string: line ${n + 1} (${quoteLine(line)}) is indented ${jump} columns deeper ` +
        `than the line before it. old_string matched only approximately, so every line of new_string is shifted ` +
        `${shift} columns to the file's indentation, and this line looks as if it was already typed at the file's ` +
        'indentation: it would end up too deep and corrupt the file. Write every line of new_string relative to ' +
        "old_string's indentation (or copy old_string exactly from skill_view, so no shift is applied), then retry."
      );
    }
    previousIndent = indent;
    previousLine = line;
  }
  return null;
}
