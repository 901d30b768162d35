/**
 * Validators for writes made through `skill_manage` (docs/skill-tools.md).
 *
 * Each validator returns `null` when the input is fine and otherwise one error string meant
 * for the model: it says what is wrong and what to do instead. The check order and the key
 * phrases match Hermes, because models trained against Hermes react to those phrases.
 * Knack additions: the `evals` folder, explicit refusal of absolute/backslash/drive-letter
 * paths (Hermes gets these for free from pathlib), and the 60-character description limit
 * for `create`.
 */
import {
  ALLOWED_SUBDIRS,
  CREATE_DESCRIPTION_LIMIT,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SKILL_CONTENT_CHARS,
  MAX_SKILL_FILE_BYTES,
  VALID_NAME_RE,
} from './constants';
import { parseSkillFile, readScalarText } from './frontmatter';

/** Numbers in messages use thousands separators ("100,000"), independent of the user's locale. */
function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

const SORTED_SUBDIRS = [...ALLOWED_SUBDIRS].sort();

// -------------------------------------------------------------------------------------------
// Names

export function validateName(name: unknown): string | null {
  if (typeof name !== 'string' || name === '') return 'Skill name is required.';
  if (name.length > MAX_NAME_LENGTH) return `Skill name exceeds ${MAX_NAME_LENGTH} characters.`;
  if (!VALID_NAME_RE.test(name)) {
    return (
      `Invalid skill name '${name}'. Use lowercase letters, numbers, hyphens, dots and underscores, ` +
      'and start with a letter or digit.'
    );
  }
  return null;
}

/** Category is optional (null, undefined or blank means "no category"); it is one folder name. */
export function validateCategory(category: unknown): string | null {
  if (category === null || category === undefined) return null;
  if (typeof category !== 'string') return 'Category must be a string.';
  const trimmed = category.trim();
  if (trimmed === '') return null;
  const invalid =
    `Invalid category '${trimmed}'. A category is a single directory name: lowercase letters, numbers, ` +
    'hyphens, dots and underscores, starting with a letter or digit.';
  if (trimmed.includes('/') || trimmed.includes('\\')) return invalid;
  if (trimmed.length > MAX_NAME_LENGTH) return `Category exceeds ${MAX_NAME_LENGTH} characters.`;
  if (!VALID_NAME_RE.test(trimmed)) return invalid;
  return null;
}

// -------------------------------------------------------------------------------------------
// SKILL.md content

export interface FrontmatterValidationOptions {
  /** `create` also enforces CREATE_DESCRIPTION_LIMIT (Knack). */
  forCreate?: boolean;
}

/**
 * Check a whole SKILL.md in Hermes' order: not blank, opening fence, closing fence, YAML,
 * mapping, `name`, `description`, description length, non-empty body.
 */
export function validateFrontmatter(content: unknown, options: FrontmatterValidationOptions = {}): string | null {
  if (typeof content !== 'string' || content.trim() === '') return 'Content cannot be empty.';
  const parsed = parseSkillFile(content);
  if (!parsed.ok) {
    switch (parsed.code) {
      case 'no_frontmatter':
        return (
          'SKILL.md must start with YAML frontmatter (---). Put a line with --- first, then name: and ' +
          'description:, then a closing --- line, then the instructions.'
        );
      case 'unclosed':
        return 'SKILL.md frontmatter is not closed. Add a line containing only --- after the YAML fields.';
      case 'not_mapping':
        return 'Frontmatter must be a YAML mapping (key: value lines such as name: and description:).';
      case 'yaml_error':
      case 'duplicate_key':
        return `YAML frontmatter parse error: ${parsed.message}`;
    }
  }
  const fm = parsed.frontmatter;
  if (!('name' in fm) || fm.name === null || fm.name === undefined) return "Frontmatter must include 'name' field.";
  if (!('description' in fm) || fm.description === null || fm.description === undefined) {
    return "Frontmatter must include 'description' field.";
  }
  const description = readScalarText(fm.description) ?? JSON.stringify(fm.description);
  if (description.length > MAX_DESCRIPTION_LENGTH) return `Description exceeds ${MAX_DESCRIPTION_LENGTH} characters.`;
  if (options.forCreate) {
    const limitError = describeCreateDescriptionLimit(description.trim().length);
    if (limitError) return limitError;
  }
  if (parsed.body.trim() === '') {
    return 'SKILL.md must have content after the frontmatter: add the instructions (steps, pitfalls, checks) below the closing ---.';
  }
  return null;
}

/**
 * Knack's extra `create` check on its own: the description must fit the index (60 chars).
 * Returns null when the content does not parse (`validateFrontmatter` reports that first).
 */
export function validateCreateDescription(content: unknown): string | null {
  if (typeof content !== 'string') return null;
  const parsed = parseSkillFile(content);
  if (!parsed.ok) return null;
  const description = readScalarText(parsed.frontmatter.description);
  if (description === undefined) return null;
  return describeCreateDescriptionLimit(description.trim().length);
}

function describeCreateDescriptionLimit(length: number): string | null {
  if (length <= CREATE_DESCRIPTION_LIMIT) return null;
  return (
    `Description is ${length} characters; a new skill's description may have at most ` +
    `${CREATE_DESCRIPTION_LIMIT}, because the skill index shows only the first ${CREATE_DESCRIPTION_LIMIT} ` +
    'characters and the description is how the agent decides to load the skill. Put the trigger first ' +
    '(for example "Use when deploying to Fly.io.") and move the details into the body.'
  );
}

/** Character limit for SKILL.md and text files; `label` names the file in the message. */
export function validateContentSize(content: string, label = 'SKILL.md'): string | null {
  if (content.length <= MAX_SKILL_CONTENT_CHARS) return null;
  return (
    `${label} content is ${formatCount(content.length)} characters ` +
    `(limit: ${formatCount(MAX_SKILL_CONTENT_CHARS)}). Consider splitting it: keep the procedure in ` +
    'SKILL.md and move long material into references/ or templates/ files.'
  );
}

/** UTF-8 length of a string without allocating the encoded bytes. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Byte limit for supporting files (checked before the character limit, as in Hermes). */
export function validateFileBytes(fileContent: string | Uint8Array): string | null {
  const size = typeof fileContent === 'string' ? utf8ByteLength(fileContent) : fileContent.byteLength;
  if (size <= MAX_SKILL_FILE_BYTES) return null;
  return (
    `File content is ${formatCount(size)} bytes (limit: ${formatCount(MAX_SKILL_FILE_BYTES)} bytes / 1 MiB). ` +
    'Split it into smaller files.'
  );
}

// -------------------------------------------------------------------------------------------
// Supporting-file paths

export type FilePathCheck = { ok: true; path: string } | { ok: false; error: string };

/**
 * Check a `file_path` argument and return its canonical form relative to the skill folder.
 * `SKILL.md` and `<name>/SKILL.md` both mean the skill's own SKILL.md (canonical `SKILL.md`);
 * other files must sit inside one of ALLOWED_SUBDIRS. Empty and `.` segments are dropped,
 * as pathlib would.
 */
export function checkFilePath(filePath: unknown): FilePathCheck {
  if (typeof filePath !== 'string' || filePath.trim() === '') return { ok: false, error: 'file_path is required.' };
  // Split on both separators so "references\\..\\x" is reported as traversal, not as a backslash.
  if (filePath.split(/[\\/]/).some((part) => part === '..')) {
    return { ok: false, error: "Path traversal ('..') is not allowed." };
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(filePath)) {
    return { ok: false, error: 'file_path contains control characters; use a plain relative path such as references/notes.md.' };
  }
  if (filePath.startsWith('/') || filePath.startsWith('\\') || /^[A-Za-z]:/.test(filePath) || filePath.startsWith('~')) {
    return {
      ok: false,
      error: `Absolute paths are not allowed. Use a path relative to the skill folder, e.g. 'references/notes.md'. Got: '${filePath}'`,
    };
  }
  if (filePath.includes('\\')) {
    return { ok: false, error: `Use forward slashes in file_path; backslashes are not allowed. Got: '${filePath}'` };
  }
  const parts = filePath.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0) return { ok: false, error: 'file_path is required.' };
  if (parts.length <= 2 && parts[parts.length - 1] === 'SKILL.md') return { ok: true, path: 'SKILL.md' };
  if (!ALLOWED_SUBDIRS.includes(parts[0])) {
    return { ok: false, error: `File must be under one of: ${SORTED_SUBDIRS.join(', ')}. Got: '${filePath}'` };
  }
  if (parts.length === 1) {
    return { ok: false, error: `Provide a file path, not just a directory. Example: '${parts[0]}/myfile.md'` };
  }
  return { ok: true, path: parts.join('/') };
}

export function validateFilePath(filePath: unknown): string | null {
  const result = checkFilePath(filePath);
  return result.ok ? null : result.error;
}

/**
 * Join a checked file path onto a skill folder (store path such as `skills/devops/deploy`)
 * and make sure the result stays inside it. The browser store has no symlinks, so a lexical
 * check is the whole story; it still runs after `checkFilePath` as a second line of defence.
 */
export function resolveSkillTarget(skillDir: string, filePath: string): FilePathCheck {
  const checked = checkFilePath(filePath);
  if (!checked.ok) return checked;
  const base = skillDir.replace(/\/+$/, '');
  const stack: string[] = [];
  for (const part of `${base}/${checked.path}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') stack.pop();
    else stack.push(part);
  }
  const target = stack.join('/');
  if (!target.startsWith(`${base}/`)) {
    return { ok: false, error: `Path escapes allowed directory: '${filePath}' is outside the skill folder.` };
  }
  return { ok: true, path: target };
}
