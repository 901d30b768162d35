/**
 * The create/edit form as plain data: the starter SKILL.md, as-you-type validation with the
 * same validators `skill_manage` runs (so the form never promises a save the tool refuses),
 * and the scanner findings shown as warnings before a save.
 */
import { setFrontmatterFields, parseSkillFile, readScalarText } from '../../skills/frontmatter';
import { scanSkill, type Finding } from '../../skills/scanner';
import { validateCategory, validateContentSize, validateFrontmatter, validateName } from '../../skills/validation';

export type DraftMode = 'create' | 'edit';

export interface SkillDraft {
  name: string;
  category: string;
  content: string;
}

export interface DraftErrors {
  name: string | null;
  category: string | null;
  content: string | null;
}

export const PLACEHOLDER_NAME = 'new-skill';

/** A SKILL.md that passes create's checks as it stands, with the sections a procedure needs. */
export function starterTemplate(name = PLACEHOLDER_NAME): string {
  return `---
name: ${name}
description: Use when <the situation that calls for this skill>.
---

# Skill title

## When to use
Describe the request or situation that should make the agent load this skill.

## Steps
1. First step.
2. Second step.

## Pitfalls
- What tends to go wrong, and how to avoid it.

## Checks
- How to tell the result is right.
`;
}

/**
 * Messages for each field; null = fine. Create also applies the 60-character description
 * rule. The name and category of an existing skill cannot change, so edit checks content only.
 */
export function validateDraft(draft: SkillDraft, mode: DraftMode): DraftErrors {
  const content =
    validateFrontmatter(draft.content, { forCreate: mode === 'create' }) ?? validateContentSize(draft.content, 'SKILL.md');
  if (mode === 'edit') return { name: null, category: null, content };
  return { name: validateName(draft.name), category: validateCategory(draft.category), content };
}

export function hasErrors(errors: DraftErrors): boolean {
  return errors.name !== null || errors.category !== null || errors.content !== null;
}

/** The frontmatter `name` of a SKILL.md text, or null when it does not parse. */
export function frontmatterName(content: string): string | null {
  const parsed = parseSkillFile(content);
  return parsed.ok ? (readScalarText(parsed.frontmatter.name) ?? null) : null;
}

/**
 * Keeps the frontmatter name in step with the name field while the two still agree (the
 * user has not chosen a different one), touching nothing else in the text.
 */
export function syncFrontmatterName(content: string, previousName: string, nextName: string): string {
  const current = frontmatterName(content);
  if (current === null || current !== (previousName || PLACEHOLDER_NAME) || !nextName) return content;
  const updated = setFrontmatterFields(content, { name: nextName });
  return updated.ok ? updated.content : content;
}

/** Scanner findings for the text the user typed; shown as warnings, never a block. */
export function scanDraft(draft: SkillDraft): Finding[] {
  return scanSkill({ name: draft.name || PLACEHOLDER_NAME, source: 'user', files: [{ path: 'SKILL.md', content: draft.content }] }).findings;
}
