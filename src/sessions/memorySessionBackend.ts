/**
 * In-memory SessionBackend for unit tests and benchmarks (the app uses idbSessionBackend.ts).
 * Records are copied in and out, as IndexedDB's structured clone would, so a caller that
 * mutates a returned object does not change the store.
 */
import { MessageNotFoundError, SessionNotFoundError, type ChatMessage, type ChatSession, type SessionBackend } from './sessionStore';

const copy = <T>(value: T): T => structuredClone(value);

export class MemorySessionBackend implements SessionBackend {
  private readonly sessions = new Map<string, ChatSession>();
  private readonly messagesById = new Map<string, ChatMessage>();
  /** sessionId → messages ordered by seq. */
  private readonly bySession = new Map<string, ChatMessage[]>();

  async putSession(session: ChatSession): Promise<void> {
    this.sessions.set(session.id, copy(session));
    if (!this.bySession.has(session.id)) this.bySession.set(session.id, []);
  }

  async getSession(id: string): Promise<ChatSession | undefined> {
    const s = this.sessions.get(id);
    return s && copy(s);
  }

  async getSessions(ids: readonly string[]): Promise<(ChatSession | undefined)[]> {
    return ids.map((id) => {
      const s = this.sessions.get(id);
      return s && copy(s);
    });
  }

  async listSessions(): Promise<ChatSession[]> {
    return [...this.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt).map(copy);
  }

  async updateSession(id: string, change: (session: ChatSession) => ChatSession): Promise<ChatSession> {
    const current = this.sessions.get(id);
    if (!current) throw new SessionNotFoundError(id);
    const next = change(copy(current));
    this.sessions.set(id, copy(next));
    return next;
  }

  async appendMessage(sessionId: string, build: (seq: number) => ChatMessage): Promise<ChatMessage> {
    const [message] = await this.appendMessages(sessionId, (seq) => [build(seq)]);
    return message!;
  }

  async appendMessages(sessionId: string, build: (firstSeq: number) => ChatMessage[]): Promise<ChatMessage[]> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    const list = this.bySession.get(sessionId)!;
    const batch = build(list.length > 0 ? list[list.length - 1]!.seq + 1 : 0);
    // Copied before anything is kept: a message that cannot be cloned fails the whole batch, as in IndexedDB.
    const copies = batch.map(copy);
    for (const message of copies) {
      list.push(message);
      this.messagesById.set(message.id, message);
    }
    const latest = batch.reduce((at, message) => Math.max(at, message.createdAt), session.updatedAt);
    this.sessions.set(sessionId, { ...session, updatedAt: latest, messageCount: list.length });
    return batch;
  }

  /** Adds many ready-made messages at once (benchmarks and test fixtures). */
  loadMessages(messages: readonly ChatMessage[]): void {
    for (const message of messages) {
      const list = this.bySession.get(message.sessionId);
      if (!list) throw new SessionNotFoundError(message.sessionId);
      list.push(message);
      this.messagesById.set(message.id, message);
    }
    for (const [id, list] of this.bySession) {
      list.sort((a, b) => a.seq - b.seq);
      const session = this.sessions.get(id)!;
      session.messageCount = list.length;
    }
  }

  async updateMessage(id: string, change: (message: ChatMessage) => ChatMessage, now: number): Promise<ChatMessage> {
    const current = this.messagesById.get(id);
    if (!current) throw new MessageNotFoundError(id);
    const next = copy(change(copy(current)));
    const list = this.bySession.get(current.sessionId)!;
    list[list.indexOf(current)] = next;
    this.messagesById.set(id, next);
    const session = this.sessions.get(current.sessionId);
    if (session) session.updatedAt = Math.max(session.updatedAt, now);
    return copy(next);
  }

  async truncateAfter(sessionId: string, seq: number, now: number): Promise<string[]> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new SessionNotFoundError(sessionId);
    const list = this.bySession.get(sessionId)!;
    const removed = list.filter((m) => m.seq > seq);
    if (removed.length === 0) return [];
    this.bySession.set(sessionId, list.filter((m) => m.seq <= seq));
    for (const m of removed) this.messagesById.delete(m.id);
    this.sessions.set(sessionId, { ...session, messageCount: list.length - removed.length, updatedAt: Math.max(session.updatedAt, now) });
    return removed.map((m) => m.id);
  }

  async deleteSession(id: string): Promise<string[] | null> {
    if (!this.sessions.has(id)) return null;
    const list = this.bySession.get(id) ?? [];
    for (const m of list) this.messagesById.delete(m.id);
    this.bySession.delete(id);
    this.sessions.delete(id);
    return list.map((m) => m.id);
  }

  async getMessages(sessionId: string): Promise<ChatMessage[]> {
    return (this.bySession.get(sessionId) ?? []).map(copy);
  }

  async getMessagesByIds(ids: readonly string[]): Promise<(ChatMessage | undefined)[]> {
    return ids.map((id) => {
      const m = this.messagesById.get(id);
      return m && copy(m);
    });
  }

  async forEachMessageBatch(visit: (batch: ChatMessage[]) => void, batchSize = 1000): Promise<void> {
    let batch: ChatMessage[] = [];
    for (const list of this.bySession.values()) {
      for (const m of list) {
        batch.push(m);
        if (batch.length >= batchSize) {
          visit(batch);
          batch = [];
        }
      }
    }
    if (batch.length > 0) visit(batch);
  }
}
