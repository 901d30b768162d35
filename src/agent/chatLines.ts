/**
 * A chat line (a message as the chat shows it) and its conversions: from what the agent loop
 * added, to and from what the session store keeps. Split from chatSession.ts, which drives
 * the turns; no DOM.
 */
import type { ChatMessage as ModelMessage, ToolCall } from '../providers/provider';
import type { ChatMessage as StoredMessage, NewMessage, StoredToolCall } from '../sessions/sessionStore';

/** A message of the conversation as the chat shows it. `seq` is its place in the session. */
export interface ChatLine {
  /** The stored message id (`local:` until the write lands). */
  id: string;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  content: string;
  toolCalls?: StoredToolCall[];
  toolCallId?: string;
  name?: string;
  /** The user stopped this reply before it finished. */
  stopped?: boolean;
  /** The stream of this reply ended without a finish reason or end marker: it may be incomplete. */
  cutOff?: boolean;
  /** The model's last call returned no text and no tool calls: the line only carries the notice. */
  empty?: boolean;
  /** What the model reasoned in that call, kept for flagged replies (cut off or empty) only. */
  reasoning?: string;
  /** Shown only, never stored nor sent: the marker of a reply stopped before its first word. */
  transient?: boolean;
}

function storedCalls(calls: ToolCall[] | undefined): StoredToolCall[] | undefined {
  return calls?.map(({ id, name, arguments: args }) => ({ id, name, arguments: args }));
}

/** A stored message as a chat line (the `stopped`, `cutOff` and `empty` marks and the reasoning included). */
export function lineFromStored(message: StoredMessage): ChatLine {
  const marks = message as { stopped?: unknown; cutOff?: unknown; empty?: unknown; reasoning?: unknown };
  return {
    id: message.id,
    seq: message.seq,
    role: message.role,
    content: message.content,
    ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(marks.stopped === true ? { stopped: true } : {}),
    ...(marks.cutOff === true ? { cutOff: true } : {}),
    ...(marks.empty === true ? { empty: true } : {}),
    ...(typeof marks.reasoning === 'string' && marks.reasoning !== '' ? { reasoning: marks.reasoning } : {}),
  };
}

/** A message the agent loop added, as a chat line with a local id until it is stored. */
export function lineFromModel(message: ModelMessage, id: string, seq: number): ChatLine {
  return {
    id,
    seq,
    role: message.role,
    content: message.content,
    ...(message.toolCalls?.length ? { toolCalls: storedCalls(message.toolCalls)! } : {}),
    ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
  };
}

/** What the session store keeps of a line: no id, place or display marks. */
export function messageToStore(line: ChatLine): NewMessage {
  return {
    role: line.role,
    content: line.content,
    ...(line.toolCalls ? { toolCalls: line.toolCalls } : {}),
    ...(line.toolCallId !== undefined ? { toolCallId: line.toolCallId } : {}),
    ...(line.name !== undefined ? { name: line.name } : {}),
  };
}

const TITLE_CHARS = 60;

/** A session title from the first message: its first line, cut at a word. */
export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ').trim();
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > 20 ? cut.slice(0, space) : cut}…`;
}

const INVOCATION = /^\[The user loaded the skill "([^"]+)" for this request\. Follow it\.\]\n\n<skill name="[^"]*">\n[\s\S]*\n<\/skill>\n\n([\s\S]*)$/;

/** For a `/<skill>` message: the skill's name and what the user asked, for display. */
export function skillInvocationOf(content: string): { skill: string; request: string } | null {
  const match = INVOCATION.exec(content);
  return match ? { skill: match[1]!, request: match[2]! } : null;
}
