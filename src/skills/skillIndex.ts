import type { CatalogEntry, SkillCatalog } from './skillCatalog';
import { conditionsMet, isDisabled, matchesPlatform, type AvailableTools } from './skillFilters';
import type { SkillState, Verification } from './usageStore';

/**
 * The skill index in the system prompt (SPEC §7): one line per offered skill, grouped by
 * category, with a verification label, inside a token budget. Rendered from the in-memory
 * catalogue, so a session start never reads skill files.
 */
export const INDEX_DESCRIPTION_CHARS = 60;
export const CHARS_PER_TOKEN = 4;

export interface SkillLabel {
  verification: Verification;
  state: SkillState;
}

export interface IndexOptions {
  platform: string | null;
  disabled: string[];
  available: AvailableTools | null;
  tokenBudget: number;
  /** Used to rank skills when the index does not fit the budget. */
  firstUserMessage?: string;
}

const HEADER = `## Skills
Skills are procedures this user has taught you or that you learned and checked. Before you answer, scan the list below. If a skill is even partly relevant, load it with skill_view and follow it: skills hold the user's own conventions, so load them even for tasks you know well. If a loaded skill turns out wrong or incomplete, fix it with skill_manage (action 'patch') before you finish. [verified] skills passed a replay on held-out cases; [unverified] ones have not been measured yet, so check their results.`;

/** Cut to 60 characters the way the index shows descriptions (57 + "..."). */
export function cutDescription(description: string): string {
  const clean = description.trim().replace(/^["']|["']$/g, '').replace(/\s+/g, ' ');
  return clean.length > INDEX_DESCRIPTION_CHARS ? `${clean.slice(0, INDEX_DESCRIPTION_CHARS - 3)}...` : clean;
}

function labelFor(label: SkillLabel | undefined): string {
  if (label?.state === 'stale') return label.verification === 'promoted' ? ' [verified] [stale]' : ' [unverified] [stale]';
  return label?.verification === 'promoted' ? ' [verified]' : ' [unverified]';
}

function words(text: string): string[] {
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
}

/** Relevance of a skill to the first user message: shared words, name words counting double. */
export function relevance(entry: CatalogEntry, messageWords: Set<string>): number {
  let score = 0;
  for (const word of words(entry.name)) if (messageWords.has(word)) score += 2;
  for (const word of words(`${entry.description} ${entry.tags.join(' ')} ${entry.category ?? ''}`)) if (messageWords.has(word)) score += 1;
  return score;
}

/** The offered skills: platform, disabled list, conditions, and no rejected or archived ones. */
export function offeredSkills(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): CatalogEntry[] {
  const seen = new Set<string>();
  return entries
    .filter((entry) => {
      const label = labels.get(entry.name);
      if (label?.verification === 'rejected' || label?.state === 'archived') return false;
      if (!matchesPlatform(entry.platforms, options.platform) || isDisabled(entry, options.disabled)) return false;
      return conditionsMet(entry, options.available);
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((entry) => {
      if (seen.has(entry.name)) return false;
      seen.add(entry.name);
      return true;
    });
}

export function renderSkillIndex(entries: CatalogEntry[], labels: Map<string, SkillLabel>, options: IndexOptions): string {
  const offered = offeredSkills(entries, labels, options);
  if (offered.length === 0) return '';
  const budgetChars = options.tokenBudget * CHARS_PER_TOKEN;
  const lineOf = (entry: CatalogEntry) => `    - ${entry.name}: ${cutDescription(entry.description)}${labelFor(labels.get(entry.name))}`;
  const categoryOf = (entry: CatalogEntry) => entry.category ?? 'general';

  // Which skills get a full line: all of them if they fit. Otherwise the most relevant to the
  // first message get full lines within half the budget, and the rest are listed by name.
  let full = new Set(offered);
  const fullSize = HEADER.length + offered.reduce((sum, e) => sum + lineOf(e).length + 1, 0) + 64;
  if (fullSize > budgetChars) {
    const messageWords = new Set(words(options.firstUserMessage ?? ''));
    const ranked = offered
      .map((entry, order) => ({ entry, order, score: relevance(entry, messageWords) }))
      .sort((a, b) => b.score - a.score || a.order - b.order);
    let room = budgetChars / 2 - HEADER.length;
    full = new Set();
    for (const { entry } of ranked) {
      const cost = lineOf(entry).length + 1;
      if (cost > room) break;
      full.add(entry);
      room -= cost;
    }
  }

  const byCategory = new Map<string, CatalogEntry[]>();
  for (const entry of offered) {
    const list = byCategory.get(categoryOf(entry)) ?? [];
    list.push(entry);
    byCategory.set(categoryOf(entry), list);
  }
  const lines = [HEADER, '', '<available_skills>'];
  // Room for the closing lines is set aside up front, so the whole text stays in budget.
  let used = HEADER.length + 40 + 220;
  let omitted = 0;
  for (const category of [...byCategory.keys()].sort()) {
    const skills = byCategory.get(category)!;
    const shown = skills.filter((e) => full.has(e));
    const namesOnly = skills.filter((e) => !full.has(e));
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
  if (full.size < offered.length) lines.push('Skills under [names only] are listed without descriptions to save space; skill_view shows them.');
  return lines.join('\n');
}

/**
 * Cached index over the catalogue. The cache holds one rendering per option set and is dropped
 * whenever the catalogue changes (a write in this context, or a broadcast from another).
 */
export class SkillIndex {
  private cache = new Map<string, string>();
  private labels: Map<string, SkillLabel> | null = null;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly loadLabels: () => Promise<Map<string, SkillLabel>>,
  ) {
    catalog.onChange(() => this.invalidate());
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
    const text = renderSkillIndex(this.catalog.entries(), this.labels, options);
    if (this.cache.size > 16) this.cache.clear();
    this.cache.set(key, text);
    return text;
  }
}
