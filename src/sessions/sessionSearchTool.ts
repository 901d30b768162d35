/**
 * The `session_search` tool (docs/chat.md): full-text search over past conversations, returning
 * each matching session's id, title, date and snippets around the matches. The current
 * session is left out: it is already in the model's context.
 */
import type { ToolDefinition } from '../tools/toolRegistry';
import { fail, ok, type ToolOutcome } from '../tools/toolResult';
import type { WriteContext } from '../tools/writeContext';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SessionSearch } from './sessionSearch';

export interface SessionSearchToolDeps {
  search: SessionSearch;
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
  const all = hits.map((hit) => ({
    session_id: hit.sessionId,
    title: hit.title,
    date: hit.date,
    match_count: hit.matchCount,
    snippets: hit.snippets.map((s) => `[${s.role}] ${s.text}`),
  }));
  const results = withinRoom(all, context.resultRoomChars);
  return ok({
    query,
    count: results.length,
    results,
    ...(results.length < all.length ? { note: `${all.length - results.length} more matching session(s) left out to fit your context window; search with more exact words to see them.` } : {}),
    message:
      results.length > 0
        ? `Found ${results.length} past session(s) mentioning "${query}".`
        : `No past session matched "${query}". Try other or fewer words.`,
  });
}

type SearchResult = { snippets: string[] } & Record<string, unknown>;

/**
 * The results within the room the model's window has left (docs/context-window.md): snippets
 * are kept to their first one, then the weakest matches are dropped, the best always kept.
 */
function withinRoom<T extends SearchResult>(results: T[], room: number | undefined): T[] {
  if (room === undefined || JSON.stringify(results).length <= room) return results;
  const shorter = results.map((result) => ({ ...result, snippets: result.snippets.slice(0, 1) }));
  let kept = shorter.length;
  while (kept > 1 && JSON.stringify(shorter.slice(0, kept)).length > room) kept -= 1;
  return shorter.slice(0, kept);
}

export function sessionSearchToolDefinition(deps: SessionSearchToolDeps): ToolDefinition {
  return {
    name: 'session_search',
    description:
      'Search past conversations with the user (full text). Use it when the user refers to something discussed before, ' +
      'or to recall details that are not worth keeping in memory. Returns matching sessions, best match first, ' +
      'each with its id, title, date and short snippets around the matched words.',
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
