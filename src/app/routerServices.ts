/**
 * The skill router's data (docs/gate.md, "Router"): every listed skill's name, description and
 * case prompts, read from the catalogue and each skill's evals/evals.json. The chat keeps one
 * matcher per catalogue generation; a reach measurement leaves each case's own prompt out.
 */
import type { RouterMatcher, RouterMode, RouterSkill } from '../skills/skillRouter';
import type { SkillServices } from './skillServices';

/** The router's view of the library (archived and description-less skills are never picked). */
export async function routerSkills(skills: SkillServices): Promise<RouterSkill[]> {
  const entries = skills.engine.catalog.entries().filter((entry) => !entry.dir.startsWith('skills/.archive/') && entry.description.trim() !== '');
  return Promise.all(
    entries.map(async (entry): Promise<RouterSkill> => {
      const text = await skills.engine.files.readText(`${entry.dir}/evals/evals.json`).catch(() => null);
      return { name: entry.name, description: entry.description, prompts: casePrompts(text) };
    }),
  );
}

/** The prompts of the trigger cases in an evals file (none when it does not parse). */
function casePrompts(text: string | null): string[] {
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as { evals?: { prompt?: unknown; should_trigger?: unknown }[] };
    return (parsed.evals ?? []).filter((item) => typeof item?.prompt === 'string' && item.should_trigger !== false).map((item) => item.prompt as string);
  } catch {
    return [];
  }
}

/** A matcher for the chat, rebuilt when the catalogue changes. */
export function chatRouter(skills: SkillServices): () => Promise<RouterMatcher> {
  let built: { generation: number; matcher: Promise<RouterMatcher> } | null = null;
  return () => {
    const generation = skills.engine.catalog.generation;
    if (built?.generation !== generation) {
      const matcher = Promise.all([routerSkills(skills), import('../skills/skillRouter')]).then(([list, { createSkillRouter }]) => createSkillRouter(list));
      built = { generation, matcher };
    }
    return built.matcher;
  };
}

/** What the router's default needs to know of the chat's model (skillRouter.ts `routerActive`). */
export interface RoutedModel {
  /** The context window in tokens; null = unknown. */
  window: number | null;
  textProtocol: boolean;
}

/**
 * The skill the router loads for `text` in a chat (docs/gate.md, "Router"), or null: the text
 * is blank or a slash command (it names its own skill or view), the router is off for this
 * model (`model` null: none is chosen), or no skill matches well enough.
 */
export async function routeMessage(
  text: string,
  parts: { settings: { router?: RouterMode; disabled: readonly string[] }; model: () => Promise<RoutedModel | null>; matcher: () => Promise<RouterMatcher> },
): Promise<string | null> {
  if (text.trim() === '' || text.trimStart().startsWith('/')) return null;
  const { settings } = parts;
  if (settings.router === 'off') return null;
  const [model, { routerActive }] = await Promise.all([parts.model(), import('../skills/skillRouter')]);
  if (!model || !routerActive(settings.router, model)) return null;
  return (await parts.matcher())(text, { disabled: new Set(settings.disabled) })?.name ?? null;
}

/**
 * The router a reach measurement uses: the whole library, each case measured without its own
 * prompt in the index (it would match itself).
 */
export async function reachRouter(skills: SkillServices, disabled: string[]): Promise<(prompt: string) => string | null> {
  const [list, { createSkillRouter }] = await Promise.all([routerSkills(skills), import('../skills/skillRouter')]);
  const matcher = createSkillRouter(list);
  const off = new Set(disabled);
  return (prompt) => matcher(prompt, { disabled: off, exclude: prompt })?.name ?? null;
}
