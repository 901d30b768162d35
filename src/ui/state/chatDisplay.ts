/**
 * The conversation as the chat list shows it: each user message is one item, and everything
 * the assistant did in reply (text, tool calls with their results, skill loads) is one reply
 * item, with the text still streaming at its end. Plain TypeScript, no runes, no DOM.
 */
import { skillInvocationOf, type ChatLine, type ReplyNotice } from '../../agent/chatSession';
import type { StoredToolCall } from '../../sessions/sessionStore';

export type ReplyPart =
  | { kind: 'text'; key: string; text: string; streaming: boolean }
  /** Said under a reply that was cut off mid-stream or came back empty (ChatLine flags). */
  | { kind: 'notice'; key: string; notice: ReplyNotice }
  /** The model's reasoning for a flagged reply, shown folded. */
  | { kind: 'reasoning'; key: string; text: string }
  | { kind: 'tool'; key: string; call: StoredToolCall; result: string | null; success: boolean | null; skill: string | null };

export type DisplayItem =
  | { kind: 'user'; key: string; line: ChatLine; text: string; skill: string | null }
  | { kind: 'reply'; key: string; parts: ReplyPart[]; stopped: boolean; streaming: boolean };

function successOf(result: string): boolean | null {
  try {
    const parsed = JSON.parse(result) as { success?: unknown };
    return typeof parsed.success === 'boolean' ? parsed.success : null;
  } catch {
    return null;
  }
}

/** The skill a `skill_view` call loads, for its chip. */
function skillViewed(call: StoredToolCall): string | null {
  if (call.name !== 'skill_view') return null;
  try {
    const args = JSON.parse(call.arguments) as { name?: unknown; file_path?: unknown };
    return typeof args.name === 'string' ? args.name : null;
  } catch {
    return null;
  }
}

/**
 * The latest result with a call's id among the lines before a reply, for a call nothing right
 * after it answers (a session stored with repeated ids). Built only when needed, as the walk
 * goes: `before` only grows within one build.
 */
type EarlierResult = (id: string, before: number) => string | null;

function earlierResults(lines: readonly ChatLine[]): EarlierResult {
  let latest: Map<string, string> | null = null;
  let upTo = 0;
  return (id, before) => {
    latest ??= new Map();
    for (; upTo < before; upTo++) {
      const line = lines[upTo]!;
      if (line.role === 'tool' && line.toolCallId) latest.set(line.toolCallId, line.content);
    }
    return latest.get(id) ?? null;
  };
}

/**
 * The result of each call of the assistant line at `index`, in call order. Ids can repeat (in one
 * reply, from a session stored before the loop made them unique, or `call_1` in every reply), so
 * a call takes the first unclaimed result with its id among the tool lines right after it. Once
 * those lines are complete (another line follows them), a call still without one shows the
 * latest result with its id before the reply; while they may still grow it is running. A call's
 * result thus depends only on lines up to the end of its reply's results, which lets a rebuild
 * start at the first changed line (docs/chat.md, "Rendering"). Linear in the calls, with a fast
 * path for the usual case of results in call order.
 */
function resultsOfCalls(lines: readonly ChatLine[], index: number, earlier: EarlierResult): (string | null)[] {
  const calls = lines[index]!.toolCalls ?? [];
  const inOrder: (string | null)[] = [];
  for (const call of calls) {
    const line = lines[index + 1 + inOrder.length];
    if (line?.role !== 'tool' || line.toolCallId !== call.id) break;
    inOrder.push(line.content);
  }
  if (inOrder.length === calls.length && lines[index + 1 + inOrder.length]?.role !== 'tool') return inOrder;
  const following = new Map<string, string[]>();
  let next = index + 1;
  for (; next < lines.length && lines[next]!.role === 'tool'; next++) {
    const line = lines[next]!;
    if (line.toolCallId === undefined) continue;
    const queue = following.get(line.toolCallId);
    if (queue) queue.push(line.content);
    else following.set(line.toolCallId, [line.content]);
  }
  const complete = next < lines.length;
  return calls.map((call) => following.get(call.id)?.shift() ?? (complete ? earlier(call.id, index) : null));
}

type ReplyItem = Extract<DisplayItem, { kind: 'reply' }>;
export type ToolPart = Extract<ReplyPart, { kind: 'tool' }>;

function sameCall(a: StoredToolCall, b: StoredToolCall): boolean {
  return a === b || (a.id === b.id && a.name === b.name && a.arguments === b.arguments);
}

function samePart(a: ReplyPart | undefined, b: ReplyPart): boolean {
  if (!a || a.kind !== b.kind || a.key !== b.key) return false;
  if (a.kind === 'text' && b.kind === 'text') return a.text === b.text && a.streaming === b.streaming;
  if (a.kind === 'notice' && b.kind === 'notice') return a.notice === b.notice;
  if (a.kind === 'reasoning' && b.kind === 'reasoning') return a.text === b.text;
  return false;
}

/**
 * A reply being built. Each part is compared with the part at the same place in the previous
 * build of that reply (found by the reply's key) and, when unchanged, is that earlier object.
 */
class ReplyBuilder {
  readonly item: ReplyItem;
  readonly #before: readonly ReplyPart[];
  #changed = false;

  /** `kept`: the first parts of `before`, unchanged since (a rebuild that starts inside the reply). */
  constructor(key: string, before: DisplayItem | undefined, kept: readonly ReplyPart[] = []) {
    this.item = { kind: 'reply', key, parts: kept.slice(), stopped: false, streaming: false };
    this.#before = before?.kind === 'reply' ? before.parts : [];
  }

  add(part: ReplyPart): void {
    const before = this.#before[this.item.parts.length];
    this.#keep(before && samePart(before, part) ? before : part);
  }

  /** A tool part, made only when the earlier one at its place differs (its JSON parsed once). */
  addTool(key: string, call: StoredToolCall, result: string | null): void {
    const before = this.#before[this.item.parts.length];
    if (before?.kind === 'tool' && before.result === result && sameCall(before.call, call) && before.key === key) {
      this.#keep(before);
      return;
    }
    this.#keep({ kind: 'tool', key, call, result, success: result === null ? null : successOf(result), skill: skillViewed(call) });
  }

  #keep(part: ReplyPart): void {
    if (part !== this.#before[this.item.parts.length]) this.#changed = true;
    this.item.parts.push(part);
  }

  /** The reply, or its previous object when nothing about it changed. */
  finish(before: DisplayItem | undefined): ReplyItem {
    const same =
      !this.#changed &&
      before?.kind === 'reply' &&
      before.parts.length === this.item.parts.length &&
      before.stopped === this.item.stopped &&
      before.streaming === this.item.streaming;
    return same ? before : this.item;
  }
}

function userItem(line: ChatLine, index: number, before: DisplayItem | undefined): DisplayItem {
  const key = `u${index}`;
  if (before?.kind === 'user' && before.key === key && before.line.id === line.id && before.line.content === line.content) return before;
  const invocation = skillInvocationOf(line.content);
  return { kind: 'user', key, line, text: invocation ? invocation.request : line.content, skill: invocation?.skill ?? null };
}

/** The line an item starts at, or a part belongs to (its key: `u12`, `r12`, `t12`, `c12-3`…). */
function lineOfKey(key: string): number {
  return Number.parseInt(key.slice(1), 10);
}

/**
 * Where a rebuild starts when lines from `from` on changed: the previous items that end before
 * it are kept; the item that holds it is rebuilt from its first line, keeping the parts of the
 * assistant lines whose results all lie before `from`.
 */
function resumePoint(lines: readonly ChatLine[], previous: readonly DisplayItem[], from: number): { kept: number; firstLine: number; parts: readonly ReplyPart[]; partsLine: number } {
  let kept = 0;
  if (from > 0) while (kept + 1 < previous.length && lineOfKey(previous[kept + 1]!.key) <= from) kept++;
  const item = previous[kept];
  if (kept === 0 && (!item || lineOfKey(item.key) > 0 || from === 0)) return { kept: 0, firstLine: 0, parts: [], partsLine: 0 };
  const firstLine = lineOfKey(item!.key);
  if (item!.kind !== 'reply' || firstLine >= from || lines[firstLine]?.role !== 'assistant') return { kept, firstLine, parts: [], partsLine: firstLine };
  // The results after an assistant line may still grow: resume at the last assistant line before `from`.
  let partsLine = Math.min(from, lines.length);
  while (partsLine > firstLine && lines[partsLine - 1]!.role === 'tool') partsLine--;
  if (partsLine > firstLine && lines[partsLine - 1]!.role === 'assistant') partsLine--;
  let cut = item!.parts.length;
  while (cut > 0 && lineOfKey(item!.parts[cut - 1]!.key) >= partsLine) cut--;
  return { kept, firstLine, parts: item!.parts.slice(0, cut), partsLine };
}

/**
 * The items of the stored lines. Given the previous build, every item and part that did not
 * change is the previous object itself, so the keyed list re-renders only what changed: a new
 * tool result touches its own part, never the earlier messages (docs/chat.md, "Rendering").
 * `from`: the first line that may differ from the lines `previous` was built from (the chat's
 * `lines` events say it); the work is then proportional to what follows it, not to the chat.
 */
export function lineItems(lines: readonly ChatLine[], previous: readonly DisplayItem[] = [], from = 0): DisplayItem[] {
  const resume = resumePoint(lines, previous, from);
  const earlier = new Map(previous.slice(resume.kept).map((item) => [item.key, item]));
  const earlierResult = earlierResults(lines);
  const items: DisplayItem[] = previous.slice(0, resume.kept);
  let reply: ReplyBuilder | null = null;
  let index = resume.firstLine;
  if (resume.partsLine > resume.firstLine) {
    const key = `r${resume.firstLine}`;
    reply = new ReplyBuilder(key, earlier.get(key), resume.parts);
    for (; index < resume.partsLine; index++) if (lines[index]!.stopped) reply.item.stopped = true;
  }
  const closeReply = () => {
    if (reply) items.push(reply.finish(earlier.get(reply.item.key)));
    reply = null;
  };
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.role === 'user') {
      closeReply();
      items.push(userItem(line, index, earlier.get(`u${index}`)));
      continue;
    }
    if (line.role !== 'assistant') continue; // tool results sit under their calls
    reply ??= new ReplyBuilder(`r${index}`, earlier.get(`r${index}`));
    const target: ReplyBuilder = reply;
    if (line.content) target.add({ kind: 'text', key: `t${index}`, text: line.content, streaming: false });
    const results = resultsOfCalls(lines, index, earlierResult);
    // By place, never by the call's id alone: ids can repeat (see resultsOfCalls).
    (line.toolCalls ?? []).forEach((call, position) => target.addTool(`c${index}-${position}`, call, results[position] ?? null));
    if (line.cutOff || line.empty) target.add({ kind: 'notice', key: `n${index}`, notice: line.cutOff ? 'cut-off' : 'empty' });
    if (line.reasoning) target.add({ kind: 'reasoning', key: `z${index}`, text: line.reasoning });
    if (line.stopped) target.item.stopped = true;
  }
  closeReply();
  return items;
}

/**
 * The stored items with the reply in progress: the last reply marked streaming and the draft
 * at its end (a new reply item when the turn has no line yet). Only that item is a new object,
 * so a streamed token re-renders the last message alone. `stopping`: the user pressed Stop and
 * the turn is only writing its last lines; the reply shows as stopped at once.
 */
export function withLive(items: readonly DisplayItem[], linesCount: number, live: { generating: boolean; draft: string; stopping?: boolean }): DisplayItem[] {
  if (live.stopping) {
    const last = items.at(-1);
    if (last?.kind === 'reply') return [...items.slice(0, -1), { ...last, stopped: true }];
    return [...items, { kind: 'reply', key: `r${linesCount}`, parts: [], stopped: true, streaming: false }];
  }
  if (!live.generating) return items as DisplayItem[];
  const last = items.at(-1);
  const draft: ReplyPart[] = live.draft ? [{ kind: 'text', key: 'draft', text: live.draft, streaming: true }] : [];
  if (last?.kind === 'reply') return [...items.slice(0, -1), { ...last, streaming: true, parts: [...last.parts, ...draft] }];
  return [...items, { kind: 'reply', key: `r${linesCount}`, parts: draft, stopped: false, streaming: true }];
}

export function displayItems(lines: readonly ChatLine[], live: { generating: boolean; draft: string }, previous: readonly DisplayItem[] = []): DisplayItem[] {
  return withLive(lineItems(lines, previous), lines.length, live);
}

/** `**bold**` search snippets as plain and matched pieces (rendered as text, never as HTML). */
export function snippetPieces(snippet: string): { text: string; match: boolean }[] {
  return snippet
    .split('**')
    .map((text, index) => ({ text, match: index % 2 === 1 }))
    .filter((piece) => piece.text !== '');
}

/** A run of tool calls from one model reply, shown folded as one line. */
export interface ToolGroup {
  kind: 'group';
  key: string;
  parts: ToolPart[];
  ran: number;
  failed: number;
  running: number;
}

/** More calls than this from one model reply fold into a group (docs/chat.md, "Rendering"). */
export const TOOL_GROUP_THRESHOLD = 8;

/** `c12-` for the calls of line 12: the parts of one model reply share it (no string made per part). */
function callPrefix(part: ToolPart): string {
  return part.key.slice(0, part.key.indexOf('-') + 1);
}

function sameParts(a: readonly ToolPart[], b: readonly ToolPart[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A reply's parts as it shows them: each part as it is, except that the tool calls of one model
 * reply, when there are more than TOOL_GROUP_THRESHOLD, are one group. Parts keep their own
 * objects, so the keyed list leaves them alone; given the previous segments, a group whose parts
 * are all the same objects is the previous group, so a finished reply's group is not redrawn.
 */
export function replySegments(parts: readonly ReplyPart[], threshold = TOOL_GROUP_THRESHOLD, previous: readonly (ReplyPart | ToolGroup)[] = []): (ReplyPart | ToolGroup)[] {
  const earlierGroups = new Map<string, ToolGroup>();
  for (const segment of previous) if (segment.kind === 'group') earlierGroups.set(segment.key, segment);
  const segments: (ReplyPart | ToolGroup)[] = [];
  let run: ToolPart[] = [];
  let runPrefix = '';
  const flush = () => {
    if (run.length > threshold) {
      const key = `g${run[0]!.key}`;
      const before = earlierGroups.get(key);
      if (before && sameParts(before.parts, run)) {
        segments.push(before);
      } else {
        const failed = run.filter((part) => part.success === false).length;
        const running = run.filter((part) => part.result === null).length;
        segments.push({ kind: 'group', key, parts: run, ran: run.length - failed - running, failed, running });
      }
    } else {
      segments.push(...run);
    }
    run = [];
  };
  for (const part of parts) {
    if (part.kind === 'tool' && (run.length === 0 || part.key.startsWith(runPrefix))) {
      if (run.length === 0) runPrefix = callPrefix(part);
      run.push(part);
      continue;
    }
    flush();
    if (part.kind === 'tool') {
      runPrefix = callPrefix(part);
      run.push(part);
    } else segments.push(part);
  }
  flush();
  return segments;
}
