import type { CatalogChange, CatalogEntry, SkillCatalog } from './skillCatalog';
import { conditionsMet, isDisabled, matchesPlatform, type AvailableTools } from './skillFilters';
import type { UsageLabel } from './usageStore';
import { MAX_NAME_LENGTH, VALID_NAME_RE } from './constants';

/**
 * The skill index in the system prompt (docs/skill-tools.md): one line per offered skill, grouped by
 * category, with a verification label, inside a token budget. Rendered from the in-memory
 * catalogue, so a session start never reads skill files.
 */
export const INDEX_DESCRIPTION_CHARS = 60;
export const CHARS_PER_TOKEN = 4;

export type SkillLabel = UsageLabel;

/**
 * The verification label of one skill's line (e.g. `[verified]`), or null to withhold the skill
 * from the index. The gate owns the words (gate/indexLabel.ts); the index only places them.
 * `label` is undefined for a skill whose usage label is the default (unverified, active).
 */
export type SkillLabelFunction = (label: SkillLabel | undefined, model?: string) => string | null;

/** Until the gate's function is injected, every skill is offered and none claims a verdict. */
export const neutralLabel: SkillLabelFunction = () => '[unverified]';

export interface IndexOptions {
  platform: string | null;
  disabled: string[];
  available: AvailableTools | null;
  tokenBudget: number;
  /** Used to rank skills when the index does not fit the budget. */
  firstUserMessage?: string;
  /** The verification label of each line; `neutralLabel` when absent. */
  label?: SkillLabelFunction;
  /** The short header, for small model windows. */
  compactHeader?: boolean;
  /** Category descriptions (from `DESCRIPTION.md`), shown on the category line. */
  categoryDescriptions?: Map<string, string>;
  /**
   * The model key of the chat the index is for (gate/modelKey.ts): labels are that model's
   * verdicts (docs/gate.md, "Per-model verdicts"). Absent: the newest verdict of any model.
   */
  model?: string;
  /**
   * The skill a reach measurement is about (its catalogue name): labelled as it would be once
   * promoted on `model`, whatever its verdict now (docs/gate.md, "Reach"). Otherwise the
   * promotion a run decides would change every reach request it was measured with.
   */
  asPromoted?: string;
}

/** The label a skill would have once promoted on `model` (its state kept: an archived skill stays out). */
export function promotedLabel(label: SkillLabel | undefined, model?: string): SkillLabel {
  const state = label?.state ?? 'active';
  return { verification: 'promoted', state, ...(model !== undefined ? { models: { ...label?.models, [model]: { verification: 'promoted' } } } : {}) };
}

/**
 * The name a skill is listed under: its frontmatter `name` when that is a valid skill name,
 * else its folder name (docs/skill-tools.md). The tools find a skill by either.
 */
export function indexNameOf(entry: CatalogEntry): string {
  const name = entry.frontmatterName;
  if (name === entry.name) return name;
  const text = entryText(entry);
  return (text.indexName ??= name.length <= MAX_NAME_LENGTH && VALID_NAME_RE.test(name) ? name : entry.name);
}

const HEADER = `## Skills
Skills are procedures this user has taught you or that you learned and checked. Before you answer, scan the list below. If a skill is even partly relevant, load it with skill_view and follow it: skills hold the user's own conventions, so load them even for tasks you know well. If a loaded skill turns out wrong or incomplete, fix it with skill_manage (action 'patch') before you finish. [verified] skills passed a replay on held-out cases; [unverified] ones have not been measured yet, so check their results; [approved] ones the user accepted without that proof.`;

/**
 * The header for a small model window (docs/context-window.md): the same rules in a quarter of the
 * words, since at 4,096 tokens every line of the prompt is a line less of conversation.
 */
const SHORT_HEADER = `## Skills
Saved procedures. If one fits the request, load it with skill_view and follow it; fix a wrong one with skill_manage. [verified]: proven on held-out cases; [unverified]: not yet measured; [approved]: accepted by the user.`;

/** Cut to 60 characters the way the index shows descriptions (57 + "..."). */
export function cutDescription(description: string): string {
  const clean = description.trim().replace(/^["']|["']$/g, '').replace(/\s+/g, ' ');
  return clean.length > INDEX_DESCRIPTION_CHARS ? `${clean.slice(0, INDEX_DESCRIPTION_CHARS - 3)}...` : clean;
}

/**
 * The text after a line's description: the injected verification label, then `[stale]` for a
 * skill the curator marked unused (still indexed, docs/learning-loop.md). null: the skill is withheld.
 */
function suffixFor(label: SkillLabel | undefined, labelText: SkillLabelFunction, model?: string): string | null {
  const verification = labelText(label, model);
  if (verification === null) return null;
  return `${verification ? ` ${verification}` : ''}${label?.state === 'stale' ? ' [stale]' : ''}`;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
}

/** What the index derives from one entry. Entries are replaced, never changed, on a write. */
interface EntryText {
  cut?: string;
  /** `indexNameOf`, when the frontmatter name differs from the folder name. */
  indexName?: string;
  /** Lower-cased name, description, tags and category, for message words `wordMatcher` can't take. */
  haystack?: string;
  nameWords?: string[];
  otherWords?: string[];
  /** The relevance to the first message `scoredFor` (renders after a write reuse it). */
  scoredFor?: string;
  score?: number;
}
const entryTexts = new WeakMap<CatalogEntry, EntryText>();

function entryText(entry: CatalogEntry): EntryText {
  let text = entryTexts.get(entry);
  if (!text) {
    text = {};
    entryTexts.set(entry, text);
  }
  return text;
}

const haystackOf = (entry: CatalogEntry): string =>
  `${indexNameOf(entry)} ${entry.description} ${entry.tags.join(' ')} ${entry.category ?? ''}`.toLowerCase();

/**
 * One case-insensitive pattern for the message's words, plus any non-ASCII character: on ASCII
 * text, `/i` finds a word exactly where the lower-cased text would contain it, without
 * lower-casing and joining the fields of 10,000 skills at every first render. Non-ASCII text
 * (where `toLowerCase` and `/i` can disagree) takes the lower-cased path. null when a word is
 * not plain lower-case ASCII letters and digits (as `words` makes them): then every skill
 * takes the lower-cased path.
 */
const wordMatchers = new WeakMap<Set<string>, RegExp | null>();
function wordMatcher(messageWords: Set<string>): RegExp | null {
  let matcher = wordMatchers.get(messageWords);
  if (matcher === undefined) {
    const plain = [...messageWords].every((word) => /^[a-z0-9]+$/.test(word));
    matcher = plain ? new RegExp(`(${[...messageWords].join('|')})|[^\x00-\x7f]`, 'i') : null;
    wordMatchers.set(messageWords, matcher);
  }
  return matcher;
}

/** Whether some message word occurs in `field` lower-cased. */
function fieldMentions(field: string, messageWords: Set<string>, matcher: RegExp): boolean {
  const found = matcher.exec(field);
  if (!found) return false;
  if (found[1] !== undefined) return true;
  const lower = field.toLowerCase();
  for (const word of messageWords) if (lower.includes(word)) return true;
  return false;
}

/** Whether some message word occurs in the skill's name, description, tags or category. */
function mentionsAnyWord(entry: CatalogEntry, messageWords: Set<string>): boolean {
  const matcher = wordMatcher(messageWords);
  if (matcher === null) {
    const text = entryText(entry);
    const haystack = (text.haystack ??= haystackOf(entry));
    for (const word of messageWords) if (haystack.includes(word)) return true;
    return false;
  }
  if (fieldMentions(indexNameOf(entry), messageWords, matcher) || fieldMentions(entry.description, messageWords, matcher)) return true;
  for (const tag of entry.tags) if (fieldMentions(tag, messageWords, matcher)) return true;
  return entry.category !== null && fieldMentions(entry.category, messageWords, matcher);
}

/** The description as the index shows it; only skills with a full line need it. */
function shownDescription(entry: CatalogEntry): string {
  const text = entryText(entry);
  return (text.cut ??= cutDescription(entry.description));
}

/** Relevance of a skill to the first user message: shared words, name words counting double. */
export function relevance(entry: CatalogEntry, messageWords: Set<string>): number {
  // A word of the message can only match a word of the skill it is a substring of; most
  // skills share none, and splitting 10,000 skills into words is the slow part.
  if (messageWords.size === 0 || !mentionsAnyWord(entry, messageWords)) return 0;
  const text = entryText(entry);
  text.nameWords ??= words(indexNameOf(entry));
  text.otherWords ??= words(`${entry.description} ${entry.tags.join(' ')} ${entry.category ?? ''}`);
  let score = 0;
  for (const word of text.nameWords) if (messageWords.has(word)) score += 2;
  for (const word of text.otherWords) if (messageWords.has(word)) score += 1;
  return score;
}

/** Index-name order; ties (the same name in two categories) by directory. */
const byNameThenDir = (x: string, xDir: string, y: string, yDir: string) => (x < y ? -1 : x > y ? 1 : xDir < yDir ? -1 : xDir > yDir ? 1 : 0);
const byIndexName = (a: CatalogEntry, b: CatalogEntry) => byNameThenDir(indexNameOf(a), a.dir, indexNameOf(b), b.dir);
/** `byIndexName` order, each name worked out once, not twice per comparison (10,000 at a first render). */
const sortedByIndexName = (entries: readonly CatalogEntry[]): CatalogEntry[] =>
  entries.map((entry) => ({ name: indexNameOf(entry), entry })).sort((a, b) => byNameThenDir(a.name, a.entry.dir, b.name, b.entry.dir)).map(({ entry }) => entry);

/** The offered skills: platform, disabled list, conditions, and no rejected or archived ones. */
export function offeredSkills(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): CatalogEntry[] {
  return offeredFromSorted(sortedByIndexName(entries), labels, options);
}

/** `offeredSkills` for entries already sorted by name (stably, from catalogue order). */
function offeredFromSorted(sorted: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): CatalogEntry[] {
  const offered: CatalogEntry[] = [];
  const labelText = options.label ?? neutralLabel;
  // Most skills have no label record: whether those are withheld is decided once per render.
  const unlabelledShown = suffixFor(undefined, labelText, options.model) !== null;
  // The same name in two categories is listed in both; twice in one category, once. Entries
  // come sorted by index name, so one name's entries are neighbours: the categories taken are
  // kept for the current name only (10,000 keys per render cost more than the rest together).
  let currentName: string | null = null;
  const categoriesTaken = new Set<string>();
  for (const entry of sorted) {
    const name = indexNameOf(entry);
    if (name !== currentName) {
      currentName = name;
      categoriesTaken.clear();
    }
    const category = entry.category ?? '';
    if (categoriesTaken.has(category)) continue;
    const label = labels.get(entry.name);
    if (label === undefined ? !unlabelledShown : label.state === 'archived' || suffixFor(label, labelText, options.model) === null) continue;
    if (!matchesPlatform(entry.platforms, options.platform) || isDisabled(entry, options.disabled)) continue;
    if (!conditionsMet(entry, options.available)) continue;
    // A skill with no description (a plain-Markdown SKILL.md kept by a lenient import) gives
    // the model nothing to choose by: it joins the index once it has one (docs/skill-tools.md).
    if (entry.description.trim() === '') continue;
    offered.push(entry);
    categoriesTaken.add(category);
  }
  return offered;
}

export function renderSkillIndex(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): string {
  return renderSortedIndex(sortedByIndexName(entries), labels, options);
}

const OPEN = '<available_skills>';
const CLOSE = '</available_skills>';
const NAMES_PREFIX = '    [names only] ';
const NAMES_NOTE = 'Skills under [names only] are listed without descriptions to save space; skill_view shows them.';
const omittedLine = (count: number) => `…and ${count} more skills: use skills_list`;

/** How one render lays out: which skills get a full line, which are names only, which are left out. */
interface Layout {
  /** Per category (sorted): full-line skills, names-only skills, and whether its description shows. */
  categories: { category: string; full: CatalogEntry[]; names: CatalogEntry[]; described: boolean }[];
  omitted: number;
  namesOnly: boolean;
}

/**
 * `renderSkillIndex` for entries already sorted by index name, as SkillIndex keeps them. The
 * budget is a hard cap (docs/skill-tools.md): every line is charged before it is placed, the
 * closing lines are charged up front, so the text never exceeds `tokenBudget × 4` characters.
 */
function renderSortedIndex(sorted: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): string {
  const offered = offeredFromSorted(sorted, labels, options);
  if (offered.length === 0) return '';
  const budgetChars = Math.max(0, Math.floor(options.tokenBudget * CHARS_PER_TOKEN));
  const labelText = options.label ?? neutralLabel;
  const descriptions = options.categoryDescriptions ?? new Map<string, string>();
  // Offered skills all have a suffix (a withheld one is not offered).
  const suffixOf = (entry: CatalogEntry) => suffixFor(labels.get(entry.name), labelText, options.model) ?? '';
  const lineOf = (entry: CatalogEntry) => `    - ${indexNameOf(entry)}: ${shownDescription(entry)}${suffixOf(entry)}`;
  const header = options.compactHeader ? SHORT_HEADER : HEADER;
  const layout = layOut(offered, budgetChars, options.firstUserMessage ?? '', header, {
    lineLength: (entry) => 8 + indexNameOf(entry).length + shownDescription(entry).length + suffixOf(entry).length,
    categoryLength: (category, described) => categoryLine(category, described ? descriptions.get(category) : undefined).length,
  });
  if (layout === null) {
    const line = omittedLine(offered.length);
    return line.length <= budgetChars ? line : '';
  }
  const lines = [header, '', OPEN];
  for (const { category, full, names, described } of layout.categories) {
    lines.push(categoryLine(category, described ? descriptions.get(category) : undefined));
    for (const entry of full) lines.push(lineOf(entry));
    if (names.length) lines.push(NAMES_PREFIX + names.map(indexNameOf).join(', '));
  }
  lines.push(CLOSE);
  if (layout.omitted > 0) lines.push(omittedLine(layout.omitted));
  if (layout.namesOnly) lines.push(NAMES_NOTE);
  return lines.join('\n');
}

function categoryLine(category: string, description: string | undefined): string {
  return description ? `  ${category}: ${cutDescription(description)}` : `  ${category}:`;
}

const categoryOf = (entry: CatalogEntry) => entry.category ?? 'general';

/** Offered skills grouped by category, categories sorted, skills kept in index-name order. */
function groupByCategory(offered: CatalogEntry[]): Map<string, CatalogEntry[]> {
  const byCategory = new Map<string, CatalogEntry[]>();
  for (const entry of offered) {
    const list = byCategory.get(categoryOf(entry));
    if (list) list.push(entry);
    else byCategory.set(categoryOf(entry), [entry]);
  }
  return new Map([...byCategory.keys()].sort().map((category) => [category, byCategory.get(category)!]));
}

interface Lengths {
  lineLength(entry: CatalogEntry): number;
  categoryLength(category: string, described: boolean): number;
}

/**
 * Decides the layout within `budgetChars`, or null when not even the frame fits. Everything
 * fits: every skill gets a full line and every category its description. Otherwise the skills
 * most relevant to the first message get full lines and the rest are listed by name.
 */
function layOut(offered: CatalogEntry[], budgetChars: number, message: string, header: string, lengths: Lengths): Layout | null {
  const byCategory = groupByCategory(offered);
  // The frame: header, blank line, open and close tags, newlines; closing lines charged up front.
  const frame = header.length + 1 + 1 + OPEN.length + 1 + CLOSE.length;
  // Stops at the first line past the budget: most of 10,000 descriptions are never cut.
  let total = frame;
  for (const [category, skills] of byCategory) {
    total += 1 + lengths.categoryLength(category, true);
    for (const entry of skills) {
      total += 1 + lengths.lineLength(entry);
      if (total > budgetChars) break;
    }
    if (total > budgetChars) break;
  }
  if (total <= budgetChars) {
    const categories = [...byCategory].map(([category, full]) => ({ category, full, names: [], described: true }));
    return { categories, omitted: 0, namesOnly: false };
  }
  const reserved = frame + 1 + omittedLine(offered.length).length + 1 + NAMES_NOTE.length;
  if (reserved > budgetChars) return null;
  return layOutAllNamed(byCategory, offered, reserved, budgetChars, message, lengths) ?? layOutRanked(byCategory, offered, reserved, budgetChars, message, lengths);
}

/**
 * When every skill's name fits: list them all, then give full lines to the most relevant ones
 * with the room left, so a mid-sized library uses its budget instead of half of it.
 */
function layOutAllNamed(
  byCategory: Map<string, CatalogEntry[]>,
  offered: CatalogEntry[],
  reserved: number,
  budgetChars: number,
  message: string,
  lengths: Lengths,
): Layout | null {
  let used = reserved;
  for (const [category, skills] of byCategory) {
    used += 1 + lengths.categoryLength(category, false) + 1 + NAMES_PREFIX.length;
    for (const entry of skills) used += indexNameOf(entry).length + 2;
  }
  if (used > budgetChars) return null;
  const full = new Set<CatalogEntry>();
  const described = new Set<string>();
  for (const entry of byRelevance(offered, message)) {
    const category = categoryOf(entry);
    const describing = described.has(category) ? 0 : lengths.categoryLength(category, true) - lengths.categoryLength(category, false);
    // A full line instead of the name in the names line (charged above with its separator).
    const cost = 1 + lengths.lineLength(entry) - (indexNameOf(entry).length + 2) + describing;
    if (used + cost > budgetChars) break;
    used += cost;
    full.add(entry);
    described.add(category);
  }
  const categories = [...byCategory].map(([category, skills]) => ({
    category,
    full: skills.filter((entry) => full.has(entry)),
    names: skills.filter((entry) => !full.has(entry)),
    described: described.has(category),
  }));
  return { categories, omitted: 0, namesOnly: full.size < offered.length };
}

/**
 * A large library: the most relevant skills get full lines within half the budget (their
 * categories' lines charged with them), and the rest of the budget lists the others by name,
 * category by category; whatever does not fit is counted in the closing "…and N more" line.
 */
function layOutRanked(
  byCategory: Map<string, CatalogEntry[]>,
  offered: CatalogEntry[],
  reserved: number,
  budgetChars: number,
  message: string,
  lengths: Lengths,
): Layout {
  let used = reserved;
  const charged = new Set<string>();
  const full = new Set<CatalogEntry>();
  const fullRoom = Math.max(reserved, budgetChars / 2);
  for (const entry of byRelevance(offered, message)) {
    const category = categoryOf(entry);
    const cost = 1 + lengths.lineLength(entry) + (charged.has(category) ? 0 : 1 + lengths.categoryLength(category, true));
    if (used + cost > fullRoom) break;
    used += cost;
    full.add(entry);
    charged.add(category);
  }
  const categories: Layout['categories'] = [];
  let omitted = 0;
  for (const [category, skills] of byCategory) {
    const shown = skills.filter((entry) => full.has(entry));
    const names: CatalogEntry[] = [];
    // A category with no full line pays for its (undescribed) line and the names prefix first.
    let pending = (charged.has(category) ? 0 : 1 + lengths.categoryLength(category, false)) + 1 + NAMES_PREFIX.length;
    for (const entry of skills) {
      if (full.has(entry)) continue;
      const cost = indexNameOf(entry).length + (names.length ? 2 : 0) + (names.length ? 0 : pending);
      if (used + cost > budgetChars) {
        omitted += 1;
        continue;
      }
      used += cost;
      pending = 0;
      names.push(entry);
    }
    if (shown.length || names.length) categories.push({ category, full: shown, names, described: charged.has(category) });
  }
  return { categories, omitted, namesOnly: true };
}

/**
 * Offered skills from most to least relevant, ties in name order: the order a stable sort by
 * score would give, found by grouping by score (a full sort of 10,000 skills is the slow part).
 */
function* byRelevance(offered: CatalogEntry[], message: string): Generator<CatalogEntry> {
  const messageWords = new Set(words(message));
  const scored = new Map<number, CatalogEntry[]>();
  const unscored: CatalogEntry[] = [];
  for (const entry of offered) {
    let score = 0;
    if (messageWords.size) {
      const text = entryText(entry);
      if (text.scoredFor !== message) {
        text.score = relevance(entry, messageWords);
        text.scoredFor = message;
      }
      score = text.score!;
    }
    if (score === 0) unscored.push(entry);
    else {
      const group = scored.get(score);
      if (group) group.push(entry);
      else scored.set(score, [entry]);
    }
  }
  for (const score of [...scored.keys()].sort((a, b) => b - a)) yield* scored.get(score)!;
  yield* unscored;
}

/**
 * Cached index over the catalogue. The cache holds one rendering per option set and is dropped
 * whenever the catalogue changes (a write in this context, or a broadcast from another). The
 * catalogue's entries are kept sorted by name across changes: one write moves one entry
 * instead of re-sorting 10,000.
 */
export class SkillIndex {
  private cache = new Map<string, string>();
  private labels: Map<string, SkillLabel> | null = null;
  /** Every catalogue entry sorted by name, ties in catalogue order; null until first needed. */
  private sorted: CatalogEntry[] | null = null;

  /**
   * `label`: the verification label function (the gate's, wired by the composition root);
   * it overrides any `label` passed to `render`, since the cache key cannot include it.
   */
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly loadLabels: () => Promise<Map<string, SkillLabel>>,
    private readonly label: SkillLabelFunction = neutralLabel,
  ) {
    catalog.onChange((change) => {
      this.follow(change);
      this.invalidate();
    });
  }

  invalidate(options: { labels?: boolean } = {}): void {
    this.cache.clear();
    if (options.labels) this.labels = null;
  }

  async render(options: IndexOptions): Promise<string> {
    const key = JSON.stringify([
      this.catalog.generation,
      options.platform,
      [...options.disabled].sort(),
      options.available ? [[...options.available.tools].sort(), [...options.available.toolsets].sort()] : null,
      options.tokenBudget,
      options.firstUserMessage ?? '',
      options.model ?? null,
      options.asPromoted ?? null,
    ]);
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    this.labels ??= await this.loadLabels();
    this.sorted ??= sortedByIndexName(this.catalog.entries());
    const categoryDescriptions = await this.catalog.categoryDescriptions();
    const labels = options.asPromoted === undefined ? this.labels : new Map(this.labels).set(options.asPromoted, promotedLabel(this.labels.get(options.asPromoted), options.model));
    const text = renderSortedIndex(this.sorted, labels, { ...options, label: this.label, categoryDescriptions });
    if (this.cache.size > 16) this.cache.clear();
    this.cache.set(key, text);
    return text;
  }

  /** Applies one catalogue change to the sorted entries, or drops them to be rebuilt. */
  private follow(change: CatalogChange): void {
    const sorted = this.sorted;
    if (!sorted) return;
    if (change.kind === 'reset') {
      this.sorted = null;
      return;
    }
    const { entry, replaced } = change;
    if (replaced) {
      const at = indexOfEntry(sorted, replaced);
      if (at < 0) {
        this.sorted = null;
        return;
      }
      // Same directory; the same index name keeps its place, a renamed one moves.
      if (change.kind === 'upsert' && indexNameOf(entry) === indexNameOf(replaced)) {
        sorted[at] = entry;
        return;
      }
      sorted.splice(at, 1);
      if (change.kind === 'remove') return;
    }
    if (change.kind === 'upsert' && indexOfEntry(sorted, entry) < 0) {
      // (Already there when a render rebuilt the list while the catalogue was announcing it.)
      sorted.splice(lowerBound(sorted, entry), 0, entry);
    }
  }
}

/** First position whose entry does not sort before `entry`. */
function lowerBound(sorted: CatalogEntry[], entry: CatalogEntry): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (byIndexName(sorted[mid]!, entry) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Position of this very entry object, or -1 (directories are unique, so the order is total). */
function indexOfEntry(sorted: CatalogEntry[], entry: CatalogEntry): number {
  const at = lowerBound(sorted, entry);
  return sorted[at] === entry ? at : -1;
}
