/**
 * Files a tool has already put into the conversation (docs/skill-tools.md, "A repeated view"):
 * a second `skill_view` of the same part of an unchanged file answers with a one-line notice
 * instead of the whole text again. On a 4,096-token window a repeated 2,000-token SKILL.md is
 * half the window. The record lives for one chat turn and is cleared when the conversation is
 * compacted, because the summary replaces the earlier copy; a file whose copy a request did not
 * carry whole (the window fitting cut it or left it out) is forgotten, so the next view sends it
 * again (agent/viewCopies.ts). Plain TypeScript, no DOM.
 */

/** The fields a skill_view result and its repeat notice both show: what identifies the view. */
export interface ViewShown {
  name?: unknown;
  path?: unknown;
  skill_dir?: unknown;
  file?: unknown;
}

/** The part a view starts at, as `skill_view` reads its `offset` argument. */
export function viewOffset(args: { offset?: unknown } | null | undefined): number {
  const offset = args?.offset;
  return typeof offset === 'number' && Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : 0;
}

/**
 * The record's key of a view, from the fields its result shows and its offset: the tool keys what
 * it sends by it, and the request fitting finds the same key in the transcript's results.
 */
export function viewKey(shown: ViewShown, offset: number): string {
  const field = (value: unknown) => (typeof value === 'string' ? value : '');
  return ViewedFiles.key(JSON.stringify([field(shown.skill_dir), field(shown.path), field(shown.name), field(shown.file)]), offset);
}

export class ViewedFiles {
  /** `<view>@<offset>` → the exact text sent (kept whole: a hash collision would hide a change). */
  readonly #sent = new Map<string, string>();

  static key(view: string, offset: number): string {
    return `${view}@${offset}`;
  }

  /** Whether exactly this text was sent under this key since the last clear. */
  alreadySent(key: string, text: string): boolean {
    return this.#sent.get(key) === text;
  }

  remember(key: string, text: string): void {
    this.#sent.set(key, text);
  }

  /** The request did not carry these views whole: they are sent again when asked for. */
  forget(keys: Iterable<string>): void {
    for (const key of keys) this.#sent.delete(key);
  }

  /** A compaction replaced the earlier copies with a summary: everything is sent again. */
  clear(): void {
    this.#sent.clear();
  }

  get size(): number {
    return this.#sent.size;
  }
}
