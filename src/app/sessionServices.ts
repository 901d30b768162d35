/**
 * Sessions, their search index and the `session_search` tool, for the tab (app/appServices.ts).
 *
 * Every store change goes to the search index and out as `session-changed` for other tabs;
 * a `session-changed` from another tab makes this tab's index re-read that session. Our own
 * events come back to us through the change feed (it also delivers to local subscribers), so
 * they are counted out and skipped. The index is saved when the page is hidden.
 */
import type { KnackServices } from './storageServices';
import { IdbSessionBackend } from '../sessions/idbSessionBackend';
import { IdbSearchIndexPersistence } from '../sessions/searchIndexPersistence';
import { SessionSearch } from '../sessions/sessionSearch';
import { sessionSearchToolDefinition, type SessionSummaries } from '../sessions/sessionSearchTool';
import { SummaryCache, type SummaryJob, type SummaryOutcome } from '../sessions/sessionSummary';
import type { KnackSettingsService } from './settings';
import { SessionStore, type SessionChange } from '../sessions/sessionStore';
import type { ToolDefinition } from '../tools/toolRegistry';

export interface SessionServices {
  store: SessionStore;
  search: SessionSearch;
  tool: ToolDefinition;
  /**
   * Who `session_search` asks for summaries: the tab's learning loop registers itself when it
   * starts (app/tabLearning.ts), since the background model is reached through its review worker.
   */
  useSummariser(summarise: ((job: Pick<SummaryJob, 'query' | 'sessions'>) => Promise<SummaryOutcome>) | null): void;
}

function sessionIdOf(change: SessionChange): string {
  switch (change.kind) {
    case 'session-created':
    case 'session-updated':
      return change.session.id;
    case 'message-added':
    case 'message-updated':
      return change.message.sessionId;
    default:
      return change.sessionId;
  }
}

export function createSessionServices(services: KnackServices, settings: KnackSettingsService): SessionServices {
  if (!services.db) throw new Error('Sessions need the IndexedDB database; this storage has none.');
  const backend = new IdbSessionBackend(services.db);
  const store = new SessionStore(backend);
  const search = new SessionSearch({ backend, persistence: new IdbSearchIndexPersistence(services.db) });
  const ownEvents = new Map<string, number>();

  store.subscribe((change) => {
    search.apply(change).catch((err: unknown) => console.error('[knack] session search could not follow a change', err));
    const sessionId = sessionIdOf(change);
    ownEvents.set(sessionId, (ownEvents.get(sessionId) ?? 0) + 1);
    services.changes.publish({ type: 'session-changed', sessionId });
  });
  services.changes.subscribe((change) => {
    if (change.type !== 'session-changed') return;
    const own = ownEvents.get(change.sessionId) ?? 0;
    if (own > 0) {
      if (own === 1) ownEvents.delete(change.sessionId);
      else ownEvents.set(change.sessionId, own - 1);
      return;
    }
    search.reindexSession(change.sessionId).catch((err: unknown) => console.error('[knack] session search could not re-read a session', err));
  });
  if (typeof addEventListener === 'function') {
    addEventListener('pagehide', () => void search.flush().catch(() => undefined));
  }
  let summarise: ((job: Pick<SummaryJob, 'query' | 'sessions'>) => Promise<SummaryOutcome>) | null = null;
  const summaries: SessionSummaries = {
    enabled: () => settings.get('memory').sessionSummaries,
    summarise: (job) => summarise?.(job) ?? null,
    cache: new SummaryCache(),
    messagesOf: async (sessionId) => (await backend.getMessages(sessionId)).map((message) => ({ role: message.role, content: message.content })),
  };
  return {
    store,
    search,
    tool: sessionSearchToolDefinition({ search, summaries }),
    useSummariser: (next) => {
      summarise = next;
    },
  };
}
