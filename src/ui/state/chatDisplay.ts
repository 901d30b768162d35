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
 * only then the session's latest result with that id.
 */
function resultsOfCalls(lines: readonly ChatLine[], index: number, latest: ReadonlyMap<string, string>): (string | null)[] {
  const following: ChatLine[] = [];
  for (let next = index + 1; next < lines.length && lines[next]!.role === 'tool'; next++) following.push(lines[next]!);
  const claimed = new Set<ChatLine>();
  return (lines[index]!.toolCalls ?? []).map((call) => {
    const own = following.find((line) => !claimed.has(line) && line.toolCallId === call.id);
    if (own) claimed.add(own);
    return own ? own.content : (latest.get(call.id) ?? null);
  });
}

export function displayItems(lines: readonly ChatLine[], live: { generating: boolean; draft: string }): DisplayItem[] {
  const latest = new Map<string, string>();
  for (const line of lines) if (line.role === 'tool' && line.toolCallId) latest.set(line.toolCallId, line.content);

  const items: DisplayItem[] = [];
  let reply: Extract<DisplayItem, { kind: 'reply' }> | null = null;
  const currentReply = (key: string) => {
    if (!reply) {
      reply = { kind: 'reply', key, parts: [], stopped: false, streaming: false };
      items.push(reply);
    }
    return reply;
  };
  lines.forEach((line, index) => {
    if (line.role === 'user') {
      const invocation = skillInvocationOf(line.content);
      items.push({ kind: 'user', key: `u${index}`, line, text: invocation ? invocation.request : line.content, skill: invocation?.skill ?? null });
      reply = null;
      return;
    }
    if (line.role !== 'assistant') return; // tool results sit under their calls
    const target = currentReply(`r${index}`);
    if (line.content) target.parts.push({ kind: 'text', key: `t${index}`, text: line.content, streaming: false });
    const results = resultsOfCalls(lines, index, latest);
    for (const [position, call] of (line.toolCalls ?? []).entries()) {
      const result = results[position] ?? null;
      target.parts.push({
        kind: 'tool',
        // By place, never by the call's id alone: ids can repeat (see resultsOfCalls).
        key: `c${index}-${position}`,
        call,
        result,
        success: result === null ? null : successOf(result),
        skill: skillViewed(call),
      });
    }
    if (line.cutOff || line.empty) target.parts.push({ kind: 'notice', key: `n${index}`, notice: line.cutOff ? 'cut-off' : 'empty' });
    if (line.reasoning) target.parts.push({ kind: 'reasoning', key: `z${index}`, text: line.reasoning });
    if (line.stopped) target.stopped = true;
  });
  if (live.generating) {
    const target = currentReply(`r${lines.length}`);
    target.streaming = true;
    if (live.draft) target.parts.push({ kind: 'text', key: 'draft', text: live.draft, streaming: true });
  }
  return items;
}

/** `**bold**` search snippets as plain and matched pieces (rendered as text, never as HTML). */
export function snippetPieces(snippet: string): { text: string; match: boolean }[] {
  return snippet
    .split('**')
    .map((text, index) => ({ text, match: index % 2 === 1 }))
    .filter((piece) => piece.text !== '');
}
