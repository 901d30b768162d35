/**
 * SessionBackend on the `knack` database's `sessions` and `messages` stores (storage/db.ts).
 * Each method is one readwrite transaction over the stores it touches, so a session and its
 * messages change together; a quota failure rolls the whole transaction back and surfaces
 * as StorageFullError.
 */
import type { KnackDb } from '../storage/db';
import { isQuotaError, toStorageFullError } from '../storage/quota';
import { MessageNotFoundError, SessionNotFoundError, type ChatMessage, type ChatSession, type SessionBackend } from './sessionStore';

/** Every seq of one session in the [sessionId, seq] index. */
function sessionRange(sessionId: string, afterSeq = -Infinity): IDBKeyRange {
  return IDBKeyRange.bound([sessionId, afterSeq], [sessionId, Infinity], afterSeq !== -Infinity, false);
}

export class IdbSessionBackend implements SessionBackend {
  constructor(private readonly db: KnackDb) {}

  async putSession(session: ChatSession): Promise<void> {
    await this.write('a chat session', async () => {
      await this.db.put('sessions', session);
    });
  }

  async getSession(id: string): Promise<ChatSession | undefined> {
    return (await this.db.get('sessions', id)) as ChatSession | undefined;
  }

  async getSessions(ids: readonly string[]): Promise<(ChatSession | undefined)[]> {
    const tx = this.db.transaction('sessions', 'readonly');
    const found = await Promise.all(ids.map((id) => tx.store.get(id)));
    await tx.done;
    return found as (ChatSession | undefined)[];
  }

  async listSessions(): Promise<ChatSession[]> {
    const all = (await this.db.getAllFromIndex('sessions', 'byUpdated')) as ChatSession[];
    return all.reverse();
  }

  async updateSession(id: string, change: (session: ChatSession) => ChatSession): Promise<ChatSession> {
    return this.write('a chat session', async () => {
      const tx = this.db.transaction('sessions', 'readwrite');
      const current = (await tx.store.get(id)) as ChatSession | undefined;
      if (!current) {
        tx.abort();
        await tx.done.catch(() => undefined);
        throw new SessionNotFoundError(id);
      }
      const next = change(current);
      await Promise.all([tx.store.put(next), tx.done]);
      return next;
    });
  }

  /** One message: a batch of one, so it shares the batch's seq rule and all-or-nothing write. */
  async appendMessage(sessionId: string, build: (seq: number) => ChatMessage): Promise<ChatMessage> {
    const [message] = await this.appendMessages(sessionId, (seq) => [build(seq)]);
    return message!;
  }

  async appendMessages(sessionId: string, build: (firstSeq: number) => ChatMessage[]): Promise<ChatMessage[]> {
    return this.write('chat messages', async () => {
      const tx = this.db.transaction(['sessions', 'messages'], 'readwrite');
      const sessions = tx.objectStore('sessions');
      const messages = tx.objectStore('messages');
      const session = (await sessions.get(sessionId)) as ChatSession | undefined;
      if (!session) {
        tx.abort();
        await tx.done.catch(() => undefined);
        throw new SessionNotFoundError(sessionId);
      }
      // The last seq, read inside the transaction: two tabs appending get distinct seqs.
      const last = await messages.index('bySessionSeq').openCursor(sessionRange(sessionId), 'prev');
      const batch = build(last ? last.value.seq + 1 : 0);
      const latest = batch.reduce((at, message) => Math.max(at, message.createdAt), session.updatedAt);
      // One transaction, so none of the batch is kept when a put fails: a quota error aborts it
      // by itself, but a value that cannot be cloned throws from put() at once, after the puts
      // before it were queued, and the transaction would commit those.
      const writes: Promise<unknown>[] = [];
      try {
        for (const message of batch) writes.push(messages.put(message));
        writes.push(sessions.put({ ...session, updatedAt: latest, messageCount: (session.messageCount ?? 0) + batch.length }));
      } catch (error) {
        tx.abort();
        await Promise.allSettled([...writes, tx.done]);
        throw error;
      }
      await Promise.all([...writes, tx.done]);
      return batch;
    });
  }

  async updateMessage(id: string, change: (message: ChatMessage) => ChatMessage, now: number): Promise<ChatMessage> {
    return this.write('a chat message', async () => {
      const tx = this.db.transaction(['sessions', 'messages'], 'readwrite');
      const current = (await tx.objectStore('messages').get(id)) as ChatMessage | undefined;
      if (!current) {
        tx.abort();
        await tx.done.catch(() => undefined);
        throw new MessageNotFoundError(id);
      }
      const next = change(current);
      const writes: Promise<unknown>[] = [tx.objectStore('messages').put(next)];
      const session = (await tx.objectStore('sessions').get(current.sessionId)) as ChatSession | undefined;
      if (session) writes.push(tx.objectStore('sessions').put({ ...session, updatedAt: Math.max(session.updatedAt, now) }));
      await Promise.all([...writes, tx.done]);
      return next;
    });
  }

  async truncateAfter(sessionId: string, seq: number, now: number): Promise<string[]> {
    return this.write('a chat session', async () => {
      const tx = this.db.transaction(['sessions', 'messages'], 'readwrite');
      const session = (await tx.objectStore('sessions').get(sessionId)) as ChatSession | undefined;
      if (!session) {
        tx.abort();
        await tx.done.catch(() => undefined);
        throw new SessionNotFoundError(sessionId);
      }
      const removed: string[] = [];
      const writes: Promise<unknown>[] = [];
      let cursor = await tx.objectStore('messages').index('bySessionSeq').openCursor(sessionRange(sessionId, seq));
      while (cursor) {
        removed.push(cursor.value.id);
        writes.push(cursor.delete());
        cursor = await cursor.continue();
      }
      if (removed.length > 0) {
        writes.push(
          tx.objectStore('sessions').put({ ...session, messageCount: Math.max(0, (session.messageCount ?? 0) - removed.length), updatedAt: Math.max(session.updatedAt, now) }),
        );
      }
      await Promise.all([...writes, tx.done]);
      return removed;
    });
  }

  async deleteSession(id: string): Promise<string[] | null> {
    return this.write('a change to chat sessions', async () => {
      const tx = this.db.transaction(['sessions', 'messages'], 'readwrite');
      const exists = (await tx.objectStore('sessions').count(id)) > 0;
      const removed: string[] = [];
      const writes: Promise<unknown>[] = [];
      let cursor = await tx.objectStore('messages').index('bySessionSeq').openCursor(sessionRange(id));
      while (cursor) {
        removed.push(cursor.value.id);
        writes.push(cursor.delete());
        cursor = await cursor.continue();
      }
      writes.push(tx.objectStore('sessions').delete(id));
      await Promise.all([...writes, tx.done]);
      return exists || removed.length > 0 ? removed : null;
    });
  }

  async getMessages(sessionId: string): Promise<ChatMessage[]> {
    return (await this.db.getAllFromIndex('messages', 'bySessionSeq', sessionRange(sessionId))) as ChatMessage[];
  }

  async getMessagesByIds(ids: readonly string[]): Promise<(ChatMessage | undefined)[]> {
    const tx = this.db.transaction('messages', 'readonly');
    const found = await Promise.all(ids.map((id) => tx.store.get(id)));
    await tx.done;
    return found as (ChatMessage | undefined)[];
  }

  /**
   * Pages through `messages` by primary key with getAll(range, count): a cursor would cost
   * one round trip per record, which is minutes for 200,000 messages.
   */
  async forEachMessageBatch(visit: (batch: ChatMessage[]) => void, batchSize = 2000): Promise<void> {
    let after: string | null = null;
    for (;;) {
      const range: IDBKeyRange | undefined = after === null ? undefined : IDBKeyRange.lowerBound(after, true);
      const batch = (await this.db.getAll('messages', range, batchSize)) as ChatMessage[];
      if (batch.length === 0) return;
      visit(batch);
      if (batch.length < batchSize) return;
      after = batch[batch.length - 1]!.id;
    }
  }

  private async write<T>(what: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (err) {
      if (isQuotaError(err, { duringWrite: true })) throw await toStorageFullError(err, what);
      throw err;
    }
  }
}
