/**
 * Session search that answers (docs/chat.md, "Session search that answers"): after the full-text match, the
 * background model reads each top session and writes down the facts that bear on the query,
 * with the session's date and title, so a small chat model gets the answer instead of three
 * fragments. One request per session, no tools, fitted to that model's window: when the whole
 * conversation does not fit, the messages that match the query and their neighbours are kept,
 * then cut from the end until the request fits. Plain TypeScript, no DOM: it runs in the review
 * worker, where the background model lives.
 */
import type { ChatMessage as ModelMessage, ChatProvider } from '../providers/provider';

/** How many of the best-matching sessions are summarised; the rest keep their snippets. */
export const SUMMARISED_SESSIONS = 3;
/** Room for one summary's answer. */
export const SUMMARY_MAX_TOKENS = 300;
/** Longest single message kept in the transcript the model reads (the rest of it is cut). */
const MESSAGE_CHARS = 2_000;

/** The summariser's instructions (versioned with the words: a change is a new request). */
export const SESSION_SUMMARY_SYSTEM_V1 = [
  'You read one past conversation between a user and an assistant and answer a search query about it.',
  'Write down only the facts from this conversation that bear on the query: names, numbers, dates, decisions, commands and outcomes, exactly as they were said.',
  'Use at most five short lines, no preamble. If nothing in the conversation bears on the query, reply with exactly: nothing relevant.',
].join(' ');

/** A message of a past session as the summariser reads it. */
export interface TranscriptMessage {
  role: string;
  content: string;
}

/** One session to summarise: what the tool found, and what the worker needs to read it. */
export interface SessionToSummarise {
  sessionId: string;
  /** Changes whenever the session does (summaries are cached by it): `updatedAt:messageCount`. */
  version: string;
  title: string;
  /** ISO time of the session's last activity. */
  date: string;
  messages: TranscriptMessage[];
}

export interface SummaryJob {
  runId: string;
  query: string;
  sessions: SessionToSummarise[];
}

export type SessionSummaryResult = { sessionId: string; summary: string } | { sessionId: string; error: string };

/** What a summary job returns; `unavailable` when there is no background model to ask (the tool falls back to snippets). */
export type SummaryOutcome = { kind: 'done'; results: SessionSummaryResult[]; requests: number } | { kind: 'unavailable'; reason: string };

/** The window check of the model that summarises (the same shape the gate's requests pass). */
export type FitsWindow = (messages: ModelMessage[], maxTokens: number) => string | null;

/** The words of a query that a transcript line is matched against (lower case, three letters or more). */
export function queryWords(query: string): string[] {
  return [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 3))];
}

const lineOf = (message: TranscriptMessage) => {
  const text = message.content.replace(/\s+/g, ' ').trim();
  return `[${message.role}] ${text.length > MESSAGE_CHARS ? `${text.slice(0, MESSAGE_CHARS)} …` : text}`;
};

/** The transcript lines worth reading for the query: all of them, or the matches and their neighbours when that is shorter. */
export function transcriptLines(messages: readonly TranscriptMessage[], query: string, focus: boolean): string[] {
  const usable = messages.filter((message) => message.content.trim() !== '' && message.role !== 'system');
  if (!focus) return usable.map(lineOf);
  const words = queryWords(query);
  const keep = new Set<number>();
  usable.forEach((message, i) => {
    const text = message.content.toLowerCase();
    if (words.some((word) => text.includes(word))) for (const at of [i - 1, i, i + 1]) if (at >= 0 && at < usable.length) keep.add(at);
  });
  if (keep.size === 0) return usable.map(lineOf);
  const lines: string[] = [];
  let last = -1;
  for (const at of [...keep].sort((a, b) => a - b)) {
    if (at > last + 1) lines.push('[…]');
    lines.push(lineOf(usable[at]!));
    last = at;
  }
  if (last < usable.length - 1) lines.push('[…]');
  return lines;
}

export function summaryMessages(session: Pick<SessionToSummarise, 'title' | 'date'>, query: string, transcript: string): ModelMessage[] {
  const user = [`Query: ${query}`, `Conversation "${session.title}" of ${session.date.slice(0, 10)}:`, '---', transcript, '---', 'The facts that bear on the query:'].join('\n');
  return [
    { role: 'system', content: SESSION_SUMMARY_SYSTEM_V1 },
    { role: 'user', content: user },
  ];
}

const CUT_NOTE = '\n[… the rest of this conversation is left out to fit the model’s window]';

/**
 * The request for one session, fitted to the window: the whole transcript when it fits, else
 * the lines around the matches, else the longest head of those that fits (binary search, the
 * window check deciding). Null when even the request without a transcript does not fit.
 */
export function fittedSummaryMessages(session: SessionToSummarise, query: string, fits: FitsWindow, maxTokens = SUMMARY_MAX_TOKENS): ModelMessage[] | null {
  const whole = summaryMessages(session, query, transcriptLines(session.messages, query, false).join('\n'));
  if (fits(whole, maxTokens) === null) return whole;
  const focused = transcriptLines(session.messages, query, true).join('\n');
  const focusedMessages = summaryMessages(session, query, focused);
  if (fits(focusedMessages, maxTokens) === null) return focusedMessages;
  const cut = (chars: number) => summaryMessages(session, query, focused.slice(0, chars) + CUT_NOTE);
  if (fits(cut(0), maxTokens) !== null) return null;
  let low = 0;
  let high = focused.length;
  while (high - low > 64) {
    const middle = Math.floor((low + high) / 2);
    if (fits(cut(middle), maxTokens) === null) low = middle;
    else high = middle;
  }
  return cut(low);
}

export interface Summariser {
  provider: ChatProvider;
  fits: FitsWindow;
  signal?: AbortSignal;
}

/** The model's answer without think blocks and blank lines; "nothing relevant" stays as said. */
export function cleanSummary(text: string): string {
  return text
    .replace(/<think>[\s\S]*?<\/think>/gi, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n')
    .trim();
}

/** Summarises each session in turn (one request each, so a local model is never asked twice at once). */
export async function summariseSessions(summariser: Summariser, job: Pick<SummaryJob, 'query' | 'sessions'>): Promise<{ results: SessionSummaryResult[]; requests: number }> {
  const results: SessionSummaryResult[] = [];
  let requests = 0;
  for (const session of job.sessions) {
    if (summariser.signal?.aborted) break;
    const messages = fittedSummaryMessages(session, job.query, summariser.fits);
    if (!messages) {
      results.push({ sessionId: session.sessionId, error: 'the request does not fit the background model’s window' });
      continue;
    }
    let text = '';
    requests++;
    try {
      const stream = summariser.provider.stream({ messages, maxTokens: SUMMARY_MAX_TOKENS, temperature: 0, signal: summariser.signal });
      for await (const part of stream) if (part.type === 'text-delta') text += part.text;
    } catch (error) {
      results.push({ sessionId: session.sessionId, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    const summary = cleanSummary(text);
    results.push(summary ? { sessionId: session.sessionId, summary } : { sessionId: session.sessionId, error: 'the background model answered with nothing' });
  }
  return { results, requests };
}

/**
 * Summaries by (session version, query), kept in the tab's memory: asking the same thing about
 * an unchanged session costs no request; a session that changed is read again.
 */
export class SummaryCache {
  readonly #entries = new Map<string, string>();

  constructor(private readonly capacity = 200) {}

  static key(session: Pick<SessionToSummarise, 'sessionId' | 'version'>, query: string): string {
    return `${session.sessionId}\u0000${session.version}\u0000${query.trim().toLowerCase().replace(/\s+/g, ' ')}`;
  }

  get(key: string): string | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      // Most recently used last, so the oldest goes first when full.
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, summary: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, summary);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}
