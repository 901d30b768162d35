/**
 * Repeat notices kept honest in a fitted request (docs/skill-tools.md, "A repeated view"). A
 * second `skill_view` of an unchanged file answers "already in the conversation, use the copy
 * above"; the window fitting may cut or leave out that earlier copy, and the notice would then
 * point the model at a text it sees only in part. So the fitting keeps the copy that a notice of
 * the latest reply block means as whole as that block (`copiesMeantByLatestBlock`); a notice whose
 * copy the request still does not carry whole says so instead (`honestNotices`); and the views
 * whose latest copy the request did not carry whole are named, so the turn's record forgets them
 * and the next view sends the file again (tools/viewedFiles.ts). Plain TypeScript, no DOM.
 */
import type { ChatMessage } from '../providers/provider';
import { viewKey, viewOffset } from '../tools/viewedFiles';

const VIEW_TOOL = 'skill_view';

/** What a notice whose copy is not carried whole says instead (no longer than the notice). */
export const COPY_CUT_MESSAGE = 'The earlier copy was cut to fit your context window; call skill_view again to read it whole.';

interface ViewResult {
  callId: string;
  key: string;
  notice: boolean;
  shown: Record<string, unknown>;
}

function parseObject(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The successful skill_view results of the messages, in order: copies (with content) and notices. */
function viewResults(messages: readonly ChatMessage[]): ViewResult[] {
  const viewArgs = new Map<string, string>();
  const results: ViewResult[] = [];
  for (const message of messages) {
    for (const call of message.toolCalls ?? []) if (call.name === VIEW_TOOL) viewArgs.set(call.id, call.arguments);
    const callId = message.toolCallId;
    if (message.role !== 'tool' || callId === undefined || !viewArgs.has(callId)) continue;
    const shown = parseObject(message.content);
    if (!shown || shown.success !== true) continue;
    const notice = shown.already_in_conversation === true;
    if (!notice && typeof shown.content !== 'string') continue;
    results.push({ callId, key: viewKey(shown, viewOffset(parseObject(viewArgs.get(callId)))), notice, shown });
  }
  return results;
}

/** Each notice's copy: the latest copy of the same view before it (absent when the messages do not hold one). */
function copiesOfNotices(results: readonly ViewResult[]): { copyOf: Map<string, string | undefined>; latestCopy: Map<string, string> } {
  const latestCopy = new Map<string, string>();
  const copyOf = new Map<string, string | undefined>();
  for (const result of results) {
    if (result.notice) copyOf.set(result.callId, latestCopy.get(result.key));
    else latestCopy.set(result.key, result.callId);
  }
  return { copyOf, latestCopy };
}

/** The call ids of the copies that the notices answering the latest tool calls mean: they are kept whole with that block. */
export function copiesMeantByLatestBlock(messages: readonly ChatMessage[]): Set<string> {
  const latest = messages.findLast((message) => message.role === 'assistant' && message.toolCalls?.length);
  const latestIds = new Set(latest?.toolCalls?.map((call) => call.id));
  const { copyOf } = copiesOfNotices(viewResults(messages));
  const keep = new Set<string>();
  for (const [noticeId, copyId] of copyOf) if (latestIds.has(noticeId) && copyId !== undefined) keep.add(copyId);
  return keep;
}

/**
 * The fitted messages with every notice whose copy they do not carry whole rewritten to say so,
 * and the views (record keys) whose latest copy in `original` the fitted messages do not carry
 * whole: cut, or left out, or summarised.
 */
export function honestNotices(original: readonly ChatMessage[], fitted: readonly ChatMessage[]): { messages: ChatMessage[]; notWhole: string[] } {
  const results = viewResults(original);
  if (results.length === 0) return { messages: [...fitted], notWhole: [] };
  const { copyOf, latestCopy } = copiesOfNotices(results);
  const originalText = new Map(original.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.content]));
  const fittedText = new Map(fitted.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.content]));
  const whole = (callId: string | undefined) => callId !== undefined && fittedText.has(callId) && fittedText.get(callId) === originalText.get(callId);
  const notices = new Map(results.filter((result) => result.notice).map((result) => [result.callId, result]));
  const messages = fitted.map((message) => {
    const notice = message.toolCallId === undefined ? undefined : notices.get(message.toolCallId);
    if (message.role !== 'tool' || !notice || whole(copyOf.get(notice.callId))) return message;
    const { name, path, skill_dir, file } = notice.shown;
    return { ...message, content: JSON.stringify({ success: true, name, path, skill_dir, file, message: COPY_CUT_MESSAGE }) };
  });
  const notWhole = [...latestCopy].filter(([, callId]) => !whole(callId)).map(([key]) => key);
  return { messages, notWhole };
}
