/**
 * A skill's files by their real paths relative to the skill folder, never guessed from folder
 * names: `agents/openai.yaml` stays `agents/openai.yaml`, two `notes.md` in different folders
 * stay apart, and a nested skill (`parent/child/SKILL.md`, its own catalogue entry) is not
 * listed among its parent's files but as a link to it (docs/skill-tools.md "Files of a skill").
 */
import { SUPPORT_DIRS } from './skillCatalog';

const SKILL_MD = 'SKILL.md';

export interface SkillFileList {
  /** Paths relative to the skill folder, sorted; files of nested skills left out. */
  files: string[];
  /** Nested skill folders, relative to the skill folder (`child`, `tools/child`), outermost only. */
  nested: string[];
}

/** Whether `path` is `dir` itself or inside it. */
function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * The files of the skill in `dir`, from the store's listing of it (`walked`, full paths) and
 * the catalogue's skill folders (`skillDirs`, any set: those under `dir` are its nested skills).
 */
export function skillFileList(dir: string, walked: readonly string[], skillDirs: Iterable<string>): SkillFileList {
  const inside = [...new Set(skillDirs)].filter((other) => other !== dir && other.startsWith(`${dir}/`)).sort();
  // Outermost only: a skill nested in a nested skill is reached through its own parent.
  const nestedDirs = inside.filter((other) => !inside.some((outer) => outer !== other && isWithin(other, outer)));
  const files: string[] = [];
  for (const path of walked) {
    if (!path.startsWith(`${dir}/`)) continue;
    if (nestedDirs.some((nested) => isWithin(path, nested))) continue;
    files.push(path.slice(dir.length + 1));
  }
  files.sort((a, b) => (a === SKILL_MD ? -1 : b === SKILL_MD ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return { files, nested: nestedDirs.map((nested) => nested.slice(dir.length + 1)) };
}

/**
 * The old guess, for a path no known folder claims: the skill folder ends before the first
 * support folder or SKILL.md (`skills/a/b/references/x.md` → `skills/a/b`), else at the
 * path's parent. It is wrong for files outside the support folders, so it is only a fallback.
 */
export function guessSkillDir(path: string): string {
  const parts = path.split('/');
  const stops = new Set<string>([...SUPPORT_DIRS, SKILL_MD]);
  const support = parts.findIndex((part, i) => i > 1 && stops.has(part));
  return parts.slice(0, support > 0 ? support : parts.length - 1).join('/');
}

/**
 * The skill folders a set of changed paths belongs to: the folders of the SKILL.md files among
 * them and the folders the skill is known by (`knownDirs`: where the catalogue has it). A
 * nested skill's SKILL.md among a parent's paths does not split them: each path takes the
 * outermost folder that holds it, so the parent's change shows `child/SKILL.md`.
 */
export function skillDirsOf(paths: readonly string[], knownDirs: Iterable<string> = []): string[] {
  const dirs = new Set<string>(knownDirs);
  for (const path of paths) if (path.endsWith(`/${SKILL_MD}`)) dirs.add(path.slice(0, -SKILL_MD.length - 1));
  return [...dirs];
}

/** The folder of the skill `path` sits in: the outermost of `dirs` that holds it, else the guess. */
export function skillDirOfPath(path: string, dirs: readonly string[]): string {
  let best: string | null = null;
  for (const dir of dirs) if (path.startsWith(`${dir}/`) && (best === null || dir.length < best.length)) best = dir;
  return best ?? guessSkillDir(path);
}

/** `path` relative to its skill folder (see `skillDirOfPath`). */
export function relativeToSkill(path: string, dirs: readonly string[]): string {
  const dir = skillDirOfPath(path, dirs);
  return path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : path;
}
