/**
 * Exporting skills as zip archives (docs/skill-tools.md): `<name>/SKILL.md` at the top, supporting files
 * beside it with their stored bytes, Unix modes written so scripts stay executable. Before an
 * export the strict Agent Skills check (skills-ref rules) and the Claude.ai upload check report
 * problems; they never block the export.
 */
import { zipSync, type Zippable } from 'fflate';
import { decodeSkillText, locateFrontmatter, parseSkillFile } from './frontmatter';
import type { SkillEngine } from './skillEngine';

export interface ExportFile {
  /** Relative to the skill folder. */
  path: string;
  bytes: Uint8Array;
  executable?: boolean;
}

export interface ExportSkill {
  /** The folder name in the archive (the skill's directory name). */
  folder: string;
  files: ExportFile[];
}

export interface ExportChecks {
  strict: string[];
  claude: string[];
}

const ALLOWED_FIELDS = ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'];
const UNIX = 3;
const MODE_FILE = 0o100644;
const MODE_EXECUTABLE = 0o100755;

/** One archive of skill folders; each file carries a Unix mode. */
export function buildSkillsZip(skills: readonly ExportSkill[]): Uint8Array {
  const tree: Zippable = {};
  for (const skill of skills) {
    for (const file of skill.files) {
      const mode = file.executable ? MODE_EXECUTABLE : MODE_FILE;
      tree[`${skill.folder}/${file.path}`] = [file.bytes, { os: UNIX, attrs: (mode << 16) >>> 0, level: 6, mtime: new Date('2026-01-01T00:00:00Z') }];
    }
  }
  return zipSync(tree);
}

/** skills-ref `validate` on one skill folder, with its wording. */
export function strictCheck(folder: string, skillMd: Uint8Array): string[] {
  const problems: string[] = [];
  const { text } = decodeSkillText(skillMd);
  if (!text.startsWith('---')) return ['SKILL.md must start with YAML frontmatter (---)'];
  const located = locateFrontmatter(text);
  if (!located.ok) return ['SKILL.md frontmatter not properly closed with ---'];
  const rawYaml = text.slice(located.layout.yamlStart, located.layout.yamlEnd);
  // skills-ref parses with strictyaml, which refuses flow collections, anchors and tabs.
  const strictYamlIssue = rawYaml
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .find((line) => /^\t/.test(line) || /:\s*[[{]/.test(line) || /^\s*-\s*[[{]/.test(line) || /(^|\s)[&*][A-Za-z0-9_-]+/.test(line.replace(/(["']).*?\1/g, '')));
  if (strictYamlIssue !== undefined) {
    problems.push(`Invalid YAML in frontmatter: '${strictYamlIssue.trim()}' uses flow style, tabs or anchors, which strict YAML refuses`);
  }
  const parsed = parseSkillFile(text);
  if (!parsed.ok) return [...problems, parsed.code === 'not_mapping' ? 'SKILL.md frontmatter must be a YAML mapping' : `Invalid YAML in frontmatter: ${parsed.message}`];
  const fm = parsed.frontmatter;
  const unexpected = Object.keys(fm).filter((key) => !ALLOWED_FIELDS.includes(key)).sort();
  if (unexpected.length > 0) {
    problems.push(`Unexpected fields in frontmatter: ${unexpected.join(', ')}. Only [${ALLOWED_FIELDS.join(', ')}] are allowed.`);
  }
  if (!('name' in fm)) problems.push('Missing required field in frontmatter: name');
  else if (typeof fm.name !== 'string' || fm.name.trim() === '') problems.push("Field 'name' must be a non-empty string");
  else {
    const name = fm.name.trim().normalize('NFKC');
    if ([...name].length > 64) problems.push(`Skill name '${name}' exceeds 64 character limit (${[...name].length} chars)`);
    if (name !== name.toLowerCase()) problems.push(`Skill name '${name}' must be lowercase`);
    if (name.startsWith('-') || name.endsWith('-')) problems.push('Skill name cannot start or end with a hyphen');
    if (name.includes('--')) problems.push('Skill name cannot contain consecutive hyphens');
    if (!/^[\p{L}\p{N}-]+$/u.test(name)) {
      problems.push(`Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`);
    }
    if (folder.normalize('NFKC') !== name) problems.push(`Directory name '${folder}' must match skill name '${name}'`);
  }
  if (!('description' in fm)) problems.push('Missing required field in frontmatter: description');
  else if (typeof fm.description !== 'string' || fm.description.trim() === '') problems.push("Field 'description' must be a non-empty string");
  else if ([...fm.description].length > 1024) problems.push(`Description exceeds 1024 character limit (${[...fm.description].length} chars)`);
  if ('compatibility' in fm) {
    if (typeof fm.compatibility !== 'string') problems.push("Field 'compatibility' must be a string");
    else if ([...fm.compatibility].length > 500) problems.push(`Compatibility exceeds 500 character limit (${[...fm.compatibility].length} chars)`);
  }
  return problems;
}

/** What the Claude.ai skill upload is known to refuse, for a zip holding this one skill. */
export function claudeUploadCheck(skill: ExportSkill): string[] {
  const problems: string[] = [];
  const skillMds = skill.files.filter((file) => file.path === 'SKILL.md' || file.path.endsWith('/SKILL.md'));
  if (skillMds.length !== 1) problems.push(`Zip must contain exactly one SKILL.md file; this skill has ${skillMds.length}`);
  if (skill.files.some((file) => file.path === '.claude-plugin/plugin.json')) {
    problems.push('A skill cannot contain a plugin manifest (.claude-plugin/plugin.json)');
  }
  const main = skill.files.find((file) => file.path === 'SKILL.md');
  if (!main) return problems;
  const parsed = parseSkillFile(decodeSkillText(main.bytes).text, { allowDuplicateKeys: true });
  if (!parsed.ok) return [...problems, `SKILL.md does not parse: ${parsed.message}`];
  const { name, description } = parsed.frontmatter;
  if (typeof name !== 'string' || name === '') problems.push('name is missing');
  else {
    if (name.length > 64) problems.push(`name is ${name.length} characters; the limit is 64`);
    if (!/^[a-z0-9-]+$/.test(name)) problems.push('name may only use lowercase letters, digits and hyphens');
    for (const reserved of ['anthropic', 'claude']) {
      if (name.toLowerCase().includes(reserved)) problems.push(`Skill name in SKILL.md cannot contain the reserved word '${reserved}'`);
    }
  }
  if (typeof description !== 'string' || description.trim() === '') problems.push('description is missing or empty');
  else {
    if (description.length > 1024) problems.push(`description is ${description.length} characters; the limit is 1024`);
    if (/[<>]/.test(description)) problems.push('description cannot contain angle brackets (< or >) or XML tags');
  }
  if ('allowed-tools' in parsed.frontmatter && typeof parsed.frontmatter['allowed-tools'] !== 'string') {
    problems.push("'allowed-tools' must be a space-separated string, not a list");
  }
  return problems;
}

export function exportChecks(skill: ExportSkill): ExportChecks {
  const main = skill.files.find((file) => file.path === 'SKILL.md');
  return {
    strict: main ? strictCheck(skill.folder, main.bytes) : ['Missing required file: SKILL.md'],
    claude: claudeUploadCheck(skill),
  };
}

/**
 * The exec bits Knack knows for a skill's files: those recorded by its last import whose bytes
 * have not changed since, plus scripts that start with `#!` (the store itself keeps no modes).
 */
async function executablePaths(engine: SkillEngine, name: string, dir: string): Promise<Set<string>> {
  const executable = new Set<string>();
  const entries = (await engine.ledger.list(name)).filter((entry) => entry.actor === 'import').sort((a, b) => a.at - b.at);
  const last = entries[entries.length - 1];
  const recorded = last?.evidence.executable;
  if (Array.isArray(recorded)) for (const path of recorded) if (typeof path === 'string') executable.add(`${dir}/${path}`);
  return executable;
}

/** A stored skill as export input; null when it has no files. */
export async function collectSkill(engine: SkillEngine, name: string): Promise<ExportSkill | null> {
  const entry = engine.catalog.findByName(name)[0];
  if (!entry) return null;
  const paths = await engine.files.walk(entry.dir);
  const recorded = await executablePaths(engine, name, entry.dir);
  const files: ExportFile[] = [];
  for (const path of paths) {
    const bytes = await engine.files.read(path);
    if (!bytes) continue;
    const relative = path.slice(entry.dir.length + 1);
    const shebang = relative.startsWith('scripts/') && bytes[0] === 0x23 && bytes[1] === 0x21;
    files.push({ path: relative, bytes, executable: recorded.has(path) || shebang });
  }
  if (files.length === 0) return null;
  await addVerificationSidecar(engine, name, files);
  return { folder: name, files };
}

/** Where an export puts the gate's evidence; SKILL.md bytes are never touched for it. */
export const VERIFICATION_SIDECAR_FILE = 'evals/verification.json';

/**
 * The gate's current verdict travels as `evals/verification.json` (written by the gate, which
 * skills cannot import: `engine.verification`). It replaces a sidecar the skill came with,
 * which is only someone else's claim; without a current verdict the files go as they are.
 */
async function addVerificationSidecar(engine: SkillEngine, name: string, files: ExportFile[]): Promise<void> {
  const sidecar = await engine.verification?.sidecar(name);
  if (!sidecar) return;
  const at = files.findIndex((file) => file.path === VERIFICATION_SIDECAR_FILE);
  const file: ExportFile = { path: VERIFICATION_SIDECAR_FILE, bytes: sidecar };
  if (at >= 0) files[at] = file;
  else files.push(file);
}

/** Every live skill (not the archive), ready for one zip. */
export async function collectAllSkills(engine: SkillEngine): Promise<ExportSkill[]> {
  const names = [...new Set(engine.catalog.entries().map((entry) => entry.name))].sort();
  const skills: ExportSkill[] = [];
  for (const name of names) {
    const skill = await collectSkill(engine, name);
    if (skill) skills.push(skill);
  }
  return skills;
}
