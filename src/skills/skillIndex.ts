import type { CatalogChange, CatalogEntry, SkillCatalog } from './skillCatalog';
import { conditionsMet, isDisabled, matchesPlatform, type AvailableTools } from './skillFilters';
import type { UsageLabel } from './usageStore';

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
export type SkillLabelFunction = (label: SkillLabel | undefined) => string | null;

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
}

const HEADER = `## Skills
Skills are procedures this user has taught you or that you learned and checked. Before you answer, scan the list below. If a skill is even partly relevant, load it with skill_view and follow it: skills hold the user's own conventions, so load them even for tasks you know well. If a loaded skill turns out wrong or incomplete, fix it with skill_manage (action 'patch') before you finish. [verified] skills passed a replay on held-out cases; [unverified] ones have not been measured yet, so check their results; [approved] ones the user accepted without that proof.`;

/** Cut to 60 characters the way the index shows descriptions (57 + "..."). */
export function cutDescription(description: string): string {
  const clean = description.trim().replace(/^["']|["']$/g, '').replace(/\s+/g, ' ');
  return clean.length > INDEX_DESCRIPTION_CHARS ? `${clean.slice(0, INDEX_DESCRIPTION_CHARS - 3)}...` : clean;
}

/**
 * The text after a line's description: the injected verification label, then `[stale]` for a
 * skill the curator marked unused (still indexed, docs/learning-loop.md). null: the skill is withheld.
 */
function suffixFor(label: SkillLabel | undefined, labelText: SkillLabelFunction): string | null {
  const verification = labelText(label);
  if (verification === null) return null;
  return `${verification ? ` ${verification}` : ''}${label?.state === 'stale' ? ' [stale]' : ''}`;
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
}

/** What the index derives from one entry. Entries are replaced, never changed, on a write. */
interface EntryText {
  cut?: string;
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
  `${entry.name} ${entry.description} ${entry.tags.join(' ')} ${entry.category ?? ''}`.toLowerCase();

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
  if (fieldMentions(entry.name, messageWords, matcher) || fieldMentions(entry.description, messageWords, matcher)) return true;
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
  text.nameWords ??= words(entry.name);
  text.otherWords ??= words(`${entry.description} ${entry.tags.join(' ')} ${entry.category ?? ''}`);
  let score = 0;
  for (const word of text.nameWords) if (messageWords.has(word)) score += 2;
  for (const word of text.otherWords) if (messageWords.has(word)) score += 1;
  return score;
}

const byName = (a: CatalogEntry, b: CatalogEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The offered skills: platform, disabled list, conditions, and no rejected or archived ones. */
export function offeredSkills(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): CatalogEntry[] {
  return offeredFromSorted([...entries].sort(byName), labels, options);
}

/** `offeredSkills` for entries already sorted by name (stably, from catalogue order). */
function offeredFromSorted(sorted: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): CatalogEntry[] {
  const offered: CatalogEntry[] = [];
  let lastName: string | null = null;
  for (const entry of sorted) {
    // Same name in two categories: the first one in order is offered.
    if (entry.name === lastName) continue;
    const label = labels.get(entry.name);
    if (label?.state === 'archived' || suffixFor(label, options.label ?? neutralLabel) === null) continue;
    if (!matchesPlatform(entry.platforms, options.platform) || isDisabled(entry, options.disabled)) continue;
    if (!conditionsMet(entry, options.available)) continue;
    offered.push(entry);
    lastName = entry.name;
  }
  return offered;
}

export function renderSkillIndex(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): string {
  return renderSortedIndex([...entries].sort(byName), labels, options);
}

/**
 * `renderSkillIndex` for entries already sorted by name, as SkillIndex keeps them. Every step
 * is linear in the number of skills, and per-entry text is derived once per entry.
 */
function renderSortedIndex(sorted: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): string {
  const offered = offeredFromSorted(sorted, labels, options);
  if (offered.length === 0) return '';
  const budgetChars = options.tokenBudget * CHARS_PER_TOKEN;
  const labelText = options.label ?? neutralLabel;
  // Offered skills all have a suffix (a withheld one is not offered).
  const suffixOf = (entry: CatalogEntry) => suffixFor(labels.get(entry.name), labelText) ?? '';
  const lineOf = (entry: CatalogEntry) => `    - ${entry.name}: ${shownDescription(entry)}${suffixOf(entry)}`;
  // The length of lineOf(entry) without building the string.
  const lineLength = (entry: CatalogEntry) => 8 + entry.name.length + shownDescription(entry).length + suffixOf(entry).length;
  const categoryOf = (entry: CatalogEntry) => entry.category ?? 'general';

  // Which skills get a full line: all of them (null) if they fit. Otherwise the most relevant
  // to the first message get full lines within half the budget, and the rest are listed by name.
  let full: Set<CatalogEntry> | null = null;
  let fullSize = HEADER.length + 64;
  for (const entry of offered) {
    fullSize += lineLength(entry) + 1;
    if (fullSize > budgetChars) break;
  }
  if (fullSize > budgetChars) {
    let room = budgetChars / 2 - HEADER.length;
    full = new Set();
    for (const entry of byRelevance(offered, options.firstUserMessage ?? '')) {
      const cost = lineLength(entry) + 1;
      if (cost > room) break;
      full.add(entry);
      room -= cost;
    }
  }

  const byCategory = new Map<string, CatalogEntry[]>();
  for (const entry of offered) {
    const category = categoryOf(entry);
    const list = byCategory.get(category);
    if (list) list.push(entry);
    else byCategory.set(category, [entry]);
  }
  const lines = [HEADER, '', '<available_skills>'];
  // Room for the closing lines is set aside up front, so the whole text stays in budget.
  let used = HEADER.length + 40 + 220;
  let omitted = 0;
  for (const category of [...byCategory.keys()].sort()) {
    const skills = byCategory.get(category)!;
    const shown: CatalogEntry[] = [];
    const namesOnly: CatalogEntry[] = [];
    for (const entry of skills) (full === null || full.has(entry) ? shown : namesOnly).push(entry);
    lines.push(`  ${category}:`);
    used += category.length + 4;
    for (const entry of shown) {
      const line = lineOf(entry);
      lines.push(line);
      used += line.length + 1;
    }
    if (namesOnly.length) {
      const fitting: string[] = [];
      for (const entry of namesOnly) {
        if (used + entry.name.length + 2 > budgetChars) {
          omitted += 1;
          continue;
        }
        fitting.push(entry.name);
        used += entry.name.length + 2;
      }
      if (fitting.length) {
        lines.push(`    [names only] ${fitting.join(', ')}`);
        used += 18;
      }
    }
  }
  lines.push('</available_skills>');
  if (omitted > 0) lines.push(`${omitted} more skills are not listed here; find them with skills_list.`);
  if (full !== null && full.size < offered.length) lines.push('Skills under [names only] are listed without descriptions to save space; skill_view shows them.');
  return lines.join('\n');
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
    ]);
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    this.labels ??= await this.loadLabels();
    this.sorted ??= this.catalog.entries().sort(byName);
    const text = renderSortedIndex(this.sorted, this.labels, { ...options, label: this.label });
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
      // Same directory, so same name, and the catalogue keeps its place: replace in place.
      const at = indexOfEntry(sorted, replaced);
      if (at < 0) this.sorted = null;
      else if (change.kind === 'remove') sorted.splice(at, 1);
      else sorted[at] = entry;
    } else if (change.kind === 'upsert' && indexOfEntry(sorted, entry) < 0) {
      // (Already there when a render rebuilt the list while the catalogue was announcing it.)
      // A new directory comes last in catalogue order, so after every entry of the same name.
      sorted.splice(upperBound(sorted, entry.name), 0, entry);
    }
  }
}

/** First position whose name sorts after `name`. */
function upperBound(sorted: CatalogEntry[], name: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]!.name <= name) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Position of this very entry object, or -1. */
function indexOfEntry(sorted: CatalogEntry[], entry: CatalogEntry): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (sorted[mid]!.name < entry.name) low = mid + 1;
    else high = mid;
  }
  for (let i = low; i < sorted.length && sorted[i]!.name === entry.name; i++) if (sorted[i] === entry) return i;
  return -1;
}
