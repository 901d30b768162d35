/**
 * Cutting a JSON text for one request without breaking it (docs/context-window.md, "The last
 * resort"): a tool result or a tool call's arguments that must shrink to fit the window has its
 * longest string values shortened inside the parsed value, each with a note of how much was cut,
 * and is serialised again, so the model still reads valid JSON (a result keeps its boolean
 * `success`). A cut that would save almost nothing is not made: a 201-character error result is
 * worth more whole than one character shorter. Plain TypeScript, no DOM.
 */

/** A string value is never cut below this many characters (it would say nothing). */
const MIN_KEEP_CHARS = 80;
/** A cut must save at least this share of the text, or the text stays whole. */
const MIN_SAVING = 0.1;

export const cutNote = (more: number, hint: string) => `… [cut to save room in the context window: ${more} more characters${hint ? `; ${hint}` : ''}]`;

const RESULT_HINT = 'call the tool again if you need them';

interface StringLeaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
}

function stringLeaves(value: unknown, out: StringLeaf[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => (typeof item === 'string' ? out.push({ holder: value, key: index, value: item }) : stringLeaves(item, out)));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string') out.push({ holder: value as Record<string, unknown>, key, value: item });
      else stringLeaves(item, out);
    }
  }
}

function setLeaf(leaf: StringLeaf, text: string): void {
  (leaf.holder as Record<string | number, unknown>)[leaf.key] = text;
  leaf.value = text;
}

/**
 * Shortens the longest string values of a parsed JSON value until its serialised form is at most
 * `maxChars` (or no value can shrink further). Returns the serialised text.
 */
function shrinkStrings(value: unknown, maxChars: number, hint: string): string {
  const leaves: StringLeaf[] = [];
  stringLeaves(value, leaves);
  let text = JSON.stringify(value);
  for (let round = 0; round < 64 && text.length > maxChars; round++) {
    const longest = leaves.reduce<StringLeaf | null>((best, leaf) => (!best || leaf.value.length > best.value.length ? leaf : best), null);
    if (!longest || longest.value.length <= MIN_KEEP_CHARS + 60) break;
    const excess = text.length - maxChars;
    // The serialised string may escape characters; cutting by its raw length is close enough, and the loop goes on if not.
    const keep = Math.max(MIN_KEEP_CHARS, longest.value.length - excess - 80);
    const original = longest.value.length;
    setLeaf(longest, `${longest.value.slice(0, keep)}${cutNote(original - keep, hint)}`);
    if (longest.value.length >= original) break;
    text = JSON.stringify(value);
  }
  return text;
}

/**
 * A tool result cut to about `maxChars` characters, still valid JSON with its boolean `success`.
 * Text that is not JSON is cut as text. The result comes back whole when the cut would save
 * less than a tenth of it.
 */
export function cutToolResult(content: string, maxChars: number): string {
  if (content.length <= maxChars) return content;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return worthCutting(content, `${content.slice(0, maxChars)}${cutNote(content.length - maxChars, RESULT_HINT)}`);
  }
  if (parsed === null || typeof parsed !== 'object') return content;
  let text = shrinkStrings(parsed, maxChars, RESULT_HINT);
  if (text.length > maxChars * 1.5) {
    // Too many small values to shorten one by one (a long list): what the model needs is that there was more.
    const success = (parsed as { success?: unknown }).success;
    text = JSON.stringify({
      success: typeof success === 'boolean' ? success : false,
      cut: `This result (${content.length} characters) was too long for the context window and was left out of this request; call the tool again with a narrower request.`,
    });
  }
  return worthCutting(content, text);
}

/**
 * A tool call's arguments cut to about `maxChars` characters for one request, still valid JSON
 * (arguments that were not JSON become an object holding their cut text, since chat templates
 * parse arguments). The stored call keeps every character.
 */
export function cutToolArguments(args: string, maxChars: number): string {
  if (args.length <= maxChars) return args;
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = null;
  }
  const hint = 'the call was sent with all of it';
  if (parsed === null || typeof parsed !== 'object') return JSON.stringify({ cut_arguments: `${args.slice(0, Math.max(0, maxChars - 120))}${cutNote(args.length - Math.max(0, maxChars - 120), hint)}` });
  let text = shrinkStrings(parsed, maxChars, hint);
  if (text.length > maxChars * 1.5) text = JSON.stringify({ cut_arguments: `${args.slice(0, Math.max(0, maxChars - 120))}${cutNote(args.length - Math.max(0, maxChars - 120), hint)}` });
  return worthCutting(args, text);
}

/** The cut text when it saves at least a tenth of the original, else the original. */
function worthCutting(original: string, cut: string): string {
  return cut.length <= original.length * (1 - MIN_SAVING) ? cut : original;
}
