/**
 * The stored chat lines as the model sees them (docs/chat.md, "What the model is sent"). OpenAI-
 * style servers refuse a request in which a tool call has no result, a result answers no call,
 * or two calls share an id; chats stored before the agent loop made ids unique
 * (src/agent/toolCallIds.ts) can have all three, and a stopped or cut-off reply leaves calls
 * without results. So each reply's calls get session-unique ids, each stored result is paired
 * with a call of the reply it follows and carries that call's id, a call without a result gets a
 * failure result saying why it did not run, and a result that answers no call is left out.
 * Plain TypeScript, no DOM.
 */
import type { ChatMessage as ModelMessage } from '../providers/provider';
import type { ChatLine } from './chatLines';
import { ToolCallIds } from './toolCallIds';

function unrunResult(line: ChatLine): string {
  return JSON.stringify({
    success: false,
    error: line.cutOff ? 'The reply was cut off before this call ran; send it again if it is still needed.' : 'The user stopped the reply before this call ran.',
  });
}

function plainMessage(line: ChatLine): ModelMessage {
  return {
    role: line.role,
    content: line.content,
    ...(line.toolCallId !== undefined ? { toolCallId: line.toolCallId } : {}),
    ...(line.name !== undefined ? { name: line.name } : {}),
  };
}

/**
 * One reply with calls and the tool lines right after it: the reply with unique call ids, the
 * failure results of calls nothing answered, then the stored results in their order. A result
 * takes the first call of the reply with its stored id that no earlier result took (the rule the
 * chat list pairs by too, src/ui/state/chatDisplay.ts). Returns the index after the block.
 */
function replyBlock(lines: readonly ChatLine[], at: number, ids: ToolCallIds, history: ModelMessage[]): number {
  const line = lines[at]!;
  const calls = line.toolCalls!.map((call) => ({ stored: call.id, sent: ids.claim({ ...call }) }));
  const open = new Map<string, number[]>();
  calls.forEach((call, position) => {
    const queue = open.get(call.stored);
    if (queue) queue.push(position);
    else open.set(call.stored, [position]);
  });
  const results: ModelMessage[] = [];
  const answered = new Set<number>();
  let next = at + 1;
  for (; next < lines.length && (lines[next]!.role === 'tool' || lines[next]!.transient); next++) {
    const result = lines[next]!;
    if (result.transient || result.toolCallId === undefined) continue;
    const position = open.get(result.toolCallId)?.shift();
    if (position === undefined) continue; // answers no call of this reply: the server would refuse it
    answered.add(position);
    results.push({ ...plainMessage(result), toolCallId: calls[position]!.sent.id });
  }
  history.push({ ...plainMessage(line), toolCalls: calls.map((call) => call.sent) });
  calls.forEach((call, position) => {
    if (!answered.has(position)) history.push({ role: 'tool', toolCallId: call.sent.id, name: call.sent.name, content: unrunResult(line) });
  });
  history.push(...results);
  return next;
}

/**
 * The lines as the model's history. A line that only carries the empty-reply notice says
 * nothing to the model and is left out (some servers refuse empty messages), as are lines
 * shown only (`transient`).
 */
export function toModelHistory(lines: readonly ChatLine[]): ModelMessage[] {
  const ids = new ToolCallIds();
  const history: ModelMessage[] = [];
  let at = 0;
  while (at < lines.length) {
    const line = lines[at]!;
    if (line.role === 'assistant' && line.toolCalls?.length) {
      at = replyBlock(lines, at, ids, history);
      continue;
    }
    at += 1;
    if (line.transient || line.role === 'tool') continue; // a result after no call answers nothing
    if (line.role === 'assistant' && line.content === '') continue;
    history.push(plainMessage(line));
  }
  return history;
}
