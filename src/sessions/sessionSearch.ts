/**
 * Full-text search over past sessions (docs/chat.md `session_search`: p95 ≤ 20 ms over
 * 200,000 messages), with MiniSearch.
 *
 * The index follows the session store change by change (add on append, replace on update,
 * discard on truncate or delete) and is saved in the `searchIndex` store
 * (searchIndexPersistence.ts). It is loaded lazily, on the first search: until then a change
 * only marks its session dirty, and loading re-indexes the dirty sessions from their
 * messages. A missing, incomplete or older-version index is rebuilt from all messages.
 *
 * Every index mutation runs in one queue, so a rebuild, a reload and live changes never
 * interleave. Searches do not wait in the queue (they only wait for the first load).
 * No DOM here.
 */
import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import type { ChatMessage, ChatSession, SessionBackend, SessionChange } from './sessionStore';
import type { SearchIndexPersistence } from './searchIndexPersistence';

/** Bump when the indexed fields, tokenising or payload shape change: saved indexes are rebuilt. */
export const SEARCH_INDEX_VERSION = 1;
/** Long tool outputs are cut: the start of a message is what people search for. */
export const MAX_INDEXED_CHARS = 20_000;
export const DEFAULT_SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;
const SNIPPETS_PER_SESSION = 3;
const SNIPPET_BEFORE = 60;
const SNIPPET_AFTER = 140;
/**
 * Dirty marks this recent survive a save: another tab's mark may belong to a change whose
 * event has not reached this tab yet, so the snapshot may not contain it.
 */
const DIRTY_GRACE_MS = 5_000;
/**
 * A full save serialises the whole index (seconds of main-thread work at 200,000 messages),
 * so it waits until this many sessions changed; until then their dirty marks keep a reload
 * correct at the price of re-reading those sessions. Page hide also saves.
 */
const SAVE_AFTER_DIRTY_SESSIONS = 50;

interface IndexedMessage {
  id: string;
  sessionId: string;
  text: string;
}

/**
 * English function words are left out of the index: they occur in most messages, so they
 * cannot tell sessions apart, and scoring their postings is what would make a query slow.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after all also am an and any are as at be because been but by can could did do does ' +
    'for from had has have he her here him his how i if in into is it its just me my no not of on ' +
    'or our out she so some than that the their them then there these they this those to too up us ' +
    'was we were what when where which who why will with would you your'
  ).split(' '),
);

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return STOP_WORDS.has(lower) ? null : lower;
}

const INDEX_OPTIONS: Options<IndexedMessage> = {
  fields: ['text'],
  storeFields: ['sessionId'],
  processTerm,
};

export interface SearchSnippet {
  messageId: string;
  seq: number;
  role: string;
  /** Text around the first match, matched words in **bold**, "…" where it was cut. */
  text: string;
}

export interface SessionSearchHit {
  sessionId: string;
  title: string;
  /** ISO time of the session's last activity. */
  date: string;
  updatedAt: number;
  score: number;
  /** Messages of this session that matched. */
  matchCount: number;
  snippets: SearchSnippet[];
}

export interface SessionSearchOptions {
  backend: SessionBackend;
  persistence: SearchIndexPersistence;
  now?: () => number;
  /** Idle time after the last change before the whole index is saved again (once enough sessions changed). */
  saveDelayMs?: number;
}

export interface SearchQueryOptions {
  limit?: number;
  /** Leave this session out (the current conversation is already in the model's context). */
  excludeSessionId?: string;
  /** Treat the last word as a prefix when whole words find nothing (a search box while typing). */
  prefix?: boolean;
}

/** Payload saved in chunks: MiniSearch's own JSON plus which messages belong to which session. */
interface SavedPayload {
  sessions: [string, string[]][];
  index: unknown;
}

export function indexableText(message: Pick<ChatMessage, 'role' | 'content'>): string | null {
  if (message.role === 'system' || typeof message.content !== 'string') return null;
  const text = message.content.trim();
  if (!text) return null;
  return text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A window of the text around the first matched term, with the terms in bold. */
export function buildSnippet(text: string, terms: readonly string[]): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const wanted = [...new Set(terms.filter((t) => t.length > 0))].sort((a, b) => b.length - a.length);
  if (wanted.length === 0) return flat.slice(0, SNIPPET_BEFORE + SNIPPET_AFTER);
  const pattern = new RegExp(wanted.map(escapeRegExp).join('|'), 'giu');
  const first = pattern.exec(flat);
  const at = first ? first.index : 0;
  let start = Math.max(0, at - SNIPPET_BEFORE);
  let end = Math.min(flat.length, at + SNIPPET_AFTER);
  // Cut at spaces so words stay whole.
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > at) end = space;
  }
  const window = flat.slice(start, end).replace(pattern, (m) => `**${m}**`);
  return `${start > 0 ? '…' : ''}${window}${end < flat.length ? '…' : ''}`;
}

export class SessionSearch {
  private index: MiniSearch<IndexedMessage> | null = null;
  /** sessionId → ids of its indexed messages (discard on delete, re-index on remote change). */
  private sessionDocs = new Map<string, Set<string>>();
  private loading: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private saveTimer: ReturnType<typeof setTimeout> | null = null;
  private unsaved = false;
  /** Sessions changed since the last save. */
  private changedSinceSave = new Set<string>();
  private readonly now: () => number;
  /** How the index was obtained, and how long it took (ms). */
  readonly stats = { source: null as 'saved' | 'rebuilt' | null, loadMs: 0, reindexedSessions: 0 };

  constructor(private readonly options: SessionSearchOptions) {
    this.now = options.now ?? (() => Date.now());
  }

  get loaded(): boolean {
    return this.index !== null;
  }

  get documentCount(): number {
    return this.index?.documentCount ?? 0;
  }

  /** Follow one change of the session store. Resolves once the index (or its dirty mark) has it. */
  apply(change: SessionChange): Promise<void> {
    const sessionId = 'sessionId' in change ? change.sessionId : 'message' in change ? change.message.sessionId : null;
    if (sessionId === null) return Promise.resolve(); // session created/renamed: titles are read at search time
    const at = this.now();
    return this.enqueue(async () => {
      await this.options.persistence.markDirty(sessionId, at);
      const index = this.index;
      if (!index) return; // loading will re-index this session from its messages
      switch (change.kind) {
        case 'message-added':
        case 'message-updated':
          this.put(index, change.message);
          break;
        case 'messages-added':
          for (const message of change.messages) this.put(index, message);
          break;
        case 'messages-removed':
        case 'session-deleted':
          for (const id of change.messageIds) this.discard(index, change.sessionId, id);
          if (change.kind === 'session-deleted') this.dropSession(index, change.sessionId);
          break;
      }
      this.scheduleSave(sessionId);
    });
  }

  /** Another tab changed a session: read its messages again (a deleted session has none). */
  reindexSession(sessionId: string): Promise<void> {
    return this.enqueue(async () => {
      if (!this.index) return; // its own dirty mark (written by that tab) covers it at load
      await this.reindexNow(this.index, sessionId);
      this.scheduleSave(sessionId);
    });
  }

  /** Loads the saved index (or rebuilds it) once; later calls return at once. */
  ensureLoaded(): Promise<void> {
    this.loading ??= this.enqueue(() => this.load()).catch((err: unknown) => {
      this.loading = null; // let the next search try again
      throw err;
    });
    return this.loading;
  }

  /** Throw the index away and index every message again, then save. */
  rebuild(): Promise<void> {
    return this.enqueue(() => this.rebuildNow());
  }

  /** Save now if anything changed since the last save (tests, page hide). */
  flush(): Promise<void> {
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    return this.enqueue(() => this.saveNow());
  }

  dispose(): void {
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = null;
  }

  async search(query: string, options: SearchQueryOptions = {}): Promise<SessionSearchHit[]> {
    const q = query.trim();
    if (!q) return [];
    const limit = Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(options.limit ?? DEFAULT_SEARCH_LIMIT)));
    await this.ensureLoaded();
    const index = this.index!;
    // Whole words, all of them; then (search-as-you-type only) the last word as a prefix;
    // then any of the words. A prefix can expand to hundreds of terms, which costs more than
    // the whole-word search, so it is opt-in and only tried when whole words found nothing.
    const lastAsPrefix = { prefix: (term: string, i: number, all: string[]) => i === all.length - 1 && term.length >= 3 };
    let results = index.search(q, { combineWith: 'AND' });
    if (results.length === 0 && options.prefix) results = index.search(q, { ...lastAsPrefix, combineWith: 'AND' });
    if (results.length === 0) results = index.search(q, { combineWith: 'OR' });

    const groups = new Map<string, { score: number; count: number; top: SearchResult[] }>();
    for (const result of results) {
      const sessionId = result.sessionId as string;
      if (sessionId === options.excludeSessionId) continue;
      let group = groups.get(sessionId);
      if (!group) {
        if (groups.size >= limit) continue;
        group = { score: result.score, count: 0, top: [] };
        groups.set(sessionId, group);
      }
      group.count++;
      if (group.top.length < SNIPPETS_PER_SESSION) group.top.push(result);
    }
    if (groups.size === 0) return [];

    const sessionIds = [...groups.keys()];
    const hits = sessionIds.flatMap((id) => groups.get(id)!.top);
    const [sessions, messages] = await Promise.all([
      this.options.backend.getSessions(sessionIds),
      this.options.backend.getMessagesByIds(hits.map((h) => h.id as string)),
    ]);
    const messageById = new Map<string, ChatMessage>();
    for (const m of messages) if (m) messageById.set(m.id, m);

    const out: SessionSearchHit[] = [];
    sessionIds.forEach((id, i) => {
      const session: ChatSession | undefined = sessions[i];
      if (!session) return; // deleted since it was indexed; the delete event is on its way
      const group = groups.get(id)!;
      const snippets: SearchSnippet[] = [];
      for (const hit of group.top) {
        const message = messageById.get(hit.id as string);
        if (!message) continue;
        snippets.push({ messageId: message.id, seq: message.seq, role: message.role, text: buildSnippet(indexableText(message) ?? '', hit.terms) });
      }
      snippets.sort((a, b) => a.seq - b.seq);
      out.push({
        sessionId: id,
        title: session.title,
        date: new Date(session.updatedAt).toISOString(),
        updatedAt: session.updatedAt,
        score: group.score,
        matchCount: group.count,
        snippets,
      });
    });
    return out;
  }

  // ------------------------------------------------------------------------------------------

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch((err: unknown) => console.error('[knack] session search index task failed', err));
    return run;
  }

  private async load(): Promise<void> {
    const started = this.now();
    const saved = await this.options.persistence.load().catch(() => null);
    if (saved && saved.meta.version === SEARCH_INDEX_VERSION) {
      try {
        const payload = JSON.parse(saved.json) as SavedPayload;
        this.index = MiniSearch.loadJS(payload.index as Parameters<typeof MiniSearch.loadJS>[0], INDEX_OPTIONS);
        this.sessionDocs = new Map(payload.sessions.map(([id, docs]) => [id, new Set(docs)]));
      } catch (err) {
        console.warn('[knack] the saved session-search index is unreadable; rebuilding it', err);
        this.index = null;
      }
    }
    if (!this.index) {
      await this.rebuildNow();
      this.stats.loadMs = this.now() - started;
      return;
    }
    const dirty = await this.options.persistence.dirtySessions();
    for (const sessionId of dirty) await this.reindexNow(this.index, sessionId);
    this.stats.source = 'saved';
    this.stats.reindexedSessions = dirty.length;
    this.stats.loadMs = this.now() - started;
    for (const sessionId of dirty) this.scheduleSave(sessionId);
  }

  private async rebuildNow(): Promise<void> {
    const started = this.now();
    const index = new MiniSearch<IndexedMessage>(INDEX_OPTIONS);
    this.sessionDocs = new Map();
    await this.options.backend.forEachMessageBatch((batch) => {
      const docs: IndexedMessage[] = [];
      for (const message of batch) {
        const text = indexableText(message);
        if (text === null) continue;
        docs.push({ id: message.id, sessionId: message.sessionId, text });
        this.docsOf(message.sessionId).add(message.id);
      }
      index.addAll(docs);
    });
    this.index = index;
    this.stats.source = 'rebuilt';
    this.unsaved = true;
    // Marks made before the rebuild started are covered by it.
    await this.saveNow(started);
  }

  private async reindexNow(index: MiniSearch<IndexedMessage>, sessionId: string): Promise<void> {
    const messages = await this.options.backend.getMessages(sessionId);
    const current = new Set(messages.map((m) => m.id));
    for (const id of [...(this.sessionDocs.get(sessionId) ?? [])]) if (!current.has(id)) this.discard(index, sessionId, id);
    for (const message of messages) this.put(index, message);
    if (messages.length === 0) this.dropSession(index, sessionId);
  }

  private put(index: MiniSearch<IndexedMessage>, message: ChatMessage): void {
    const text = indexableText(message);
    if (text === null) {
      this.discard(index, message.sessionId, message.id);
      return;
    }
    const doc = { id: message.id, sessionId: message.sessionId, text };
    if (index.has(message.id)) index.replace(doc);
    else index.add(doc);
    this.docsOf(message.sessionId).add(message.id);
  }

  private discard(index: MiniSearch<IndexedMessage>, sessionId: string, id: string): void {
    if (index.has(id)) index.discard(id);
    this.sessionDocs.get(sessionId)?.delete(id);
  }

  private dropSession(index: MiniSearch<IndexedMessage>, sessionId: string): void {
    for (const id of this.sessionDocs.get(sessionId) ?? []) if (index.has(id)) index.discard(id);
    this.sessionDocs.delete(sessionId);
  }

  private docsOf(sessionId: string): Set<string> {
    let docs = this.sessionDocs.get(sessionId);
    if (!docs) {
      docs = new Set();
      this.sessionDocs.set(sessionId, docs);
    }
    return docs;
  }

  private scheduleSave(sessionId: string): void {
    this.unsaved = true;
    this.changedSinceSave.add(sessionId);
    if (this.changedSinceSave.size < SAVE_AFTER_DIRTY_SESSIONS) return;
    const delay = this.options.saveDelayMs ?? 15_000;
    if (this.saveTimer !== null) clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.enqueue(() => this.saveNow());
    }, delay);
  }

  private async saveNow(coveredSince?: number): Promise<void> {
    if (!this.index || !this.unsaved) return;
    const takenAt = this.now();
    const payload: SavedPayload = {
      sessions: [...this.sessionDocs].map(([id, docs]) => [id, [...docs]]),
      index: this.index.toJSON(),
    };
    const json = JSON.stringify(payload);
    this.unsaved = false;
    this.changedSinceSave.clear();
    await this.options.persistence.save(
      { version: SEARCH_INDEX_VERSION, documentCount: this.index.documentCount, savedAt: takenAt },
      json,
      coveredSince ?? takenAt - DIRTY_GRACE_MS,
    );
  }
}
