/**
 * Separates a model's `<think>…</think>` reasoning from its answer while streaming.
 * Qwen3 (the default in-browser model) writes its reasoning inline in the content; the agent
 * and the text tool protocol should only see the answer, the UI may show the reasoning apart.
 * A tag can arrive split over chunks, so a trailing partial tag is held back until it resolves.
 */
export interface SplitText {
  reasoning: string;
  text: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagAtEnd(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(tag.slice(0, length))) return length;
  }
  return 0;
}

export class ThinkSplitter {
  #inside = false;
  #held = '';

  push(delta: string): SplitText {
    let input = this.#held + delta;
    this.#held = '';
    const out: SplitText = { reasoning: '', text: '' };
    while (input.length > 0) {
      const tag = this.#inside ? CLOSE : OPEN;
      const at = input.indexOf(tag);
      if (at >= 0) {
        this.#emit(out, input.slice(0, at));
        input = input.slice(at + tag.length);
        this.#inside = !this.#inside;
        continue;
      }
      const partial = partialTagAtEnd(input, tag);
      this.#emit(out, input.slice(0, input.length - partial));
      this.#held = input.slice(input.length - partial);
      break;
    }
    return out;
  }

  /** Whatever was held back, once the stream has ended. */
  flush(): SplitText {
    const out: SplitText = { reasoning: '', text: '' };
    this.#emit(out, this.#held);
    this.#held = '';
    return out;
  }

  #emit(out: SplitText, piece: string): void {
    if (this.#inside) out.reasoning += piece;
    else out.text += piece;
  }
}
