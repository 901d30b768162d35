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
 * The result of each call of the assistant line at `index`, in call order. Ids can repeat (in one
 * reply, from a session stored before the loop made them unique, or `call_1` in every reply), so
 * a call takes the first unclaimed result with its id among the tool lines right after it, and
 * only then the session's latest result with that id. Linear in the calls: a reply of hundreds
 * of calls is matched once per rebuild, not once per call (docs/chat.md, "Rendering").
 */
function resultsOfCalls(lines: readonly ChatLine[], index: number, latest: ReadonlyMap<string, string>): (string | null)[] {
  const following = new Map<string, string[]>();
  for (let next = index + 1; next < lines.length && lines[next]!.role === 'tool'; next++) {
    const line = lines[next]!;
    if (line.toolCallId === undefined) continue;
    const queue = following.get(line.toolCallId);
    if (queue) queue.push(line.content);
    else following.set(line.toolCallId, [line.content]);
  }
  return (lines[index]!.toolCalls ?? []).map((call) => following.get(call.id)?.shift() ?? latest.get(call.id) ?? null);
}

type ReplyItem = Extract<DisplayItem, { kind: 'reply' }>;
export type ToolPart = Extract<ReplyPart, { kind: 'tool' }>;

/** The parts and items of the last build, by key, so an unchanged one keeps its object. */
interface Earlier {
  items: Map<string, DisplayItem>;
  parts: Map<string, ReplyPart>;
}

function earlierOf(previous: readonly DisplayItem[]): Earlier {
  const items = new Map<string, DisplayItem>();
  const parts = new Map<string, ReplyPart>();
  for (const item of previous) {
    items.set(item.key, item);
    if (item.kind === 'reply') for (const part of item.parts) parts.set(`${item.key}/${part.key}`, part);
  }
  return { items, parts };
}

function toolPart(key: string, call: StoredToolCall, result: string | null, earlier: ReplyPart | undefined): ToolPart {
  if (
    earlier?.kind === 'tool' &&
    earlier.result === result &&
    earlier.call.id === call.id &&
    earlier.call.name === call.name &&
    earlier.call.arguments === call.arguments
  ) {
    return earlier;
  }
  return { kind: 'tool', key, call, result, success: result === null ? null : successOf(result), skill: skillViewed(call) };
}

function samePart(a: ReplyPart | undefined, b: ReplyPart): boolean {
  if (!a || a.kind !== b.kind) return false;
  if (a.kind === 'text' && b.kind === 'text') return a.text === b.text && a.streaming === b.streaming;
  if (a.kind === 'notice' && b.kind === 'notice') return a.notice === b.notice;
  if (a.kind === 'reasoning' && b.kind === 'reasoning') return a.text === b.text;
  return a === b;
}

/** Keeps the earlier object of each part (and of the reply) that did not change. */
function settleReply(reply: ReplyItem, earlier: Earlier): ReplyItem {
  reply.parts = reply.parts.map((part) => {
    const before = earlier.parts.get(`${reply.key}/${part.key}`);
    return before && samePart(before, part) ? before : part;
  });
  const before = earlier.items.get(reply.key);
  if (
    before?.kind === 'reply' &&
    before.stopped === reply.stopped &&
    before.streaming === reply.streaming &&
    before.parts.length === reply.parts.length &&
    before.parts.every((part, at) => part === reply.parts[at])
  ) {
    return before;
  }
  return reply;
}

function userItem(line: ChatLine, index: number, earlier: Earlier): DisplayItem {
  const key = `u${index}`;
  const before = earlier.items.get(key);
  if (before?.kind === 'user' && before.line.id === line.id && before.line.content === line.content) return before;
  const invocation = skillInvocationOf(line.content);
  return { kind: 'user', key, line, text: invocation ? invocation.request : line.content, skill: invocation?.skill ?? null };
}

/**
 * The items of the stored lines. Given the previous build, every item and part that did not
 * change is the previous object itself, so the keyed list re-renders only what changed: a new
 * tool result touches its own part, never the earlier messages (docs/chat.md, "Rendering").
 */
export function lineItems(lines: readonly ChatLine[], previous: readonly DisplayItem[] = []): DisplayItem[] {
  const earlier = earlierOf(previous);
  const latest = new Map<string, string>();
  for (const line of lines) if (line.role === 'tool' && line.toolCallId) latest.set(line.toolCallId, line.content);

  const items: DisplayItem[] = [];
  let reply: ReplyItem | null = null;
  const closeReply = () => {
    if (reply) items[items.length - 1] = settleReply(reply, earlier);
    reply = null;
  };
  lines.forEach((line, index) => {
    if (line.role === 'user') {
      closeReply();
      items.push(userItem(line, index, earlier));
      return;
    }
    if (line.role !== 'assistant') return; // tool results sit under their calls
    if (!reply) {
      reply = { kind: 'reply', key: `r${index}`, parts: [], stopped: false, streaming: false };
      items.push(reply);
    }
    const target: ReplyItem = reply;
    if (line.content) target.parts.push({ kind: 'text', key: `t${index}`, text: line.content, streaming: false });
    const results = resultsOfCalls(lines, index, latest);
    for (const [position, call] of (line.toolCalls ?? []).entries()) {
      // By place, never by the call's id alone: ids can repeat (see resultsOfCalls).
      const key = `c${index}-${position}`;
      target.parts.push(toolPart(key, call, results[position] ?? null, earlier.parts.get(`${target.key}/${key}`)));
    }
    if (line.cutOff || line.empty) target.parts.push({ kind: 'notice', key: `n${index}`, notice: line.cutOff ? 'cut-off' : 'empty' });
    if (line.reasoning) target.parts.push({ kind: 'reasoning', key: `z${index}`, text: line.reasoning });
    if (line.stopped) target.stopped = true;
  });
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

function lineOfPart(part: ReplyPart): string | null {
  return part.kind === 'tool' ? part.key.slice(0, part.key.indexOf('-')) : null;
}

/**
 * A reply's parts as it shows them: each part as it is, except that the tool calls of one model
 * reply, when there are more than TOOL_GROUP_THRESHOLD, are one group. Parts keep their own
 * objects, so the keyed list leaves them alone.
 */
export function replySegments(parts: readonly ReplyPart[], threshold = TOOL_GROUP_THRESHOLD): (ReplyPart | ToolGroup)[] {
  const segments: (ReplyPart | ToolGroup)[] = [];
  let run: ToolPart[] = [];
  const flush = () => {
    if (run.length > threshold) {
      const failed = run.filter((part) => part.success === false).length;
      const running = run.filter((part) => part.result === null).length;
      segments.push({ kind: 'group', key: `g${run[0]!.key}`, parts: run, ran: run.length - failed - running, failed, running });
    } else {
      segments.push(...run);
    }
    run = [];
  };
  for (const part of parts) {
    if (part.kind === 'tool' && (run.length === 0 || lineOfPart(run[0]!) === lineOfPart(part))) {
      run.push(part);
      continue;
    }
    flush();
    if (part.kind === 'tool') run.push(part);
    else segments.push(part);
  }
  flush();
  return segments;
}
