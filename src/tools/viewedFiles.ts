/**
 * Files a tool has already put into the conversation (docs/skill-tools.md, "A repeated view"):
 * a second `skill_view` of the same part of an unchanged file answers with a one-line notice
 * instead of the whole text again. On a 4,096-token window a repeated 2,000-token SKILL.md is
 * half the window. The record lives for one chat turn and is cleared when the conversation is
 * compacted, because the summary replaces the earlier copy. Plain TypeScript, no DOM.
 */
export class ViewedFiles {
  /** `<path>@<offset>` → the exact text sent (kept whole: a hash collision would hide a change). */
  readonly #sent = new Map<string, string>();

  static key(path: string, offset: number): string {
    return `${path}@${offset}`;
  }

  /** Whether exactly this text was sent under this key since the last clear. */
  alreadySent(key: string, text: string): boolean {
    return this.#sent.get(key) === text;
  }

  remember(key: string, text: string): void {
    this.#sent.set(key, text);
  }

  /** A compaction replaced the earlier copies with a summary: everything is sent again. */
  clear(): void {
    this.#sent.clear();
  }

  get size(): number {
    return this.#sent.size;
  }
}
