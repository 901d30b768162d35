/**
 * Chat sessions and their messages (docs/storage.md: one record per message, never one blob per
 * session). The store keeps the rules — message order (`seq`), timestamps, truncation for
 * regenerate and edit-and-resend, cascade delete — and a backend keeps the records:
 * IndexedDB in the app (`idbSessionBackend.ts`), a Map in unit tests (`memorySessionBackend.ts`).
 *
 * Listeners hear every change with its records, so the search index can follow without
 * re-reading; the app also turns changes into `session-changed` events for other tabs.
 * No DOM here.
 */
import type { MessageRecord, SessionRecord } from '../storage/db';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

/** A tool call the assistant asked for (OpenAI shape, arguments as the model sent them). */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatMessage extends MessageRecord {
  id: string;
  sessionId: string;
  /** 0-based position in the session; unique per session (index bySessionSeq). */
  seq: number;
  role: MessageRole;
  content: string;
  toolCalls?: StoredToolCall[];
  /** For role `tool`: the call this result answers. */
  toolCallId?: string;
  /** For role `tool`: the tool's name. */
  name?: string;
  createdAt: number;
  /** Set when the message was changed after it was appended (streaming finalised, edited). */
  updatedAt?: number;
}

/** The provider (a saved provider's id, docs/providers.md) and model a chat talks to. */
export interface SessionModelChoice {
  providerId: string;
  model: string;
}

export interface ChatSession extends SessionRecord {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  /** Learning-loop counters (docs/learning-loop.md), persisted so a reload does not reset them. */
  itersSinceSkill: number;
  turnsSinceMemory: number;
  /** The system prompt frozen at session start (memory snapshot, skill index…), or null. */
  snapshot: string | null;
  /**
   * The chat's own provider and model, chosen in its header. Absent on sessions stored before
   * chats had one: those use the default provider's model until the user picks one.
   */
  chatModel?: SessionModelChoice;
  /**
   * The summary of the conversation's middle, once it outgrew the model's window
   * (docs/context-window.md, "Compaction"). The messages it covers stay stored and searchable.
   */
  summary?: SessionSummary;
}

/** What a compaction leaves with the session: the summary and the last message it covers. */
export interface SessionSummary {
  text: string;
  /** The seq of the last message the summary covers; messages after it are sent whole. */
  throughSeq: number;
  /** When it was written (ms). */
  at: number;
  /** How many compactions the session has had, this one included. */
  count: number;
}

export interface NewMessage {
  role: MessageRole;
  content: string;
  toolCalls?: StoredToolCall[];
  toolCallId?: string;
  name?: string;
}

export type MessagePatch = Partial<Pick<ChatMessage, 'content' | 'toolCalls' | 'toolCallId' | 'name'>> & Record<string, unknown>;

export type SessionChange =
  | { kind: 'session-created'; session: ChatSession }
  | { kind: 'session-updated'; session: ChatSession }
  | { kind: 'session-deleted'; sessionId: string; messageIds: string[] }
  | { kind: 'message-added'; message: ChatMessage }
  /** Several messages appended in one transaction (appendMany), in seq order. */
  | { kind: 'messages-added'; sessionId: string; messages: ChatMessage[] }
  | { kind: 'message-updated'; message: ChatMessage }
  | { kind: 'messages-removed'; sessionId: string; messageIds: string[] };

export type SessionListener = (change: SessionChange) => void;

export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';
  constructor(readonly sessionId: string) {
    super(`Session ${sessionId} does not exist (it may have been deleted in another tab).`);
  }
}

export class MessageNotFoundError extends Error {
  override readonly name = 'MessageNotFoundError';
  constructor(readonly messageId: string) {
    super(`Message ${messageId} does not exist.`);
  }
}

/**
 * Where sessions live. Each method is one transaction: a reader never sees a message
 * without its session's counters updated, or a deleted session with messages left over.
 */
export interface SessionBackend {
  putSession(session: ChatSession): Promise<void>;
  getSession(id: string): Promise<ChatSession | undefined>;
  getSessions(ids: readonly string[]): Promise<(ChatSession | undefined)[]>;
  /** Newest first (by updatedAt). */
  listSessions(): Promise<ChatSession[]>;
  /** Read-modify-write of one session; throws SessionNotFoundError. */
  updateSession(id: string, change: (session: ChatSession) => ChatSession): Promise<ChatSession>;
  /** Next seq, the message, and the session's updatedAt/messageCount, together. */
  appendMessage(sessionId: string, build: (seq: number) => ChatMessage): Promise<ChatMessage>;
  /**
   * Several messages at consecutive seqs from the next one, and the session's updatedAt and
   * messageCount, in one transaction: either all are stored or none is.
   */
  appendMessages(sessionId: string, build: (firstSeq: number) => ChatMessage[]): Promise<ChatMessage[]>;
  /** Throws MessageNotFoundError. */
  updateMessage(id: string, change: (message: ChatMessage) => ChatMessage, now: number): Promise<ChatMessage>;
  /** Deletes the session's messages with seq > `seq`; returns their ids. */
  truncateAfter(sessionId: string, seq: number, now: number): Promise<string[]>;
  /** Deletes the session and all its messages; returns the message ids (empty if none). */
  deleteSession(id: string): Promise<string[] | null>;
  /** A session's messages in seq order. */
  getMessages(sessionId: string): Promise<ChatMessage[]>;
  getMessagesByIds(ids: readonly string[]): Promise<(ChatMessage | undefined)[]>;
  /** Every message, in batches (index rebuilds). */
  forEachMessageBatch(visit: (batch: ChatMessage[]) => void, batchSize?: number): Promise<void>;
}

export interface SessionStoreOptions {
  now?: () => number;
  newId?: () => string;
}

export const DEFAULT_SESSION_TITLE = 'New chat';

function messageRecord(sessionId: string, id: string, seq: number, createdAt: number, message: NewMessage): ChatMessage {
  return {
    id,
    sessionId,
    seq,
    role: message.role,
    content: message.content,
    ...(message.toolCalls ? { toolCalls: message.toolCalls } : {}),
    ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
    createdAt,
  };
}

/** The learning counters a session keeps (docs/learning-loop.md). */
export type SessionCounters = Partial<Pick<ChatSession, 'itersSinceSkill' | 'turnsSinceMemory'>>;

export class SessionStore {
  private readonly listeners = new Set<SessionListener>();
  private readonly now: () => number;
  private readonly newId: () => string;
  private lastTime = 0;

  constructor(
    readonly backend: SessionBackend,
    options: SessionStoreOptions = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.newId = options.newId ?? (() => crypto.randomUUID());
  }

  /** Returns the function that unsubscribes. */
  subscribe(listener: SessionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async create(init: { title?: string; snapshot?: string | null; chatModel?: SessionModelChoice | null } = {}): Promise<ChatSession> {
    const at = this.tick();
    const session: ChatSession = {
      id: this.newId(),
      title: init.title?.trim() || DEFAULT_SESSION_TITLE,
      createdAt: at,
      updatedAt: at,
      messageCount: 0,
      itersSinceSkill: 0,
      turnsSinceMemory: 0,
      snapshot: init.snapshot ?? null,
      ...(init.chatModel ? { chatModel: { providerId: init.chatModel.providerId, model: init.chatModel.model } } : {}),
    };
    await this.backend.putSession(session);
    this.emit({ kind: 'session-created', session });
    return session;
  }

  get(id: string): Promise<ChatSession | undefined> {
    return this.backend.getSession(id);
  }

  /** Newest first. */
  list(): Promise<ChatSession[]> {
    return this.backend.listSessions();
  }

  async rename(id: string, title: string): Promise<ChatSession> {
    const clean = title.trim().replace(/\s+/g, ' ');
    if (!clean) throw new Error('A session title cannot be empty.');
    // Renaming is not activity: the list order (updatedAt) stays.
    return this.update(id, (s) => ({ ...s, title: clean }));
  }

  /** The frozen system prompt, set once when the session starts. */
  setSnapshot(id: string, snapshot: string | null): Promise<ChatSession> {
    return this.update(id, (s) => ({ ...s, snapshot }));
  }

  /** The chat's model, chosen in its header. Choosing is not activity: the list order stays. */
  setChatModel(id: string, chatModel: SessionModelChoice): Promise<ChatSession> {
    return this.update(id, (s) => ({ ...s, chatModel: { providerId: chatModel.providerId, model: chatModel.model } }));
  }

  /** Stores (or, with null, drops) the session's summary; the messages are untouched. */
  setSummary(id: string, summary: SessionSummary | null): Promise<ChatSession> {
    return this.update(id, (s) => {
      const { summary: _dropped, ...rest } = s;
      return summary ? { ...rest, summary: { ...summary } } : rest;
    });
  }

  /**
   * The learning counters: the values to set, or a function of the stored ones, applied in the
   * session's one transaction (a turn in another tab may have counted meanwhile).
   */
  updateCounters(id: string, counters: SessionCounters | ((stored: Required<SessionCounters>) => SessionCounters)): Promise<ChatSession> {
    return this.update(id, (s) => ({ ...s, ...(typeof counters === 'function' ? counters({ itersSinceSkill: s.itersSinceSkill ?? 0, turnsSinceMemory: s.turnsSinceMemory ?? 0 }) : counters) }));
  }

  /** Deletes the session and its messages in one transaction. False when it did not exist. */
  async delete(id: string): Promise<boolean> {
    const messageIds = await this.backend.deleteSession(id);
    if (messageIds === null) return false;
    this.emit({ kind: 'session-deleted', sessionId: id, messageIds });
    return true;
  }

  async append(sessionId: string, message: NewMessage): Promise<ChatMessage> {
    const at = this.tick();
    const id = this.newId();
    const stored = await this.backend.appendMessage(sessionId, (seq) => messageRecord(sessionId, id, seq, at, message));
    this.emit({ kind: 'message-added', message: stored });
    return stored;
  }

  /**
   * Appends the messages in their order in one transaction (a turn's burst of tool results is
   * one write, not one per message): all are stored, at consecutive seqs, or none is
   * (docs/chat.md, "Saving").
   */
  async appendMany(sessionId: string, messages: readonly NewMessage[]): Promise<ChatMessage[]> {
    if (messages.length === 0) return [];
    const stamps = messages.map(() => ({ id: this.newId(), at: this.tick() }));
    const stored = await this.backend.appendMessages(sessionId, (firstSeq) =>
      messages.map((message, index) => messageRecord(sessionId, stamps[index]!.id, firstSeq + index, stamps[index]!.at, message)),
    );
    this.emit({ kind: 'messages-added', sessionId, messages: stored });
    return stored;
  }

  /** Finalise a streamed reply, or rewrite a message (regenerate, edit-and-resend). */
  async updateMessage(id: string, patch: MessagePatch): Promise<ChatMessage> {
    const at = this.tick();
    const { id: _id, sessionId: _s, seq: _q, createdAt: _c, ...allowed } = patch as Record<string, unknown>;
    const stored = await this.backend.updateMessage(id, (m) => ({ ...m, ...allowed, updatedAt: at }) as ChatMessage, at);
    this.emit({ kind: 'message-updated', message: stored });
    return stored;
  }

  /** Drops every message after `seq` (regenerate: the reply after the prompt; edit: all after the edited one). */
  async truncateAfter(sessionId: string, seq: number): Promise<string[]> {
    const removed = await this.backend.truncateAfter(sessionId, seq, this.tick());
    if (removed.length > 0) this.emit({ kind: 'messages-removed', sessionId, messageIds: removed });
    return removed;
  }

  /** A session's messages in order. */
  messages(sessionId: string): Promise<ChatMessage[]> {
    return this.backend.getMessages(sessionId);
  }

  private async update(id: string, change: (s: ChatSession) => ChatSession): Promise<ChatSession> {
    const session = await this.backend.updateSession(id, change);
    this.emit({ kind: 'session-updated', session });
    return session;
  }

  /** Strictly increasing times, so "newest first" is stable for changes in the same millisecond. */
  private tick(): number {
    const now = this.now();
    this.lastTime = now > this.lastTime ? now : this.lastTime + 1;
    return this.lastTime;
  }

  private emit(change: SessionChange): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (err) {
        console.error('[knack] session listener failed', err);
      }
    }
  }
}
