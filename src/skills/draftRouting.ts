/**
 * The router's pick at Send (docs/gate.md, "Router"): the composer computes the pick a moment
 * after typing stops, so a message pasted and sent at once has none yet; Send uses the pick for
 * exactly the text being sent, computed then when needed. Kept apart from skillRouter.ts so the
 * composer's chip logic does not pull MiniSearch into the first page load.
 */

/** The router's pick the composer holds, with the exact text it was computed for. */
export interface DraftPick {
  text: string;
  /** null: the router picked nothing for that text. */
  skill: string | null;
}

/**
 * What the composer knows when Send is pressed (docs/gate.md, "Router"): the pick it computed
 * last (null: none yet) and the skills whose chip the user removed from this draft.
 */
export interface DraftRouting {
  held: DraftPick | null;
  removed: readonly string[];
}

/**
 * The chip the composer shows for its draft: the pick it holds (while typing, the one for the
 * text of a moment ago, so the chip does not flicker), unless the draft is blank or the user
 * removed that skill.
 */
export function draftChip(draft: string, routing: DraftRouting): string | null {
  const skill = routing.held?.skill ?? null;
  if (draft.trim() === '' || skill === null || routing.removed.includes(skill)) return null;
  return skill;
}

/**
 * The skill a message is sent with: the router's pick for exactly the text being sent — the
 * composer's when it was computed for that text, computed now otherwise (a message pasted and
 * sent at once) — unless the user removed that skill's chip from this draft.
 */
export async function skillAtSend(text: string, routing: DraftRouting, pickFor: (text: string) => Promise<string | null>): Promise<string | null> {
  const skill = routing.held?.text === text ? routing.held.skill : await pickFor(text);
  return skill !== null && routing.removed.includes(skill) ? null : skill;
}
