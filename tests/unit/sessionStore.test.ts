/**
 * SessionStore on the in-memory backend: creation, newest-first listing, rename, counters
 * and snapshot, message order, updates, truncation for regenerate/edit, cascade delete and
 * the change events the search index follows. The IndexedDB backend runs the same flows in
 * tests/browser/sessions-memory.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionNotFoundError, SessionStore, type SessionChange, MessageNotFoundError } from '../../src/sessions/sessionStore';

function setup() {
  let clock = 1_000;
  let ids = 0;
  const backend = new MemorySessionBackend();
  const store = new SessionStore(backend, { now: () => clock, newId: () => `id-${++ids}` });
  const changes: SessionChange[] = [];
  store.subscribe((c) => changes.push(c));
  return { backend, store, changes, advance: (ms: number) => (clock += ms) };
}

describe('SessionStore', () => {
  it('creates a session with defaults and zeroed counters', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    expect(s).toMatchObject({ title: 'New chat', createdAt: 1000, updatedAt: 1000, messageCount: 0, itersSinceSkill: 0, turnsSinceMemory: 0, snapshot: null });
    expect(await store.get(s.id)).toEqual(s);
    expect(changes).toEqual([{ kind: 'session-created', session: s }]);
  });

  it('stores the chat model given at creation and a later choice, without reordering the list', async () => {
    const { store, advance } = setup();
    const old = await store.create({ title: 'Old' });
    expect(old.chatModel).toBeUndefined(); // stored before chats had one: the app uses the default
    advance(10);
    const chosen = await store.create({ title: 'Chosen', chatModel: { providerId: 'local', model: 'qwen3:4b' } });
    expect((await store.get(chosen.id))?.chatModel).toEqual({ providerId: 'local', model: 'qwen3:4b' });
    advance(10);
    const updated = await store.setChatModel(old.id, { providerId: 'hosted', model: 'big' });
    expect(updated.chatModel).toEqual({ providerId: 'hosted', model: 'big' });
    expect(updated.updatedAt).toBe(old.updatedAt);
    expect((await store.list()).map((s) => s.title)).toEqual(['Chosen', 'Old']);
    await expect(store.setChatModel('missing', { providerId: 'x', model: 'y' })).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('lists sessions newest activity first', async () => {
    const { store, advance } = setup();
    const a = await store.create({ title: 'A' });
    advance(10);
    await store.create({ title: 'B' });
    advance(10);
    await store.append(a.id, { role: 'user', content: 'back to A' });
    expect((await store.list()).map((s) => s.title)).toEqual(['A', 'B']);
  });

  it('keeps a strict order for sessions created in the same millisecond', async () => {
    const { store } = setup();
    const first = await store.create({ title: 'first' });
    const second = await store.create({ title: 'second' });
    expect(second.createdAt).toBeGreaterThan(first.createdAt);
    expect((await store.list()).map((s) => s.title)).toEqual(['second', 'first']);
  });

  it('renames (trimmed, whitespace collapsed) without reordering; refuses an empty title', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    const renamed = await store.rename(s.id, '  Trip   planning ');
    expect(renamed.title).toBe('Trip planning');
    expect(renamed.updatedAt).toBe(s.updatedAt);
    expect(changes.at(-1)).toMatchObject({ kind: 'session-updated' });
    await expect(store.rename(s.id, '   ')).rejects.toThrow(/empty/);
    await expect(store.rename('nope', 'x')).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('persists the learning counters and the frozen snapshot per session', async () => {
    const { store } = setup();
    const s = await store.create({ snapshot: 'SYSTEM PROMPT v1' });
    await store.updateCounters(s.id, { itersSinceSkill: 7 });
    await store.updateCounters(s.id, { turnsSinceMemory: 3 });
    const reread = await store.get(s.id);
    expect(reread).toMatchObject({ itersSinceSkill: 7, turnsSinceMemory: 3, snapshot: 'SYSTEM PROMPT v1' });
    await store.setSnapshot(s.id, 'SYSTEM PROMPT v2');
    expect((await store.get(s.id))!.snapshot).toBe('SYSTEM PROMPT v2');
  });

  it('appends messages with consecutive seq and returns them in order', async () => {
    const { store, advance } = setup();
    const s = await store.create();
    const m0 = await store.append(s.id, { role: 'user', content: 'hi' });
    advance(5);
    const m1 = await store.append(s.id, {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_1', name: 'memory', arguments: '{"action":"add"}' }],
    });
    const m2 = await store.append(s.id, { role: 'tool', content: '{"success":true}', toolCallId: 'call_1', name: 'memory' });
    expect([m0.seq, m1.seq, m2.seq]).toEqual([0, 1, 2]);
    const messages = await store.messages(s.id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[1]!.toolCalls).toEqual([{ id: 'call_1', name: 'memory', arguments: '{"action":"add"}' }]);
    expect(messages[2]).toMatchObject({ toolCallId: 'call_1', name: 'memory', sessionId: s.id });
    const session = await store.get(s.id);
    expect(session).toMatchObject({ messageCount: 3, updatedAt: m2.createdAt });
  });

  it('appendMany stores a batch in order, at consecutive seqs after the last, as one change', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    await store.append(s.id, { role: 'user', content: 'run the tools' });
    changes.length = 0;
    const batch = await store.appendMany(s.id, [
      { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'skills_list', arguments: '{}' }, { id: 'b', name: 'skills_list', arguments: '{}' }] },
      { role: 'tool', content: '{"success":true,"n":1}', toolCallId: 'a', name: 'skills_list' },
      { role: 'tool', content: '{"success":true,"n":2}', toolCallId: 'b', name: 'skills_list' },
    ]);
    expect(batch.map((m) => m.seq)).toEqual([1, 2, 3]);
    expect(new Set(batch.map((m) => m.id)).size).toBe(3);
    // Strictly increasing times, like single appends.
    expect(batch[0]!.createdAt).toBeLessThan(batch[1]!.createdAt);
    expect(batch[1]!.createdAt).toBeLessThan(batch[2]!.createdAt);
    const stored = await store.messages(s.id);
    expect(stored.map((m) => [m.seq, m.role, m.toolCallId ?? null])).toEqual([
      [0, 'user', null],
      [1, 'assistant', null],
      [2, 'tool', 'a'],
      [3, 'tool', 'b'],
    ]);
    expect(await store.get(s.id)).toMatchObject({ messageCount: 4, updatedAt: batch[2]!.createdAt });
    expect(changes).toEqual([{ kind: 'messages-added', sessionId: s.id, messages: batch }]);
    // The next append continues after the batch.
    expect((await store.append(s.id, { role: 'assistant', content: 'Done.' })).seq).toBe(4);
    expect(await store.appendMany(s.id, [])).toEqual([]);
  });

  it('appendMany keeps all of a batch or none of it', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    await store.append(s.id, { role: 'user', content: 'hi' });
    changes.length = 0;
    // The second message cannot be stored (a function cannot be cloned): the first is not kept either.
    const unstorable = { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'x', arguments: () => '{}' }] } as unknown as Parameters<SessionStore['append']>[1];
    await expect(store.appendMany(s.id, [{ role: 'assistant', content: 'first' }, unstorable])).rejects.toThrow();
    expect((await store.messages(s.id)).map((m) => m.content)).toEqual(['hi']);
    expect(await store.get(s.id)).toMatchObject({ messageCount: 1 });
    expect(changes).toEqual([]);
    await expect(store.appendMany('missing', [{ role: 'user', content: 'x' }])).rejects.toBeInstanceOf(SessionNotFoundError);
    // Seqs carry on with no gap after the failed batch.
    expect((await store.appendMany(s.id, [{ role: 'assistant', content: 'ok' }]))[0]!.seq).toBe(1);
  });

  it('refuses to append to a missing session', async () => {
    const { store } = setup();
    await expect(store.append('ghost', { role: 'user', content: 'x' })).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it('updates a message (streaming finalised) but never its identity or position', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    const m = await store.append(s.id, { role: 'assistant', content: 'Hel' });
    const updated = await store.updateMessage(m.id, { content: 'Hello there', seq: 99, sessionId: 'other', id: 'x' });
    expect(updated).toMatchObject({ id: m.id, seq: 0, sessionId: s.id, content: 'Hello there' });
    expect(updated.updatedAt).toBeGreaterThan(m.createdAt);
    expect((await store.messages(s.id))[0]!.content).toBe('Hello there');
    expect(changes.at(-1)).toEqual({ kind: 'message-updated', message: updated });
    await expect(store.updateMessage('missing', { content: 'x' })).rejects.toBeInstanceOf(MessageNotFoundError);
  });

  it('truncates after a seq for regenerate and edit-and-resend; seq continues from the cut', async () => {
    const { store, changes } = setup();
    const s = await store.create();
    const ids = [];
    for (const text of ['q1', 'a1', 'q2', 'a2']) ids.push((await store.append(s.id, { role: 'user', content: text })).id);
    const removed = await store.truncateAfter(s.id, 1);
    expect(removed.sort()).toEqual([ids[2], ids[3]].sort());
    expect(changes.at(-1)).toEqual({ kind: 'messages-removed', sessionId: s.id, messageIds: removed });
    expect((await store.messages(s.id)).map((m) => m.content)).toEqual(['q1', 'a1']);
    const next = await store.append(s.id, { role: 'user', content: 'q2 edited' });
    expect(next.seq).toBe(2);
    expect((await store.get(s.id))!.messageCount).toBe(3);
    expect(await store.truncateAfter(s.id, 10)).toEqual([]);
  });

  it('deletes a session and all its messages, reporting their ids', async () => {
    const { store, backend, changes } = setup();
    const keep = await store.create({ title: 'keep' });
    const drop = await store.create({ title: 'drop' });
    const kept = await store.append(keep.id, { role: 'user', content: 'stays' });
    const gone = [await store.append(drop.id, { role: 'user', content: 'a' }), await store.append(drop.id, { role: 'assistant', content: 'b' })];
    expect(await store.delete(drop.id)).toBe(true);
    expect(await store.get(drop.id)).toBeUndefined();
    expect(await store.messages(drop.id)).toEqual([]);
    expect(await backend.getMessagesByIds(gone.map((m) => m.id))).toEqual([undefined, undefined]);
    expect(await backend.getMessagesByIds([kept.id])).toHaveLength(1);
    expect(changes.at(-1)).toEqual({ kind: 'session-deleted', sessionId: drop.id, messageIds: gone.map((m) => m.id) });
    expect((await store.list()).map((s) => s.title)).toEqual(['keep']);
    expect(await store.delete(drop.id)).toBe(false);
  });

  it('returned records are copies: mutating them does not change the store', async () => {
    const { store } = setup();
    const s = await store.create({ title: 'original' });
    const listed = await store.list();
    listed[0]!.title = 'mutated';
    expect((await store.get(s.id))!.title).toBe('original');
  });

  it('a listener that throws does not stop the others', async () => {
    const { store } = setup();
    const seen: string[] = [];
    store.subscribe(() => {
      throw new Error('boom');
    });
    store.subscribe((c) => seen.push(c.kind));
    const original = console.error;
    console.error = () => undefined;
    try {
      await store.create();
    } finally {
      console.error = original;
    }
    expect(seen).toEqual(['session-created']);
  });
});
