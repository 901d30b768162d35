/**
 * Lenient loading of a SKILL.md for imports (docs/frontmatter.md): load with warnings when the
 * name differs from the folder, is too long or breaks the charset; repair the common unquoted
 * `key: value: more` before giving up; refuse only what cannot be read even then. Writes
 * through skill_manage stay strict (frontmatter.ts `parseSkillFile`).
 */
import { NO_FRONTMATTER_MESSAGE, UNCLOSED_MESSAGE, locateFrontmatter, parseYamlMapping, readName, readScalarText, repairFrontmatterYaml, type FrontmatterErrorCode } from './frontmatter';
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, VALID_NAME_RE } from './constants';

export interface LenientSkill {
  ok: true;
  /** Frontmatter name, or the folder name when the frontmatter has none. */
  name: string;
  description: string;
  frontmatter: Record<string, unknown>;
  body: string;
  bodyOffset: number;
  /** Things a strict validator would reject but the loader tolerates; shown to the user. */
  warnings: string[];
  /** True when the YAML only parsed after a repair (the file itself is not changed). */
  repaired: boolean;
}

export interface LenientLoadError {
  ok: false;
  code: FrontmatterErrorCode | 'missing_description';
  message: string;
}

export type LenientLoadResult = LenientSkill | LenientLoadError;

/** Characters that start a YAML value which is not a plain scalar (quoted, flow, block, alias…). */
/**
 * Load a SKILL.md for import the way the agentskills client guide recommends: load with
 * warnings when the name differs from the folder, is too long or has odd characters; refuse
 * only when there is no usable description or the YAML cannot be parsed even after
 * `repairFrontmatterYaml`. Duplicate keys load with a warning (last value wins).
 */
export function loadSkillLenient(content: string, folderName: string): LenientLoadResult {
  const located = locateFrontmatter(content);
  if (!located.ok) {
    return {
      ok: false,
      code: located.code,
      message:
        located.code === 'no_frontmatter'
          ? `SKILL.md has no frontmatter, so it has no description: ${NO_FRONTMATTER_MESSAGE}`
          : `SKILL.md: ${UNCLOSED_MESSAGE}`,
    };
  }
  const { layout } = located;
  const warnings: string[] = [];
  if (layout.hasBom) warnings.push('SKILL.md starts with a byte order mark (BOM); some tools reject it');
  const raw = content.slice(layout.yamlStart, layout.yamlEnd);
  let repaired = false;

  let parsed = parseYamlMapping(raw, {}, 1);
  if (!parsed.ok && parsed.code === 'duplicate_key') {
    const retry = parseYamlMapping(raw, { allowDuplicateKeys: true }, 1);
    if (retry.ok) warnings.push(`${parsed.message}; the last value was used`);
    parsed = retry;
  }
  if (!parsed.ok && parsed.code === 'yaml_error') {
    const original = parsed;
    const fix = repairFrontmatterYaml(raw);
    if (fix.repairs.length > 0) {
      const retry = parseYamlMapping(fix.text, { allowDuplicateKeys: true }, 1);
      if (retry.ok) {
        repaired = true;
        warnings.push(`frontmatter YAML was invalid (${original.message}); loaded after repair: ${fix.repairs.join('; ')}`);
        parsed = retry;
      }
    }
    if (!parsed.ok) {
      return { ok: false, code: 'yaml_error', message: `SKILL.md frontmatter is not valid YAML: ${original.message}` };
    }
  }
  if (!parsed.ok) return { ok: false, code: parsed.code, message: `SKILL.md: ${parsed.message}` };
  const frontmatter = parsed.value;

  const rawDescription = frontmatter.description;
  const descriptionText = readScalarText(rawDescription);
  if (descriptionText === undefined || descriptionText.trim() === '') {
    return {
      ok: false,
      code: 'missing_description',
      message: 'SKILL.md has no description: add a non-empty `description:` to the frontmatter (it tells the agent when to use the skill)',
    };
  }
  if (typeof rawDescription !== 'string') warnings.push('description is not text; it was converted to text');
  const description = descriptionText.trim();
  if (description.length > MAX_DESCRIPTION_LENGTH) {
    warnings.push(`description is ${description.length} characters (limit ${MAX_DESCRIPTION_LENGTH})`);
  }

  let name = readName(frontmatter);
  if (name === undefined) {
    name = folderName;
    warnings.push(`frontmatter has no name; using the folder name '${folderName}'`);
  } else {
    if (typeof frontmatter.name !== 'string') warnings.push('name is not text; it was converted to text');
    if (name.normalize('NFKC') !== folderName.normalize('NFKC')) {
      warnings.push(`name '${name}' differs from its folder '${folderName}'`);
    }
  }
  if (name.length > MAX_NAME_LENGTH) warnings.push(`name is ${name.length} characters (limit ${MAX_NAME_LENGTH})`);
  if (!VALID_NAME_RE.test(name)) {
    warnings.push(`name '${name}' uses characters outside lowercase letters, digits, '.', '_' and '-'`);
  }

  return {
    ok: true,
    name,
    description,
    frontmatter,
    body: content.slice(layout.bodyOffset),
    bodyOffset: layout.bodyOffset,
    warnings,
    repaired,
  };
}
