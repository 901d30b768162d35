import type { CatalogEntry } from './skillCatalog';

/**
 * Which skills are offered: platform, disabled list, and the tool conditions of
 * `metadata.hermes` (docs/skill-tools.md).
 */

/** A browser runs anywhere: without a platform set by the user every skill matches. */
export function matchesPlatform(platforms: string[], platform: string | null): boolean {
  if (!platform || platforms.length === 0) return true;
  const wanted = platform.toLowerCase();
  return platforms.some((p) => p.toLowerCase() === wanted);
}

export interface AvailableTools {
  tools: Set<string>;
  toolsets: Set<string>;
}

/** Hide a fallback when what it stands in for is there; hide a skill whose requirements are not. */
export function conditionsMet(entry: CatalogEntry, available: AvailableTools | null): boolean {
  if (!available) return true;
  const c = entry.conditions;
  if (c.fallbackForTools.some((t) => available.tools.has(t))) return false;
  if (c.fallbackForToolsets.some((t) => available.toolsets.has(t))) return false;
  if (c.requiresTools.some((t) => !available.tools.has(t))) return false;
  if (c.requiresToolsets.some((t) => !available.toolsets.has(t))) return false;
  return true;
}

export function isDisabled(entry: CatalogEntry, disabled: string[]): boolean {
  return disabled.includes(entry.name) || disabled.includes(entry.frontmatterName);
}

/** skills_list order: by category ("" first), then name. */
export function sortForListing(entries: CatalogEntry[]): CatalogEntry[] {
  return [...entries].sort((a, b) => {
    const ca = a.category ?? '';
    const cb = b.category ?? '';
    if (ca !== cb) return ca < cb ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}
