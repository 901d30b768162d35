/**
 * Finds `<tool_call>…</tool_call>` blocks in streamed text (the text tool protocol,
 * docs/providers.md) while letting everything else through as soon as it is known not to be part of a
 * block. Only a tail that could still grow into `<tool_call>` is held back, so the user sees
 * text as it streams, never a flash of a tag.
 */
export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export type ParsedPiece =
  | { type: 'text'; text: string }
  /** The text between the tags. `closed` is false for a block the stream ended inside. */
  | { type: 'block'; body: string; closed: boolean };

/** Length of the longest end of `text` that is a proper start of `tag`. */
function partialTagLength(text: string, tag: string): number {
  for (let length = Math.min(text.length, tag.length - 1); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

export class ToolBlockParser {
  private buffer = '';
  private inBlock = false;

  /** Feeds a piece of streamed text; returns what can be passed on now. */
  push(text: string): ParsedPiece[] {
    this.buffer += text;
    const pieces: ParsedPiece[] = [];
    for (;;) {
      if (this.inBlock) {
        const close = this.buffer.indexOf(TOOL_CALL_CLOSE);
        if (close === -1) break;
        pieces.push({ type: 'block', body: this.buffer.slice(0, close), closed: true });
        this.buffer = this.buffer.slice(close + TOOL_CALL_CLOSE.length);
        this.inBlock = false;
        continue;
      }
      const open = this.buffer.indexOf(TOOL_CALL_OPEN);
      if (open === -1) {
        const keep = partialTagLength(this.buffer, TOOL_CALL_OPEN);
        const ready = this.buffer.slice(0, this.buffer.length - keep);
        if (ready !== '') pieces.push({ type: 'text', text: ready });
        this.buffer = this.buffer.slice(ready.length);
        break;
      }
      if (open > 0) pieces.push({ type: 'text', text: this.buffer.slice(0, open) });
      this.buffer = this.buffer.slice(open + TOOL_CALL_OPEN.length);
      this.inBlock = true;
    }
    return pieces;
  }

  /** The stream is over: held-back text, or the block it ended inside. */
  end(): ParsedPiece[] {
    const rest = this.buffer;
    const wasInBlock = this.inBlock;
    this.buffer = '';
    this.inBlock = false;
    if (wasInBlock) return [{ type: 'block', body: rest, closed: false }];
    return rest === '' ? [] : [{ type: 'text', text: rest }];
  }

  /** The stream was stopped: pass on held-back text, drop a half-written block. */
  abandon(): ParsedPiece[] {
    const rest = this.inBlock ? '' : this.buffer;
    this.buffer = '';
    this.inBlock = false;
    return rest === '' ? [] : [{ type: 'text', text: rest }];
  }
}
