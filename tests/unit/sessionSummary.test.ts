/**
 * session_search that answers (docs/chat.md, "Session search"): each top session summarised for
 * the query in one request fitted to the background model's window, cached by (session version,
 * query), snippets when summaries are off or no model answers (and the result says so), and the
 * result within the room the chat request has left.
 */
import { describe, expect, it } from 'vitest';
import { MemorySessionBackend } from '../../src/sessions/memorySessionBackend';
import { SessionStore } from '../../src/sessions/sessionStore';
import { SessionSearch } from '../../src/sessions/sessionSearch';
import { MemorySearchIndexPersistence } from '../../src/sessions/searchIndexPersistence';
import { runSessionSearch, type SessionSummaries } from '../../src/sessions/sessionSearchTool';
import {
  SESSION_SUMMARY_SYSTEM_V1,
  SummaryCache,
  fittedSummaryMessages,
  queryWords,
  summariseSessions,
  transcriptLines,
  type SessionToSummarise,
  type SummaryOutcome,
} from '../../src/sessions/sessionSummary';
import { createWriteContext } from '../../src/tools/writeContext';
import type { ChatMessage } from '../../src/providers/provider';
import { fakeProvider } from './helpers/fakeProvider';

/** A window check counting characters (4 a token), like the real one counts tokens. */
const fitsChars = (limitTokens: number) => (messages: ChatMessage[], maxTokens: number) =>
  Math.ceil(messages.reduce((sum, m) => sum + m.content.length, 0) / 4) + maxTokens <= limitTokens ? null : 'too long';

const filler = (i: number) => `Message ${i} talks about the weather, the garden and what to cook tonight, at some length.`;

function longSession(): SessionToSummarise {
  const messages = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: filler(i) }));
  messages[120] = { role: 'user', content: 'The staging database password rotates every 30 days; the owner is Priya.' };
  return { sessionId: 's1', version: '1', title: 'Ops chat', date: '2026-11-02T10:00:00.000Z', messages };
}

describe('the summary request', () => {
  it('sends the whole conversation when it fits, with the query, the title and the date', () => {
    const session = { ...longSession(), messages: longSession().messages.slice(118, 123) };
    const messages = fittedSummaryMessages(session, 'database password', fitsChars(4096))!;
    expect(messages[0]!.content).toBe(SESSION_SUMMARY_SYSTEM_V1);
    expect(messages[1]!.content).toContain('Query: database password');
    expect(messages[1]!.content).toContain('Conversation "Ops chat" of 2026-11-02');
    expect(messages[1]!.content).toContain(filler(118));
  });

  it('keeps the matching messages and their neighbours when the whole does not fit, and always fits the window', () => {
    const fits = fitsChars(2048);
    const messages = fittedSummaryMessages(longSession(), 'database password', fits)!;
    expect(fits(messages, 300)).toBeNull();
    expect(messages[1]!.content).toContain('rotates every 30 days');
    expect(messages[1]!.content).toContain(filler(119));
    expect(messages[1]!.content).not.toContain(filler(10));
  });

  it('cuts the focused transcript when even that is too long, and gives up when nothing fits', () => {
    const session = longSession();
    session.messages = session.messages.map((m) => ({ ...m, content: `${m.content} database` }));
    const fits = fitsChars(1200);
    const messages = fittedSummaryMessages(session, 'database', fits)!;
    expect(fits(messages, 300)).toBeNull();
    expect(messages[1]!.content).toContain('left out to fit');
    expect(fittedSummaryMessages(session, 'database', fitsChars(200))).toBeNull();
  });

  it('reads query words of three letters or more, and marks the gaps between kept lines', () => {
    expect(queryWords('DB password of Priya')).toEqual(['password', 'priya']);
    const lines = transcriptLines(longSession().messages, 'Priya', true);
    expect(lines).toHaveLength(5);
    expect(transcriptLines([{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'user', content: 'c' }, { role: 'user', content: 'd priya' }], 'priya', true)[0]).toBe('[…]');
  });
});

describe('summariseSessions', () => {
  it('asks once per session, and reports a failed session without failing the others', async () => {
    const fake = fakeProvider([{ text: '<think>hm</think>- Password rotates every 30 days\n\n- Owner: Priya' }, { error: new Error('server down') }]);
    const small = { ...longSession(), messages: longSession().messages.slice(119, 122) };
    const out = await summariseSessions({ provider: fake.provider, fits: fitsChars(4096) }, { query: 'password', sessions: [small, { ...small, sessionId: 's2' }] });
    expect(out.requests).toBe(2);
    expect(out.results[0]).toEqual({ sessionId: 's1', summary: '- Password rotates every 30 days\n- Owner: Priya' });
    expect(out.results[1]).toEqual({ sessionId: 's2', error: 'server down' });
    expect(fake.requests[0]!.maxTokens).toBe(300);
    expect(fake.requests[0]!.tools).toBeUndefined();
  });
});

describe('SummaryCache', () => {
  it('keys by session, version and the query as typed loosely; drops the least recently used', () => {
    const cache = new SummaryCache(2);
    const a = SummaryCache.key({ sessionId: 's1', version: '1' }, 'Database  Password');
    expect(a).toBe(SummaryCache.key({ sessionId: 's1', version: '1' }, 'database password'));
    expect(a).not.toBe(SummaryCache.key({ sessionId: 's1', version: '2' }, 'database password'));
    cache.set(a, 'x');
    cache.set('b', 'y');
    cache.get(a);
    cache.set('c', 'z');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get(a)).toBe('x');
    expect(cache.size).toBe(2);
  });
});

async function history() {
  let clock = 1_700_000_000_000;
  const backend = new MemorySessionBackend();
  const store = new SessionStore(backend, { now: () => (clock += 1000) });
  const search = new SessionSearch({ backend, persistence: new MemorySearchIndexPersistence() });
  const pending: Promise<void>[] = [];
  store.subscribe((change) => pending.push(search.apply(change)));
  const ops = await store.create({ title: 'Ops chat' });
  await store.append(ops.id, { role: 'user', content: 'Note: the staging database password rotates every 30 days.' });
  await store.append(ops.id, { role: 'assistant', content: 'Noted, Priya owns the rotation.' });
  await Promise.all(pending);
  return { backend, store, search, ops, settle: () => Promise.all(pending.splice(0)) };
}

function summaries(backend: MemorySessionBackend, answer: (sessions: SessionToSummarise[]) => SummaryOutcome | null, enabled = true) {
  const asked: SessionToSummarise[][] = [];
  const deps: SessionSummaries = {
    enabled: () => enabled,
    summarise: (job) => {
      asked.push(job.sessions);
      const outcome = answer(job.sessions);
      return outcome ? Promise.resolve(outcome) : null;
    },
    cache: new SummaryCache(),
    messagesOf: async (id) => (await backend.getMessages(id)).map((m) => ({ role: m.role, content: m.content })),
  };
  return { deps, asked };
}

describe('session_search with summaries', () => {
  it('returns the summary instead of snippets, and asks once per (session version, query)', async () => {
    const h = await history();
    const s = summaries(h.backend, (sessions) => ({ kind: 'done', requests: sessions.length, results: sessions.map((x) => ({ sessionId: x.sessionId, summary: 'Password rotates every 30 days; Priya owns it.' })) }));
    const first = ((await runSessionSearch({ search: h.search, summaries: s.deps }, { query: 'database password' }, createWriteContext('foreground', 'now'))) as any);
    expect(first.results[0]).toMatchObject({ title: 'Ops chat', summary: 'Password rotates every 30 days; Priya owns it.' });
    expect(first.results[0].snippets).toBeUndefined();
    expect(first.results[0].date).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(first.summarised_by).toContain('background model');
    expect(s.asked[0]![0]!.messages.map((m) => m.content)).toContain('Noted, Priya owns the rotation.');

    await runSessionSearch({ search: h.search, summaries: s.deps }, { query: 'Database password' }, createWriteContext('foreground', 'now'));
    expect(s.asked).toHaveLength(1);
    // The session changed: its summary is asked for again.
    await h.store.append(h.ops.id, { role: 'user', content: 'The database password now rotates weekly.' });
    await h.settle();
    await runSessionSearch({ search: h.search, summaries: s.deps }, { query: 'database password' }, createWriteContext('foreground', 'now'));
    expect(s.asked).toHaveLength(2);
  });

  it('falls back to snippets, and says why, when summaries are off or no model answers', async () => {
    const h = await history();
    const off = summaries(h.backend, () => null, false);
    const offResult = ((await runSessionSearch({ search: h.search, summaries: off.deps }, { query: 'password' }, createWriteContext())) as any);
    expect(offResult.results[0].snippets[0]).toContain('**password**');
    expect(offResult.summaries_note).toContain('turned off');
    expect(off.asked).toHaveLength(0);

    const none = summaries(h.backend, () => ({ kind: 'unavailable', reason: 'offline, and the background model is not on this device' }));
    const noneResult = ((await runSessionSearch({ search: h.search, summaries: none.deps }, { query: 'password' }, createWriteContext())) as any);
    expect(noneResult.success).toBe(true);
    expect(noneResult.results[0].snippets).toHaveLength(1);
    expect(noneResult.summaries_note).toContain('offline');

    const failed = summaries(h.backend, (sessions) => ({ kind: 'done', requests: 1, results: sessions.map((x) => ({ sessionId: x.sessionId, error: 'HTTP 500' })) }));
    const failedResult = ((await runSessionSearch({ search: h.search, summaries: failed.deps }, { query: 'password' }, createWriteContext())) as any);
    expect(failedResult.results[0].snippets).toBeDefined();
    expect(failedResult.summaries_note).toContain('HTTP 500');
  });

  it('fits the room the chat request has left: a long summary is cut, never the whole result dropped', async () => {
    const h = await history();
    const long = 'Priya owns the password rotation. '.repeat(100);
    const s = summaries(h.backend, (sessions) => ({ kind: 'done', requests: 1, results: sessions.map((x) => ({ sessionId: x.sessionId, summary: long })) }));
    const context = { ...createWriteContext(), resultRoomChars: 700 };
    const result = ((await runSessionSearch({ search: h.search, summaries: s.deps }, { query: 'password' }, context)) as any);
    expect(JSON.stringify(result.results).length).toBeLessThanOrEqual(700);
    expect(result.results[0].summary.startsWith('Priya owns the password rotation.')).toBe(true);
  });
});
