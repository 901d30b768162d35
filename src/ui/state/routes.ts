/** The views the app can show; each has a hash route `#/<id>` so back/forward work. */
export const VIEW_IDS = ['chat', 'skills', 'memory', 'activity', 'pending', 'settings'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export const DEFAULT_VIEW: ViewId = 'chat';

/** Reads a location hash (`#/skills`, `#skills`, `#/skills/extra`) into a view; anything else is chat. */
export function viewFromHash(hash: string): ViewId {
  const first = hash.replace(/^#\/?/, '').split('/')[0]?.toLowerCase() ?? '';
  return (VIEW_IDS as readonly string[]).includes(first) ? (first as ViewId) : DEFAULT_VIEW;
}

export function hashForView(view: ViewId): string {
  return `#/${view}`;
}
