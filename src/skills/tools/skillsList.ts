import { ok, type ToolOutcome } from '../../tools/toolResult';
import { MAX_DESCRIPTION_LENGTH } from '../constants';
import { isDisabled, matchesPlatform, sortForListing } from '../skillFilters';
import { indexNameOf } from '../skillIndex';
import type { SkillEngine } from '../skillEngine';

/** `skills_list(category?)`: every active skill with name, description and category; no counters. */
export class SkillsListTool {
  constructor(private readonly engine: SkillEngine) {}

  async run(args: { category?: unknown }): Promise<ToolOutcome> {
    const settings = this.engine.settings();
    const seen = new Set<string>();
    const visible = sortForListing(this.engine.catalog.entries()).filter((entry) => {
      if (!matchesPlatform(entry.platforms, settings.platform) || isDisabled(entry, settings.disabled)) return false;
      // The same name in two categories is listed in both; twice in one category, once.
      const key = `${entry.category ?? ''}\u0000${indexNameOf(entry)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (visible.length === 0) {
      return ok({ skills: [], categories: [], message: 'No skills found in skills/ directory.' });
    }
    const category = typeof args.category === 'string' && args.category ? args.category : null;
    const listed = category ? visible.filter((e) => e.category === category) : visible;
    const categories = [...new Set(visible.map((e) => e.category).filter((c): c is string => !!c))].sort();
    return ok({
      skills: listed.map((entry) => ({
        name: indexNameOf(entry),
        description:
          entry.description.length > MAX_DESCRIPTION_LENGTH ? `${entry.description.slice(0, MAX_DESCRIPTION_LENGTH - 3)}...` : entry.description,
        category: entry.category,
      })),
      categories,
      count: listed.length,
      hint: 'Use skill_view(name) to see full content, tags, and linked files',
    });
  }
}
