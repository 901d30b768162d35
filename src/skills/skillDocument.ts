import {
  parseSkillFileLenient,
  readConditions,
  readDescription,
  readName,
  readPlatforms,
  readRelatedSkills,
  readTags,
  type SkillConditions,
} from './frontmatter';

export type { SkillConditions } from './frontmatter';

/**
 * What the catalogue, the index and `skill_view` need from one SKILL.md, read in one pass.
 * Read leniently: frontmatter whose YAML breaks is repaired or read as `key: value` lines
 * (`parseSkillFileLenient`), so the skill keeps its name and description; `yamlProblem` then
 * says what was wrong. A file with no readable frontmatter at all still yields a record (Hermes
 * shows such a skill with an empty description) plus the parse error.
 */
export interface SkillMeta {
  name: string | null;
  description: string | null;
  tags: string[];
  relatedSkills: string[];
  platforms: string[];
  conditions: SkillConditions;
  body: string;
  error?: string;
  /** The YAML did not parse as written; the fields were read leniently. */
  yamlProblem?: string;
}

/** The first non-blank line of the body that is not a heading (Hermes' fallback description). */
function descriptionFromBody(body: string): string | null {
  for (const line of body.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed && !trimmed.startsWith('#')) return trimmed;
  }
  return null;
}

export function readSkillMeta(text: string): SkillMeta {
  const parsed = parseSkillFileLenient(text);
  const frontmatter = parsed.ok ? parsed.frontmatter : {};
  const body = parsed.ok ? parsed.body : text;
  return {
    name: readName(frontmatter) ?? null,
    description: parsed.ok ? (readDescription(frontmatter) ?? descriptionFromBody(body)) : null,
    tags: readTags(frontmatter),
    relatedSkills: readRelatedSkills(frontmatter),
    platforms: readPlatforms(frontmatter),
    conditions: readConditions(frontmatter),
    body,
    ...(parsed.ok ? (parsed.yamlProblem ? { yamlProblem: parsed.yamlProblem } : {}) : { error: parsed.message }),
  };
}
