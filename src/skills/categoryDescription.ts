/**
 * Writing a category's description (`skills/<category>/DESCRIPTION.md`, docs/skill-tools.md
 * "Category descriptions"). The user writes it from the Skills view; the model cannot, because
 * one category line frames every skill in it and `skill_manage` writes only inside one skill's
 * folder. The file is plain text (its first paragraph is what the index shows), written
 * atomically under the category's lock, and scanned like any prompt text the index will carry.
 */
import { CATEGORY_DESCRIPTION_FILE, SKILLS_ROOT } from './skillCatalog';
import { scanText } from './scanner';
import { validateCategory } from './validation';
import type { SkillEngine } from './skillEngine';

/** The index shows one line per category; longer text only costs every session's tokens. */
export const MAX_CATEGORY_DESCRIPTION_CHARS = 300;

export type CategoryDescriptionResult = { ok: true; message: string; description: string } | { ok: false; error: string };

export function categoryLockKey(category: string): string {
  return `category:${category}`;
}

/** A category path ("git" or "devops/ci"): every segment a valid folder name. */
function checkCategory(category: string): string | null {
  if (!category.trim()) return 'Choose a category: skills outside a category have no category line.';
  for (const segment of category.split('/')) {
    const error = validateCategory(segment);
    if (error || !segment.trim()) return error ?? `Invalid category '${category}'.`;
  }
  return null;
}

/**
 * Sets (or, with blank text, removes) the description of `category`, which must hold at least
 * one skill. Whitespace collapses to single spaces: the index shows one line.
 */
export async function writeCategoryDescription(engine: SkillEngine, category: string, text: string): Promise<CategoryDescriptionResult> {
  const invalid = checkCategory(category);
  if (invalid) return { ok: false, error: invalid };
  const known = engine.catalog.entries().some((entry) => entry.category === category || entry.category?.startsWith(`${category}/`));
  if (!known) return { ok: false, error: `No skill is in the category '${category}'. Create a skill there first.` };
  const description = text.replace(/\s+/g, ' ').trim();
  if (description.length > MAX_CATEGORY_DESCRIPTION_CHARS) {
    return { ok: false, error: `The description is ${description.length} characters; keep it to ${MAX_CATEGORY_DESCRIPTION_CHARS}, one line for the index.` };
  }
  // The same rule as a skill's verdict: a critical finding would make it dangerous.
  const critical = scanText(description, CATEGORY_DESCRIPTION_FILE).filter((finding) => finding.severity === 'critical');
  if (critical.length > 0) {
    return { ok: false, error: `The description was refused by the scanner (${critical.map((f) => f.description).join('; ')}). Rewrite it without those instructions.` };
  }
  const path = `${SKILLS_ROOT}/${category}/${CATEGORY_DESCRIPTION_FILE}`;
  await engine.locks.withLock(categoryLockKey(category), async () => {
    if (description) await engine.files.write(path, `${description}\n`);
    else await engine.files.delete(path);
  });
  engine.catalog.forgetCategoryDescriptions();
  // Read back now so the snapshot holds the new text for other tabs and the next start.
  await engine.catalog.categoryDescriptions();
  return { ok: true, description, message: description ? `Saved the description of ${category}.` : `Removed the description of ${category}.` };
}
