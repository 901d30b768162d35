/**
 * What a background review reads of the session (docs/learning-loop.md, "What a review reads"):
 * the conversation as the model saw it, bounded so a very long turn — a model asking for 200
 * tool calls in every reply, thousands of messages — neither fills the review model's context
 * nor costs the chat a long copy to the review worker. The rule, applied on the UI thread
 * before anything is sent:
 *
 * - a reply keeps its first REVIEW_CALLS_PER_REPLY tool calls with their results; the others
 *   and their results are left out, and the reply says how many, of which tools;
 * - a tool result longer than REVIEW_RESULT_CHARS keeps its beginning and says how much is cut;
 * - of what is left, the last REVIEW_MAX_MESSAGES messages are kept (starting at a message that
 *   is not a tool result), after a note saying how many earlier ones the review does not see.
 *
 * A short session is copied unchanged. The result is plain data (never the caller's objects).
 * Plain TypeScript, no DOM.
 */
import type { ChatMessage } from '../providers/provider';

export const REVIEW_CALLS_PER_REPLY = 8;
export const REVIEW_RESULT_CHARS = 2_000;
export const REVIEW_MAX_MESSAGES = 400;

function copyOf(message: ChatMessage): ChatMessage {
  return { ...message, ...(message.toolCalls ? { toolCalls: message.toolCalls.map((call) => ({ ...call })) } : {}) };
}

/** "skills_list ×190, memory ×2" for the calls left out. */
function callCounts(calls: readonly { name: string }[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  return [...counts].map(([name, count]) => `${name} ×${count}`).join(', ');
}

function boundedReply(message: ChatMessage, dropped: Set<string>): ChatMessage {
  const calls = message.toolCalls ?? [];
  if (calls.length <= REVIEW_CALLS_PER_REPLY) return copyOf(message);
  const left = calls.slice(REVIEW_CALLS_PER_REPLY);
  for (const call of left) dropped.add(call.id);
  const note = `[For this review: ${left.length} more tool calls of this reply and their results are left out (${callCounts(left)}).]`;
  return {
    ...copyOf(message),
    content: message.content ? `${message.content}\n\n${note}` : note,
    toolCalls: calls.slice(0, REVIEW_CALLS_PER_REPLY).map((call) => ({ ...call })),
  };
}

function boundedResult(message: ChatMessage): ChatMessage {
  if (message.content.length <= REVIEW_RESULT_CHARS) return copyOf(message);
  const cut = message.content.length - REVIEW_RESULT_CHARS;
  return { ...copyOf(message), content: `${message.content.slice(0, REVIEW_RESULT_CHARS)}… [${cut} more characters left out for this review]` };
}

/** The session's messages (without the system prompt) as the review reads them. */
export function reviewTranscript(messages: readonly ChatMessage[]): ChatMessage[] {
  const dropped = new Set<string>();
  const kept: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (message.toolCallId !== undefined && dropped.has(message.toolCallId)) continue;
      kept.push(boundedResult(message));
    } else {
      kept.push(message.role === 'assistant' ? boundedReply(message, dropped) : copyOf(message));
    }
  }
  if (kept.length <= REVIEW_MAX_MESSAGES) return kept;
  let start = kept.length - REVIEW_MAX_MESSAGES + 1; // one place for the note
  while (start < kept.length && kept[start]!.role === 'tool') start++;
  const note: ChatMessage = { role: 'user', content: `[For this review: the ${start} earlier messages of this conversation are left out; what follows is its end.]` };
  return [note, ...kept.slice(start)];
}
