/**
 * The `session_search` tool (docs/chat.md, "Session search that answers"): full-text search over past
 * conversations; the best sessions come back summarised for the query by the background model
 * (sessions/sessionSummary.ts), the others (and all of them when summaries are off or no model
 * answers, which the result says) with their title, date and snippets around the matches. The
 * current session is left out: it is already in the model's context.
 */
import type { ToolDefinition } from '../tools/toolRegistry';
import { fail, ok, type ToolOutcome } from '../tools/toolResult';
import type { WriteContext } from '../tools/writeContext';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SessionSearch, type SessionSearchHit } from './sessionSearch';
import { SUMMARISED_SESSIONS, SummaryCache, type SessionToSummarise, type SummaryJob, type SummaryOutcome, type TranscriptMessage } from './sessionSummary';

export interface SessionSummaries {
  /** The setting: summaries on (the default) or snippets only (docs/chat.md, "Session search that answers"). */
  enabled(): boolean;
  /**
   * Asks the background model (in the review worker) to summarise these sessions for the query;
   * null when nothing is wired to ask (the tab's learning loop has not started).
   */
  summarise(job: Pick<SummaryJob, 'query' | 'sessions'>): Promise<SummaryOutcome> | null;
  cache: SummaryCache;
  /** The messages of a past session, read only when its summary is not cached. */
  messagesOf(sessionId: string): Promise<TranscriptMessage[]>;
}

export interface SessionSearchToolDeps {
  search: SessionSearch;
  /** Absent: snippets only (unit tests of the search itself). */
  summaries?: SessionSummaries;
}

interface ResultEntry {
  session_id: string;
  title: string;
  date: string;
  match_count: number;
  summary?: string;
  snippets?: string[];
}

/** The version a summary is cached under: the session's last activity changes with every message. */
const versionOf = (hit: SessionSearchHit) => String(hit.updatedAt);

/**
 * Summaries for the top hits, from the cache or the background model; `note` says why there are
 * none (off, no model, offline, a failure), and the tool then shows the snippets.
 */
async function summariesFor(summaries: SessionSummaries | undefined, query: string, hits: SessionSearchHit[]): Promise<{ byId: Map<string, string>; note: string | null; requests: number }> {
  const byId = new Map<string, string>();
  if (!summaries) return { byId, note: null, requests: 0 };
  if (!summaries.enabled()) return { byId, note: 'Summaries are turned off in Settings → Memory; showing snippets.', requests: 0 };
  const top = hits.slice(0, SUMMARISED_SESSIONS);
  const missing: SessionSearchHit[] = [];
  for (const hit of top) {
    const cached = summaries.cache.get(SummaryCache.key({ sessionId: hit.sessionId, version: versionOf(hit) }, query));
    if (cached !== undefined) byId.set(hit.sessionId, cached);
    else missing.push(hit);
  }
  if (missing.length === 0) return { byId, note: null, requests: 0 };
  const sessions: SessionToSummarise[] = await Promise.all(
    missing.map(async (hit) => ({ sessionId: hit.sessionId, version: versionOf(hit), title: hit.title, date: hit.date, messages: await summaries.messagesOf(hit.sessionId) })),
  );
  const asked = summaries.summarise({ query, sessions });
  const outcome: SummaryOutcome = asked ? await asked.catch((error: unknown) => ({ kind: 'unavailable' as const, reason: error instanceof Error ? error.message : String(error) })) : { kind: 'unavailable', reason: 'the background model is not ready yet' };
  if (outcome.kind === 'unavailable') return { byId, note: `No summaries (${outcome.reason}); showing snippets.`, requests: 0 };
  const failed: string[] = [];
  for (const result of outcome.results) {
    if ('summary' in result) {
      byId.set(result.sessionId, result.summary);
      summaries.cache.set(SummaryCache.key({ sessionId: result.sessionId, version: versionOf(missing.find((hit) => hit.sessionId === result.sessionId)!) }, query), result.summary);
    } else failed.push(result.error);
  }
  const note = failed.length > 0 ? `${failed.length} session(s) could not be summarised (${failed[0]}); showing their snippets.` : null;
  return { byId, note, requests: outcome.requests };
}

export async function runSessionSearch(deps: SessionSearchToolDeps, args: Record<string, unknown>, context: WriteContext): Promise<ToolOutcome> {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (!query) return fail("query is required: give a few words to look for in past conversations, e.g. {\"query\": \"docker compose\"}.");
  let limit = DEFAULT_SEARCH_LIMIT;
  if (args.limit !== undefined && args.limit !== null) {
    if (typeof args.limit !== 'number' || !Number.isFinite(args.limit) || args.limit < 1) {
      return fail(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`);
    }
    limit = Math.min(MAX_SEARCH_LIMIT, Math.floor(args.limit));
  }
  const hits = await deps.search.search(query, { limit, excludeSessionId: context.sessionId });
  const { byId, note: summaryNote } = hits.length > 0 ? await summariesFor(deps.summaries, query, hits) : { byId: new Map<string, string>(), note: null };
  const all: ResultEntry[] = hits.map((hit) => {
    const summary = byId.get(hit.sessionId);
    const base = { session_id: hit.sessionId, title: hit.title, date: hit.date, match_count: hit.matchCount };
    return summary !== undefined ? { ...base, summary } : { ...base, snippets: hit.snippets.map((s) => `[${s.role}] ${s.text}`) };
  });
  const results = withinRoom(all, context.resultRoomChars);
  const summarised = results.filter((result) => result.summary !== undefined).length;
  return ok({
    query,
    count: results.length,
    results,
    ...(summarised > 0 ? { summarised_by: 'the background model, from each whole session' } : {}),
    ...(summaryNote ? { summaries_note: summaryNote } : {}),
    ...(results.length < all.length ? { note: `${all.length - results.length} more matching session(s) left out to fit your context window; search with more exact words to see them.` } : {}),
    message:
      results.length > 0
        ? `Found ${results.length} past session(s) mentioning "${query}".`
        : `No past session matched "${query}". Try other or fewer words.`,
  });
}

/** Characters a summary or snippet keeps at least when the room is very small. */
const MIN_TEXT_CHARS = 160;

function shortened(result: ResultEntry, chars: number): ResultEntry {
  const cut = (text: string) => (text.length > chars ? `${text.slice(0, chars)}…` : text);
  return result.summary !== undefined ? { ...result, summary: cut(result.summary) } : { ...result, snippets: (result.snippets ?? []).slice(0, 1).map(cut) };
}

/**
 * The results within the room the model's window has left (docs/context-window.md): snippets
 * are kept to their first one, then the weakest matches are dropped, the best always kept; if
 * the best alone is still too long, its summary or snippet is cut to the room.
 */
function withinRoom(results: ResultEntry[], room: number | undefined): ResultEntry[] {
  const size = (list: ResultEntry[]) => JSON.stringify(list).length;
  if (room === undefined || size(results) <= room) return results;
  const shorter = results.map((result) => (result.snippets ? { ...result, snippets: result.snippets.slice(0, 1) } : result));
  let kept = shorter.length;
  while (kept > 1 && size(shorter.slice(0, kept)) > room) kept -= 1;
  const best = shorter.slice(0, kept);
  if (kept > 1 || size(best) <= room) return best;
  const text = best[0]!.summary ?? best[0]!.snippets?.[0] ?? '';
  const overhead = size(best) - text.length;
  return [shortened(best[0]!, Math.max(MIN_TEXT_CHARS, room - overhead - 40))];
}

export function sessionSearchToolDefinition(deps: SessionSearchToolDeps): ToolDefinition {
  return {
    name: 'session_search',
    description:
      'Search past conversations with the user (full text). Use it when the user refers to something discussed before, ' +
      'or to recall details that are not worth keeping in memory. Returns matching sessions, best match first, ' +
      'each with its id, title and date, and a summary of the facts that bear on the query (or short snippets around the matched words).',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for; every word must match (the last may be a prefix), else any word.' },
        limit: { type: 'integer', description: `How many sessions to return (default ${DEFAULT_SEARCH_LIMIT}, at most ${MAX_SEARCH_LIMIT}).` },
      },
      required: ['query'],
    },
    run: (args, context) => runSessionSearch(deps, args, context),
  };
}
