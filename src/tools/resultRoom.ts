/**
 * Long texts in tool results, sized to the room the model's window has left (docs/context-window.md,
 * "Background work"): a text longer than the room is shown from an offset up to the room, cut at a
 * line end, with the offset to ask for next. Offsets are characters of the whole text, so the parts
 * stay the same whatever the room of the next call. Plain TypeScript, no DOM.
 */

/** Below this many characters a part is not worth cutting: a small model can still take it. */
export const MIN_PART_CHARS = 600;

export interface TextPart {
  text: string;
  /** Where the part starts and ends in the whole text. */
  from: number;
  to: number;
  total: number;
  /** The offset of the next part, or null when this part reaches the end. */
  nextOffset: number | null;
}

/** The part of `text` from `offset` that fits `room` characters (the rest when no room is set). */
export function textPart(text: string, offset = 0, room?: number): TextPart {
  const from = Math.min(Math.max(0, Math.floor(offset)), text.length);
  const limit = room === undefined ? Infinity : Math.max(MIN_PART_CHARS, Math.floor(room));
  if (text.length - from <= limit) return { text: text.slice(from), from, to: text.length, total: text.length, nextOffset: null };
  let to = from + limit;
  const lineEnd = text.lastIndexOf('\n', to);
  if (lineEnd > from + limit / 2) to = lineEnd + 1;
  return { text: text.slice(from, to), from, to, total: text.length, nextOffset: to };
}

/** The note a cut part carries: where it is in the whole, and how to read on. */
export function partNote(part: TextPart, readOn: string): string | null {
  if (part.from === 0 && part.nextOffset === null) return null;
  const where = `characters ${part.from.toLocaleString('en-US')}–${part.to.toLocaleString('en-US')} of ${part.total.toLocaleString('en-US')}`;
  return part.nextOffset === null
    ? `This is the last part (${where}).`
    : `Shown in parts to fit your context window: ${where}. Read on with ${readOn.replace('{offset}', String(part.nextOffset))}.`;
}
