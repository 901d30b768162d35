/**
 * The skill router (docs/gate.md, "Router"): for models that choose skills badly (small windows,
 * the text tool protocol), Knack picks the skill instead. The user's message is matched with
 * MiniSearch against each skill's name, description and case prompts; above a threshold the best
 * skill is loaded into the turn exactly as `/<skill>` loads it (the chat shows a chip the user
 * can remove). A tie between the two best is ambiguous: no skill is picked.
 */
import MiniSearch from 'minisearch';

export interface RouterSkill {
  name: string;
  description: string;
  /** The prompts of its cases (evals/evals.json): how users actually ask for it. */
  prompts: string[];
}

/** A pick needs this many distinct message words matched… */
export const ROUTER_MIN_WORDS = 2;
/** …and this share of the message's words. */
export const ROUTER_MIN_SHARE = 0.3;

export interface RouterPick {
  name: string;
  /** The message words the skill matched. */
  words: string[];
  score: number;
}

/** Words too common to say anything about which skill is meant. */
const STOPWORDS = new Set(
  'the and for with that this from your you are was were have has had not but can could would should please what when where which who how why into onto about then than them they their there here its our out use using make some any all'.split(' '),
);

/** Lower-case words of three or more letters or digits, stopwords left out. */
export function routerWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 2 && !STOPWORDS.has(word));
}

export interface RouteOptions {
  disabled?: ReadonlySet<string>;
  /** A case prompt to leave out (a reach measurement must not match a case with itself). */
  exclude?: string;
}

export type RouterMatcher = (message: string, options?: RouteOptions) => RouterPick | null;

/** One searchable text: a skill's name and description, or one of its case prompts. */
interface RouterDocument {
  id: number;
  skill: string;
  name: string;
  text: string;
}

/**
 * Builds the matcher over the given skills (the caller rebuilds it when they change). Each
 * skill is its name and description plus one document per case prompt; a skill scores as its
 * best document.
 */
export function createSkillRouter(skills: readonly RouterSkill[]): RouterMatcher {
  const search = new MiniSearch<RouterDocument>({
    fields: ['name', 'text'],
    storeFields: ['skill', 'text'],
    tokenize: (text) => routerWords(text.replace(/-/g, ' ')),
    processTerm: (term) => term,
    searchOptions: { boost: { name: 2 }, combineWith: 'OR', prefix: false, fuzzy: false },
  });
  const documents: RouterDocument[] = [];
  for (const skill of skills) {
    documents.push({ id: documents.length, skill: skill.name, name: skill.name, text: skill.description });
    for (const prompt of skill.prompts) documents.push({ id: documents.length, skill: skill.name, name: '', text: prompt });
  }
  search.addAll(documents);
  return (message, options = {}) => {
    const query = [...new Set(routerWords(message))];
    if (query.length === 0) return null;
    const best = new Map<string, RouterPick>();
    for (const result of search.search(query.join(' '))) {
      const skill = String(result.skill);
      if (options.disabled?.has(skill) || (options.exclude !== undefined && result.text === options.exclude)) continue;
      if (!best.has(skill)) best.set(skill, { name: skill, words: [...new Set(result.queryTerms)], score: result.score });
    }
    const [first, second] = [...best.values()].sort((a, b) => b.score - a.score);
    if (!first || first.words.length < ROUTER_MIN_WORDS || first.words.length / query.length < ROUTER_MIN_SHARE) return null;
    if (second && second.score === first.score) return null;
    return first;
  };
}

/** `on`, `off`, or `auto`: on for small windows and the text tool protocol. */
export type RouterMode = 'auto' | 'on' | 'off';

/** Windows of at most this many tokens count as small. */
export const SMALL_WINDOW_TOKENS = 8192;

/** Whether the router picks skills for a chat on this model. `window` null: unknown. */
export function routerActive(mode: RouterMode | undefined, model: { window: number | null; textProtocol: boolean }): boolean {
  if (mode === 'on') return true;
  if (mode === 'off') return false;
  return model.textProtocol || (model.window !== null && model.window <= SMALL_WINDOW_TOKENS);
}

