/** The views the app can show; each has a hash route `#/<id>` so back/forward work. */
export const VIEW_IDS = ['chat', 'skills', 'memory', 'activity', 'pending', 'settings'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export const DEFAULT_VIEW: ViewId = 'chat';

/**
 * Where a hash points: a view and, for the chat, the conversation (`#/chat/<session id>`).
 * A chat route without an id means "the chat view as it is" (a fresh chat after a reload).
 */
export interface Route {
  view: ViewId;
  sessionId: string | null;
}

function segments(hash: string): string[] {
  return hash.replace(/^#\/?/, '').split('/');
}

/** Reads a location hash (`#/skills`, `#skills`, `#/skills/extra`) into a view; anything else is chat. */
export function viewFromHash(hash: string): ViewId {
  const first = segments(hash)[0]?.toLowerCase() ?? '';
  return (VIEW_IDS as readonly string[]).includes(first) ? (first as ViewId) : DEFAULT_VIEW;
}

/** The view and, on `#/chat/<id>`, the session id (decoded; null when absent or malformed). */
export function routeFromHash(hash: string): Route {
  const view = viewFromHash(hash);
  if (view !== 'chat') return { view, sessionId: null };
  const [first, second] = segments(hash);
  if (first?.toLowerCase() !== 'chat' || !second) return { view, sessionId: null };
  try {
    const sessionId = decodeURIComponent(second).trim();
    return { view, sessionId: sessionId || null };
  } catch {
    return { view, sessionId: null };
  }
}

export function hashForView(view: ViewId): string {
  return `#/${view}`;
}

/** `#/chat/<id>` for a stored conversation, `#/chat` for a new one. */
export function hashForChat(sessionId: string | null): string {
  return sessionId ? `#/chat/${encodeURIComponent(sessionId)}` : hashForView('chat');
}
