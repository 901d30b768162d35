/**
 * What an export can tell the user about a skill (docs/skill-tools.md, "Export checks"): a
 * closed list of problem kinds, each either a real incompatibility (an Agent Skills validator
 * or Claude.ai refuses the skill; say what to change, offer a one-click fix where the change
 * is mechanical) or advisory (a strict validator complains, but the standard and the agents
 * that load skills accept it). Checks never block an export.
 *
 * Relaxed on purpose (docs/skill-tools.md, "Export checks"): flow-style YAML such as
 * `mcp: [rube]` is valid YAML and every consumer parses it, so it is not a problem at all (the
 * old check copied one validator's strict-YAML parser); unknown top-level fields are advisory,
 * because the standard puts extras under `metadata` but every consumer ignores keys it does
 * not know.
 */
import { decodeSkillText, locateFrontmatter, parseSkillFile } from './frontmatter';
import type { ExportFixId } from './exportFixes';
import { isSpecName, movableFields } from './exportFixes';

export type ProblemClass = 'incompatible' | 'advisory';

export type ProblemKindId =
  | 'no-frontmatter'
  | 'unclosed-frontmatter'
  | 'invalid-yaml'
  | 'missing-name'
  | 'name-format'
  | 'name-folder-mismatch'
  | 'name-reserved-word'
  | 'missing-description'
  | 'description-too-long'
  | 'description-angle-brackets'
  | 'compatibility-invalid'
  | 'allowed-tools-list'
  | 'several-skill-md'
  | 'plugin-manifest'
  | 'unexpected-fields';

export interface ProblemKind {
  id: ProblemKindId;
  label: string;
  class: ProblemClass;
  /** Who refuses or flags it. */
  refusedBy: string;
  /** What to change, in general; each problem adds its specifics. */
  change: string;
}

/** The closed list, in the order the report shows kinds (incompatibilities first). */
export const PROBLEM_KINDS: readonly ProblemKind[] = [
  // The standard: SKILL.md is YAML frontmatter between `---` fences, then the body.
  { id: 'no-frontmatter', label: 'No frontmatter', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Edit the skill and start SKILL.md with a --- fence, name: and description:, and a closing ---.' },
  { id: 'unclosed-frontmatter', label: 'Frontmatter not closed', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Add a line holding only --- after the frontmatter fields.' },
  { id: 'invalid-yaml', label: 'Frontmatter is not YAML', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Fix the YAML: quote values that contain ": " or start with a special character.' },
  // The standard: `name` is required.
  { id: 'missing-name', label: 'No name', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Add name: with the folder name.' },
  // The standard: 1–64 characters, lowercase letters, digits and single hyphens, no hyphen at either end.
  { id: 'name-format', label: 'Name not in kebab-case', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Use lowercase letters, digits and single hyphens (at most 64 characters).' },
  // The standard: the name must equal its parent directory's name.
  { id: 'name-folder-mismatch', label: 'Name differs from folder', class: 'incompatible', refusedBy: 'Agent Skills standard', change: "Make the frontmatter name the folder's name." },
  // Claude.ai refuses names containing the reserved words.
  { id: 'name-reserved-word', label: 'Reserved word in name', class: 'incompatible', refusedBy: 'Claude.ai', change: "Choose a name without 'claude' or 'anthropic' (a new skill under that name)." },
  // The standard: `description` is required and non-empty.
  { id: 'missing-description', label: 'No description', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Add description: saying what the skill does and when to use it.' },
  // The standard: at most 1,024 characters.
  { id: 'description-too-long', label: 'Description over 1,024 characters', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude.ai', change: 'Shorten the description to 1,024 characters; detail belongs in the body.' },
  // Claude.ai (and Anthropic's skill-creator) refuse `<` and `>` in descriptions: no XML tags.
  { id: 'description-angle-brackets', label: 'Angle brackets in description', class: 'incompatible', refusedBy: 'Claude.ai', change: 'Remove < and > from the description (write tag names in backticks).' },
  // The standard: `compatibility`, when present, is text of 1–500 characters.
  { id: 'compatibility-invalid', label: 'Compatibility not short text', class: 'incompatible', refusedBy: 'Agent Skills standard', change: 'Make compatibility one line of text, at most 500 characters.' },
  // The standard: `allowed-tools` is a space-separated string; Claude Desktop refuses a list.
  { id: 'allowed-tools-list', label: 'allowed-tools given as a list', class: 'incompatible', refusedBy: 'Agent Skills standard, Claude Desktop', change: 'Write allowed-tools as one space-separated string.' },
  // Claude.ai takes a zip holding exactly one SKILL.md.
  { id: 'several-skill-md', label: 'More than one SKILL.md', class: 'incompatible', refusedBy: 'Claude.ai', change: 'Rename or remove the extra SKILL.md files inside the skill.' },
  { id: 'plugin-manifest', label: 'Plugin manifest inside the skill', class: 'incompatible', refusedBy: 'Claude.ai', change: 'Remove .claude-plugin/plugin.json: a skill is not a plugin.' },
  // The standard lists six fields and puts extras under `metadata`, but every consumer
  // ignores keys it does not know (and Claude Code and Hermes read their own at the top).
  { id: 'unexpected-fields', label: 'Fields outside the standard', class: 'advisory', refusedBy: 'strict validators only (skills-ref)', change: 'Optional: move fields no agent reads under metadata.' },
];

const KIND_BY_ID = new Map(PROBLEM_KINDS.map((kind) => [kind.id, kind]));

export function problemKind(id: ProblemKindId): ProblemKind {
  return KIND_BY_ID.get(id)!;
}

export interface ExportProblem {
  kind: ProblemKindId;
  /** This skill's specifics ("name 'Foo Bar' in folder 'foo-bar'"). */
  detail: string;
  /** The one-click fix for this skill, when the change is mechanical. */
  fix: ExportFixId | null;
}

export interface CheckedFile {
  path: string;
  bytes: Uint8Array;
}

/** The standard's six fields. */
export const STANDARD_FIELDS = ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'];
const RESERVED_WORDS = ['anthropic', 'claude'];

const length = (text: string) => [...text].length;

function nameProblems(folder: string, fm: Record<string, unknown>): ExportProblem[] {
  const folderFix: ExportFixId | null = isSpecName(folder) ? 'use-folder-name' : null;
  if (typeof fm.name !== 'string' || fm.name.trim() === '') return [{ kind: 'missing-name', detail: 'the frontmatter has no name', fix: folderFix }];
  const name = fm.name.trim().normalize('NFKC');
  const problems: ExportProblem[] = [];
  if (!isSpecName(name)) {
    problems.push({ kind: 'name-format', detail: `name '${name}'${folderFix ? ` (the folder is '${folder}')` : ''}`, fix: folderFix });
  }
  if (folder.normalize('NFKC') !== name) {
    problems.push({
      kind: 'name-folder-mismatch',
      detail: folderFix ? `name '${name}' in folder '${folder}'` : `name '${name}' in folder '${folder}', which is itself not a valid name: create the skill again under a kebab-case name`,
      fix: folderFix,
    });
  }
  for (const word of RESERVED_WORDS) {
    if (name.toLowerCase().includes(word)) problems.push({ kind: 'name-reserved-word', detail: `name '${name}' contains '${word}'`, fix: null });
  }
  return problems;
}

function fieldProblems(fm: Record<string, unknown>): ExportProblem[] {
  const problems: ExportProblem[] = [];
  const description = fm.description;
  if (typeof description !== 'string' || description.trim() === '') {
    problems.push({ kind: 'missing-description', detail: 'the frontmatter has no description', fix: null });
  } else {
    if (length(description) > 1024) problems.push({ kind: 'description-too-long', detail: `${length(description)} characters`, fix: 'trim-description' });
    if (/[<>]/.test(description)) problems.push({ kind: 'description-angle-brackets', detail: `'${description.match(/<[^>]{0,40}>?|>/)?.[0] ?? '<'}'`, fix: 'escape-angle-brackets' });
  }
  if ('compatibility' in fm && (typeof fm.compatibility !== 'string' || length(fm.compatibility) > 500)) {
    const detail = typeof fm.compatibility === 'string' ? `${length(fm.compatibility)} characters` : 'it is not text';
    problems.push({ kind: 'compatibility-invalid', detail, fix: typeof fm.compatibility === 'string' ? 'trim-compatibility' : null });
  }
  const tools = fm['allowed-tools'];
  if (tools !== undefined && typeof tools !== 'string') {
    const joinable = Array.isArray(tools) && tools.every((tool) => typeof tool === 'string');
    problems.push({ kind: 'allowed-tools-list', detail: Array.isArray(tools) ? `a list of ${tools.length}` : 'it is not text', fix: joinable ? 'join-allowed-tools' : null });
  }
  const unexpected = Object.keys(fm).filter((key) => !STANDARD_FIELDS.includes(key)).sort();
  if (unexpected.length > 0) {
    const movable = movableFields(fm);
    const kept = unexpected.filter((key) => !movable.includes(key));
    const detail = `${unexpected.join(', ')}${kept.length > 0 ? ` (${kept.join(', ')} ${kept.length === 1 ? 'is' : 'are'} read by Claude Code or Hermes at the top level; leave ${kept.length === 1 ? 'it' : 'them'})` : ''}`;
    problems.push({ kind: 'unexpected-fields', detail, fix: movable.length > 0 ? 'move-to-metadata' : null });
  }
  return problems;
}

/** The problems of SKILL.md's own text, for a skill stored in `folder`. */
export function skillMdProblems(folder: string, skillMd: Uint8Array): ExportProblem[] {
  const { text } = decodeSkillText(skillMd);
  const located = locateFrontmatter(text);
  if (!located.ok) {
    return located.code === 'no_frontmatter'
      ? [{ kind: 'no-frontmatter', detail: 'SKILL.md does not start with ---', fix: null }]
      : [{ kind: 'unclosed-frontmatter', detail: 'no closing --- line', fix: null }];
  }
  const parsed = parseSkillFile(text, { allowDuplicateKeys: true });
  if (!parsed.ok) return [{ kind: 'invalid-yaml', detail: parsed.message, fix: null }];
  return [...nameProblems(folder, parsed.frontmatter), ...fieldProblems(parsed.frontmatter)];
}

/** Every problem of one skill folder as it would be exported. */
export function checkExportSkill(folder: string, files: readonly CheckedFile[]): ExportProblem[] {
  const problems: ExportProblem[] = [];
  const main = files.find((file) => file.path === 'SKILL.md');
  if (main) problems.push(...skillMdProblems(folder, main.bytes));
  else problems.push({ kind: 'no-frontmatter', detail: 'the skill has no SKILL.md', fix: null });
  const extra = files.filter((file) => file.path !== 'SKILL.md' && (file.path.endsWith('/SKILL.md') || file.path === 'skill.md'));
  if (extra.length > 0) problems.push({ kind: 'several-skill-md', detail: extra.map((file) => file.path).join(', '), fix: null });
  if (files.some((file) => file.path === '.claude-plugin/plugin.json')) problems.push({ kind: 'plugin-manifest', detail: '.claude-plugin/plugin.json', fix: null });
  return problems;
}

export interface ReportKind {
  kind: ProblemKind;
  count: number;
  /** Skill names, sorted, with this skill's detail and fix. */
  skills: Array<{ name: string; detail: string; fix: ExportFixId | null }>;
}

export interface ExportReport {
  total: number;
  /** Skills with at least one incompatibility. */
  incompatible: number;
  /** Skills with advisory problems only. */
  advisoryOnly: number;
  kinds: ReportKind[];
}

/** Problems of many skills grouped by kind, in the closed list's order, with counts. */
export function groupProblems(results: ReadonlyArray<{ name: string; problems: readonly ExportProblem[] }>): ExportReport {
  const byKind = new Map<ProblemKindId, ReportKind>();
  let incompatible = 0;
  let advisoryOnly = 0;
  for (const { name, problems } of results) {
    if (problems.some((problem) => problemKind(problem.kind).class === 'incompatible')) incompatible++;
    else if (problems.length > 0) advisoryOnly++;
    for (const problem of problems) {
      let group = byKind.get(problem.kind);
      if (!group) byKind.set(problem.kind, (group = { kind: problemKind(problem.kind), count: 0, skills: [] }));
      if (group.skills.some((skill) => skill.name === name)) continue;
      group.count++;
      group.skills.push({ name, detail: problem.detail, fix: problem.fix });
    }
  }
  const kinds = PROBLEM_KINDS.flatMap((kind) => {
    const group = byKind.get(kind.id);
    if (!group) return [];
    group.skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return [group];
  });
  return { total: results.length, incompatible, advisoryOnly, kinds };
}
