/**
 * Ports of the validator rows of Hermes' tests/tools/test_skill_manager_tool.py
 * (reference/hermes-spec.md §11.1: TestValidateName, TestValidateCategory,
 * TestValidateFrontmatter, TestValidateFilePath, the validation parts of TestCreateSkill) and
 * of test_skill_size_limits.py, one `it` per Hermes test.
 *
 * Adapted for the browser:
 * - test_patch_supporting_file_symlink_escape_blocked, test_write_symlink_escape_blocked and
 *   test_remove_symlink_escape_blocked: the store has no symlinks, so the closest equivalent
 *   is a file path that tries to leave the skill folder through `resolveSkillTarget`.
 * Left to the skill tools' own tests (they need the store, not a validator): the rest of
 * TestCreateSkill/TestEditSkill/TestPatchSkill/TestDeleteSkill/TestWriteFile/TestRemoveFile,
 * the dispatcher, pinned, external-dir, rmtree and curator guard tests.
 */
import { describe, expect, it } from 'vitest';
import {
  ALLOWED_SUBDIRS,
  CREATE_DESCRIPTION_LIMIT,
  MAX_DESCRIPTION_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SKILL_CONTENT_CHARS,
  MAX_SKILL_FILE_BYTES,
} from '../../src/skills/constants';
import {
  checkFilePath,
  resolveSkillTarget,
  utf8ByteLength,
  validateCategory,
  validateContentSize,
  validateCreateDescription,
  validateFileBytes,
  validateFilePath,
  validateFrontmatter,
  validateName,
} from '../../src/skills/validation';

const VALID_SKILL_CONTENT = `---
name: test-skill
description: A test skill for unit testing.
---

# Test Skill

Step 1: Do the thing.
`;

const skill = (frontmatter: string, body = '# Body\n\nDo it.\n') => `---\n${frontmatter}\n---\n${body}`;

describe('TestValidateName', () => {
  it('TestValidateName.test_valid_names', () => {
    for (const name of ['my-skill', 'skill123', 'my_skill.v2', 'a']) expect(validateName(name), name).toBeNull();
  });
  it('TestValidateName.test_empty_name', () => {
    expect(validateName('')).toBe('Skill name is required.');
  });
  it('TestValidateName.test_too_long', () => {
    expect(validateName('a'.repeat(65))).toBe('Skill name exceeds 64 characters.');
    expect(validateName('a'.repeat(64))).toBeNull();
  });
  it('TestValidateName.test_uppercase_rejected', () => {
    expect(validateName('MySkill')).toContain("Invalid skill name 'MySkill'");
  });
  it('TestValidateName.test_starts_with_hyphen_rejected', () => {
    expect(validateName('-invalid')).toContain('Invalid skill name');
  });
  it('TestValidateName.test_special_chars_rejected', () => {
    for (const name of ['skill/name', 'skill name', 'skill@name']) expect(validateName(name), name).toContain('Invalid skill name');
  });
});

describe('TestValidateCategory', () => {
  it('TestValidateCategory.test_valid_categories', () => {
    for (const category of [null, undefined, '', '   ', 'devops', 'mlops-v2']) expect(validateCategory(category)).toBeNull();
  });
  it('TestValidateCategory.test_path_traversal_rejected', () => {
    expect(validateCategory('../escape')).toContain("Invalid category '../escape'");
  });
  it('TestValidateCategory.test_absolute_path_rejected', () => {
    expect(validateCategory('/tmp/escape')).toContain("Invalid category '/tmp/escape'");
  });
});

describe('TestValidateFrontmatter', () => {
  it('TestValidateFrontmatter.test_valid_content', () => {
    expect(validateFrontmatter(VALID_SKILL_CONTENT)).toBeNull();
  });
  it('TestValidateFrontmatter.test_empty_content', () => {
    expect(validateFrontmatter('')).toBe('Content cannot be empty.');
    expect(validateFrontmatter('   ')).toBe('Content cannot be empty.');
  });
  it('TestValidateFrontmatter.test_no_frontmatter', () => {
    expect(validateFrontmatter('# Just a heading\nSome content.')).toMatch(/^SKILL\.md must start with YAML frontmatter \(---\)\./);
  });
  it('TestValidateFrontmatter.test_unclosed_frontmatter', () => {
    expect(validateFrontmatter('---\nname: test\ndescription: x\n# no closing fence\n')).toMatch(/^SKILL\.md frontmatter is not closed\./);
  });
  it('TestValidateFrontmatter.test_missing_name_field', () => {
    expect(validateFrontmatter(skill('description: Only a description.'))).toBe("Frontmatter must include 'name' field.");
  });
  it('TestValidateFrontmatter.test_missing_description_field', () => {
    expect(validateFrontmatter(skill('name: test-skill'))).toBe("Frontmatter must include 'description' field.");
  });
  it('TestValidateFrontmatter.test_no_body_after_frontmatter', () => {
    expect(validateFrontmatter('---\nname: test\ndescription: A test.\n---\n')).toMatch(/^SKILL\.md must have content after the frontmatter/);
    expect(validateFrontmatter('---\nname: test\ndescription: A test.\n---\n  \n\n')).toMatch(/must have content after the frontmatter/);
  });
  it('TestValidateFrontmatter.test_invalid_yaml', () => {
    expect(validateFrontmatter('---\n: invalid: yaml: {{{\n---\n\nBody.\n')).toContain('YAML frontmatter parse error');
  });
});

describe('TestValidateFilePath', () => {
  it('TestValidateFilePath.test_valid_paths', () => {
    for (const path of ['references/api.md', 'templates/config.yaml', 'scripts/train.py', 'assets/image.png']) {
      expect(validateFilePath(path), path).toBeNull();
    }
  });
  it('TestValidateFilePath.test_empty_path', () => {
    expect(validateFilePath('')).toBe('file_path is required.');
  });
  it('TestValidateFilePath.test_path_traversal_blocked', () => {
    expect(validateFilePath('references/../../../etc/passwd')).toBe("Path traversal ('..') is not allowed.");
  });
  it('TestValidateFilePath.test_disallowed_subdirectory', () => {
    const error = validateFilePath('secret/hidden.txt');
    expect(error).toContain('File must be under one of:');
    expect(error).toContain("'secret/hidden.txt'");
  });
  it('TestValidateFilePath.test_directory_only_rejected', () => {
    const error = validateFilePath('references');
    expect(error).toContain('Provide a file path');
    expect(error).toContain("'references/myfile.md'");
  });
  it('TestValidateFilePath.test_root_level_file_rejected', () => {
    expect(validateFilePath('malicious.py')).toContain('File must be under one of:');
  });
  it('TestValidateFilePath.test_skill_md_accepted_at_root', () => {
    expect(validateFilePath('SKILL.md')).toBeNull();
  });
  it('TestValidateFilePath.test_skill_md_accepted_name_prefixed', () => {
    expect(validateFilePath('my-skill/SKILL.md')).toBeNull();
    expect(checkFilePath('my-skill/SKILL.md')).toEqual({ ok: true, path: 'SKILL.md' });
  });
  it('TestValidateFilePath.test_skill_md_traversal_still_rejected', () => {
    expect(validateFilePath('../SKILL.md')).toBe("Path traversal ('..') is not allowed.");
  });
  it('TestValidateFilePath.test_other_root_md_still_rejected', () => {
    expect(validateFilePath('README.md')).toContain('File must be under one of:');
  });
});

describe('TestCreateSkill (validation rows)', () => {
  const createChecks = (name: unknown, content: unknown, category?: unknown) =>
    validateName(name) ?? validateCategory(category) ?? validateFrontmatter(content, { forCreate: true });

  it('TestCreateSkill.test_create_invalid_name', () => {
    expect(createChecks('Invalid Name!', VALID_SKILL_CONTENT)).toContain('Invalid skill name');
  });
  it('TestCreateSkill.test_create_invalid_content', () => {
    expect(createChecks('my-skill', 'no frontmatter here')).toContain('must start with YAML frontmatter');
  });
  it('TestCreateSkill.test_create_rejects_category_traversal', () => {
    expect(createChecks('my-skill', VALID_SKILL_CONTENT, '../escape')).toContain("Invalid category '../escape'");
  });
  it('TestCreateSkill.test_create_rejects_absolute_category', () => {
    expect(createChecks('my-skill', VALID_SKILL_CONTENT, '/tmp/abs')).toContain("Invalid category '/tmp/abs'");
  });
});

describe('test_skill_size_limits', () => {
  it('test_skill_size_limits: exactly 100,000 characters is accepted, 100,001 is rejected', () => {
    expect(validateContentSize('x'.repeat(MAX_SKILL_CONTENT_CHARS))).toBeNull();
    const error = validateContentSize('x'.repeat(MAX_SKILL_CONTENT_CHARS + 1));
    expect(error).toContain('100,001');
    expect(error).toContain('100,000');
  });
  it('test_skill_size_limits: custom label appears in the message', () => {
    expect(validateContentSize('x'.repeat(100_001), 'references/big.md')).toMatch(/^references\/big\.md content is 100,001 characters/);
  });
  it('test_skill_size_limits: write_file byte limit is checked in bytes (1 MiB)', () => {
    expect(validateFileBytes('a'.repeat(MAX_SKILL_FILE_BYTES))).toBeNull();
    const error = validateFileBytes('é'.repeat(MAX_SKILL_FILE_BYTES / 2 + 1));
    expect(error).toContain('1,048,578 bytes');
    expect(error).toContain('1,048,576');
    expect(validateFileBytes(new Uint8Array(MAX_SKILL_FILE_BYTES + 1))).toContain('bytes');
  });
});

describe('symlink-escape rows, browser equivalent: paths that try to leave the skill', () => {
  it('TestPatchSkill.test_patch_supporting_file_symlink_escape_blocked (equivalent)', () => {
    const result = resolveSkillTarget('skills/my-skill', 'references/../../other/SKILL.md');
    expect(result.ok).toBe(false);
  });
  it('TestWriteFile.test_write_symlink_escape_blocked (equivalent)', () => {
    for (const path of ['/etc/passwd', 'C:/Windows/x.txt', 'references\\..\\..\\x.md', '~/x.md']) {
      expect(resolveSkillTarget('skills/my-skill', path).ok, path).toBe(false);
    }
  });
  it('TestRemoveFile.test_remove_symlink_escape_blocked (equivalent)', () => {
    expect(resolveSkillTarget('skills/devops/deploy', 'references/./notes.md')).toEqual({ ok: true, path: 'skills/devops/deploy/references/notes.md' });
    expect(resolveSkillTarget('skills/devops/deploy', 'references/../../deploy-evil/x.md').ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// Knack additions

describe('Knack: validation additions', () => {
  it('create refuses a description over 60 characters and says why', () => {
    const long = skill(`name: x\ndescription: ${'d'.repeat(CREATE_DESCRIPTION_LIMIT + 1)}`);
    const error = validateFrontmatter(long, { forCreate: true });
    expect(error).toContain('61 characters');
    expect(error).toContain('index shows only the first 60');
    expect(error).toContain('trigger first');
    expect(validateCreateDescription(long)).toBe(error);
    expect(validateFrontmatter(skill(`name: x\ndescription: ${'d'.repeat(60)}`), { forCreate: true })).toBeNull();
  });

  it('edit, patch and import keep the 1,024 limit', () => {
    expect(validateFrontmatter(skill(`name: x\ndescription: ${'d'.repeat(61)}`))).toBeNull();
    expect(validateFrontmatter(skill(`name: x\ndescription: ${'d'.repeat(MAX_DESCRIPTION_LENGTH)}`))).toBeNull();
    expect(validateFrontmatter(skill(`name: x\ndescription: ${'d'.repeat(MAX_DESCRIPTION_LENGTH + 1)}`))).toBe('Description exceeds 1024 characters.');
  });

  it('validateCreateDescription stays quiet on content that does not parse', () => {
    expect(validateCreateDescription('no frontmatter')).toBeNull();
    expect(validateCreateDescription(42)).toBeNull();
  });

  it('evals is an allowed folder; the message lists every folder', () => {
    expect(ALLOWED_SUBDIRS).toContain('evals');
    expect(validateFilePath('evals/cases.jsonl')).toBeNull();
    expect(validateFilePath('other/x.md')).toContain('assets, evals, references, scripts, templates');
  });

  it('absolute paths, drive letters, backslashes and control characters are refused', () => {
    expect(validateFilePath('/references/x.md')).toContain('Absolute paths are not allowed');
    expect(validateFilePath('C:\\skills\\x.md')).toContain('Absolute paths are not allowed');
    expect(validateFilePath('references\\x.md')).toContain('forward slashes');
    expect(validateFilePath('references\\..\\x.md')).toBe("Path traversal ('..') is not allowed.");
    expect(validateFilePath('references/x\u0000.md')).toContain('control characters');
  });

  it('non-string arguments are reported, not thrown', () => {
    expect(validateName(undefined)).toBe('Skill name is required.');
    expect(validateCategory(5)).toBe('Category must be a string.');
    expect(validateFrontmatter(null)).toBe('Content cannot be empty.');
    expect(validateFilePath(7)).toBe('file_path is required.');
  });

  it('a category over 64 characters is refused', () => {
    expect(validateCategory('c'.repeat(MAX_NAME_LENGTH + 1))).toBe('Category exceeds 64 characters.');
  });

  it('duplicate keys are a YAML error for skill_manage writes', () => {
    expect(validateFrontmatter(skill('name: a\nname: b\ndescription: d'))).toMatch(/^YAML frontmatter parse error: duplicate key/);
  });

  it('a BOM and CRLF line endings are accepted', () => {
    expect(validateFrontmatter(`\ufeff${VALID_SKILL_CONTENT.replace(/\n/g, '\r\n')}`)).toBeNull();
  });

  it('frontmatter that is a list is not a mapping', () => {
    expect(validateFrontmatter('---\n- a\n- b\n---\nbody\n')).toMatch(/^Frontmatter must be a YAML mapping/);
  });

  it('utf8ByteLength counts like TextEncoder', () => {
    for (const text of ['', 'abc', 'é', '€', '😀', 'a\ud800b']) {
      expect(utf8ByteLength(text), text).toBe(new TextEncoder().encode(text).length);
    }
  });
});
