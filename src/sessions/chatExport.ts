/**
 * A chat as a file the user keeps or shares (docs/chat.md, "Export a chat"): Markdown to read,
 * JSON to process. Pure functions over a session and its messages; the session list turns the
 * text into a download. No DOM here.
 *
 * The frozen system prompt (`snapshot`) is left out of both: it carries the user's memory and
 * skill index, which a shared chat should not leak.
 */
import type { ChatMessage, ChatSession, MessageRole, StoredToolCall } from './sessionStore';

/** Bump when a field changes meaning or goes; adding an optional field keeps the version. */
export const CHAT_EXPORT_VERSION = 1;
export const CHAT_EXPORT_FORMAT = 'knack-chat';

/** One message in the JSON export. Times are ISO 8601 strings (UTC). */
export interface ExportedMessage {
  seq: number;
  role: MessageRole;
  content: string;
  createdAt: string;
  updatedAt?: string;
  /** Assistant messages: the calls the model asked for, arguments exactly as it sent them. */
  toolCalls?: StoredToolCall[];
  /** Tool messages: the call answered and the tool's name. */
  toolCallId?: string;
  name?: string;
  /** The model's reasoning, when the chat kept it (flagged replies only). */
  reasoning?: string;
  stopped?: boolean;
  cutOff?: boolean;
  empty?: boolean;
}

/** The JSON export: `format` and `version` first so a reader can tell what it holds. */
export interface ChatExport {
  format: typeof CHAT_EXPORT_FORMAT;
  version: typeof CHAT_EXPORT_VERSION;
  exportedAt: string;
  session: {
    id: string;
    title: string;
    createdAt: string;
    updatedAt: string;
    messageCount: number;
    /** The model the chat used, when it is known. */
    model?: string;
  };
  messages: ExportedMessage[];
}

export interface ChatExportOptions {
  /** When the export is made (ms since the epoch); injectable for tests. */
  now?: number;
  /** The model the chat used, when the caller knows it. */
  model?: string;
}

interface DisplayMarks {
  reasoning?: unknown;
  stopped?: unknown;
  cutOff?: unknown;
  empty?: unknown;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function exportedMessage(message: ChatMessage): ExportedMessage {
  const marks = message as DisplayMarks;
  return {
    seq: message.seq,
    role: message.role,
    content: message.content,
    createdAt: iso(message.createdAt),
    ...(message.updatedAt !== undefined ? { updatedAt: iso(message.updatedAt) } : {}),
    ...(message.toolCalls?.length ? { toolCalls: message.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) } : {}),
    ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(typeof marks.reasoning === 'string' && marks.reasoning !== '' ? { reasoning: marks.reasoning } : {}),
    ...(marks.stopped === true ? { stopped: true } : {}),
    ...(marks.cutOff === true ? { cutOff: true } : {}),
    ...(marks.empty === true ? { empty: true } : {}),
  };
}

/** The versioned JSON shape of a chat (messages in order). */
export function chatToExport(session: ChatSession, messages: readonly ChatMessage[], options: ChatExportOptions = {}): ChatExport {
  const ordered = [...messages].sort((a, b) => a.seq - b.seq);
  // The chat's own model choice (Chat model select) unless the caller names one.
  const model = options.model ?? session.chatModel?.model;
  return {
    format: CHAT_EXPORT_FORMAT,
    version: CHAT_EXPORT_VERSION,
    exportedAt: iso(options.now ?? Date.now()),
    session: {
      id: session.id,
      title: session.title,
      createdAt: iso(session.createdAt),
      updatedAt: iso(session.updatedAt),
      messageCount: ordered.length,
      ...(model ? { model } : {}),
    },
    messages: ordered.map(exportedMessage),
  };
}

export function chatToJson(session: ChatSession, messages: readonly ChatMessage[], options: ChatExportOptions = {}): string {
  return `${JSON.stringify(chatToExport(session, messages, options), null, 2)}\n`;
}

/** A code fence longer than any run of backticks in `text`, so the text cannot close it. */
function fenced(text: string, language = ''): string {
  const longestRun = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Pretty JSON when the text parses, else the text as it came. */
function prettyJson(text: string): { text: string; parsed: unknown; ok: boolean } {
  try {
    const parsed: unknown = JSON.parse(text);
    return { text: JSON.stringify(parsed, null, 2), parsed, ok: true };
  } catch {
    return { text, parsed: undefined, ok: false };
  }
}

function folded(summary: string, body: string): string {
  return `<details>\n<summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const oneLine = (text ?? String(value)).replace(/\s+/g, ' ').trim();
  return oneLine.length > 60 ? `${oneLine.slice(0, 57)}…` : oneLine;
}

/** "`skill_view` with name: “x”, path: “y”": a call a person can read at a glance. */
export function summariseToolCall(call: Pick<StoredToolCall, 'name' | 'arguments'>): string {
  const args = prettyJson(call.arguments);
  const name = `\`${call.name}\``;
  if (!args.ok) return `${name} with arguments that are not valid JSON`;
  if (args.parsed === null || typeof args.parsed !== 'object' || Array.isArray(args.parsed)) return `${name} with ${shortValue(args.parsed)}`;
  const entries = Object.entries(args.parsed as Record<string, unknown>);
  if (entries.length === 0) return `${name} with no arguments`;
  const shown = entries.slice(0, 4).map(([key, value]) => `${key}: “${shortValue(value)}”`);
  const more = entries.length > 4 ? `, and ${entries.length - 4} more` : '';
  return `${name} with ${shown.join(', ')}${more}`;
}

/** "Succeeded" / "Failed: <error>" for a tool result in our `{success, …}` shape, else null. */
export function summariseToolResult(content: string): string | null {
  const result = prettyJson(content);
  if (!result.ok || result.parsed === null || typeof result.parsed !== 'object') return null;
  const record = result.parsed as Record<string, unknown>;
  if (typeof record.success !== 'boolean') return null;
  if (record.success) return 'Succeeded';
  return typeof record.error === 'string' ? `Failed: ${shortValue(record.error)}` : 'Failed';
}

const ROLE_HEADINGS: Record<MessageRole, string> = { user: 'You', assistant: 'Assistant', tool: 'Tool result', system: 'System' };

function markdownMessage(message: ExportedMessage): string {
  const parts: string[] = [];
  const heading = message.role === 'tool' && message.name ? `${ROLE_HEADINGS.tool}: \`${message.name}\`` : ROLE_HEADINGS[message.role];
  parts.push(`## ${heading}`);
  const flags = [message.stopped && 'stopped by you', message.cutOff && 'cut off', message.empty && 'empty reply'].filter(Boolean);
  if (flags.length) parts.push(`*(${flags.join(', ')})*`);
  if (message.reasoning) parts.push(folded('Reasoning', fenced(message.reasoning, 'text')));
  if (message.role === 'tool') {
    const summary = summariseToolResult(message.content);
    const raw = prettyJson(message.content);
    if (summary) parts.push(`**${summary}**`);
    parts.push(raw.ok ? folded('Raw result (JSON)', fenced(raw.text, 'json')) : fenced(message.content, 'text'));
  } else if (message.content) {
    parts.push(message.content);
  }
  for (const call of message.toolCalls ?? []) {
    parts.push(`**Tool call:** ${summariseToolCall(call)}`);
    parts.push(folded(`Raw call (JSON)`, fenced(JSON.stringify({ id: call.id, name: call.name, arguments: prettyJson(call.arguments).parsed ?? call.arguments }, null, 2), 'json')));
  }
  return parts.join('\n\n');
}

/** The chat as Markdown: title, dates, model when known, then each message under its role. */
export function chatToMarkdown(session: ChatSession, messages: readonly ChatMessage[], options: ChatExportOptions = {}): string {
  const data = chatToExport(session, messages, options);
  const header = [
    `# ${data.session.title}`,
    [
      `- Started: ${data.session.createdAt}`,
      `- Last message: ${data.session.updatedAt}`,
      ...(data.session.model ? [`- Model: ${data.session.model}`] : []),
      `- Messages: ${data.session.messageCount}`,
      `- Exported from Knack: ${data.exportedAt}`,
    ].join('\n'),
  ];
  const body = data.messages.map(markdownMessage);
  return `${[...header, ...body].join('\n\n---\n\n')}\n`;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

/** A file name from the title: letters, digits, `-` and `_` only, at most 80 characters. */
export function chatExportFileName(title: string, extension: 'md' | 'json'): string {
  const base = title
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, 80)
    .replace(/[-_]+$/, '');
  const safe = base === '' ? 'chat' : WINDOWS_RESERVED.test(base) ? `${base}-chat` : base;
  return `${safe}.${extension}`;
}
