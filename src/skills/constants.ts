/**
 * Limits and fixed lists of the skill system.
 *
 * The values follow Hermes Agent (docs/skill-tools.md) so that skills move between
 * the two without surprises; the few places where Knack differs are marked "Knack:".
 */

/** Longest skill name or category, in characters. */
export const MAX_NAME_LENGTH = 64;

/** Longest frontmatter `description` accepted by edit, patch and import. */
export const MAX_DESCRIPTION_LENGTH = 1024;

/**
 * Knack: longest `description` a *new* skill may have. The skill index in the system prompt
 * shows only this many characters, and the description is what routes the model to the
 * skill, so a new skill must say its trigger within this budget.
 */
export const CREATE_DESCRIPTION_LIMIT = 60;

/** Largest SKILL.md or text supporting file, in characters (UTF-16 code units). */
export const MAX_SKILL_CONTENT_CHARS = 100_000;

/** Largest supporting file written through `write_file`, in UTF-8 bytes (1 MiB). */
export const MAX_SKILL_FILE_BYTES = 1_048_576;

/** Skill names and categories: lowercase, digits, `.`, `_`, `-`; starts with a letter or digit. */
export const VALID_NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * Folders a skill may hold supporting files in. Knack adds `evals` (the verification
 * gate's held-out cases live there) and `tools` (forged tools, docs/forged-tools.md) to Hermes' four.
 */
export const ALLOWED_SUBDIRS: readonly string[] = ['references', 'templates', 'scripts', 'assets', 'evals', 'tools'];

/** How much of a file a failed patch shows back to the model. */
export const FILE_PREVIEW_CHARS = 500;

/** Change-summary caps used in tool results (`_change`). */
export const CHANGE_DESCRIPTION_PREVIEW_CHARS = 120;
export const CHANGE_PATCH_PREVIEW_CHARS = 200;

// ---------------------------------------------------------------------------------------------
// Security scanner (docs/skill-tools.md)

/** Bumped whenever the pattern set changes, so cached scan results can be told apart. */
export const SCANNER_VERSION = 'knack-skills-guard-2';

/** Sources whose skills are trusted (a caution verdict is still installed). */
export const TRUSTED_REPOS: readonly string[] = [
  'openai/skills',
  'anthropics/skills',
  'huggingface/skills',
  'NVIDIA/skills',
];

/** A skill with more files than this is flagged (medium). */
export const MAX_FILE_COUNT = 50;
/** A skill whose files add up to more than this is flagged (high). */
export const MAX_TOTAL_SIZE_KB = 1024;
/** A single file larger than this is flagged (medium). */
export const MAX_SINGLE_FILE_KB = 256;
/** Longest matched text kept in a finding; longer text is cut and ends with `...`. */
export const FINDING_MATCH_MAX_CHARS = 120;

/** Ignore files honoured by the scanner (gitignore-like). */
export const SCAN_IGNORE_FILES: readonly string[] = ['.skillignore', '.clawhubignore'];
