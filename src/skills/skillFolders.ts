/**
 * Which folders of an archive or a fetched repository are skills, and which files are theirs
 * (docs/skill-tools.md, "Nested skills on import"); shared by the zip import and Install from a
 * link (src/install/). Pure path work: a folder that directly holds a
 * SKILL.md is a skill; one nested in another skill's folder is a skill of its own that travels
 * inside the outermost one; a SKILL.md under a skill's support folders is one of its files.
 * Every lookup walks a path's own ancestors, so an archive of 864 skills and 4,000 files costs
 * a few set lookups per path (docs/skill-tools.md, "At scale").
 */
import type { RefusedEntry, ZipFile } from './zipArchive';

export const SUPPORT_FOLDERS = new Set(['references', 'templates', 'scripts', 'assets', 'evals', 'tools']);

/**
 * Folders that directly hold a SKILL.md, outermost first. A skill nested in another skill's
 * folder (`parent/child/SKILL.md`) is a skill of its own, as the catalogue finds it; a SKILL.md
 * under a skill's support folders (`references/`, `templates/`…) is one of that skill's files.
 * Only the outermost ones become import candidates; the nested ones travel inside them.
 */
export function findSkillFolders(paths: string[]): string[] {
  const folders = paths
    .filter((path) => path === 'SKILL.md' || path.endsWith('/SKILL.md'))
    .map((path) => path.slice(0, Math.max(0, path.length - 'SKILL.md'.length - 1)))
    .sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1));
  const chosen = new Set<string>();
  for (const folder of folders) {
    const outer = innermostAround(folder, chosen);
    const inner = outer === null ? '' : folder.slice(outer === '' ? 0 : outer.length + 1);
    if (outer === null || !inner.split('/').some((segment) => SUPPORT_FOLDERS.has(segment))) chosen.add(folder);
  }
  return [...chosen];
}

/**
 * The deepest of `folders` that strictly contains `folder` (a path, or `''` for the archive's
 * root), or null. Walks the path's own ancestors, so an archive of 864 skills costs a few set
 * lookups per folder rather than a pass over every other folder.
 */
function innermostAround(folder: string, folders: ReadonlySet<string>): string | null {
  if (folder === '') return null;
  for (let cut = folder.lastIndexOf('/'); cut > 0; cut = folder.lastIndexOf('/', cut - 1)) {
    const outer = folder.slice(0, cut);
    if (folders.has(outer)) return outer;
  }
  return folders.has('') ? '' : null;
}

/**
 * Refused SKILL.md entries that would have made a skill of their own (a bad checksum, an
 * unsafe path): such a skill is refused as a whole with that reason instead of vanishing from
 * the plan. One per folder, and none inside a skill that was found anyway.
 */
export function refusedSkillEntries(refused: RefusedEntry[], folders: ReadonlySet<string>): Array<RefusedEntry & { folder: string }> {
  const out: Array<RefusedEntry & { folder: string }> = [];
  for (const entry of refused) {
    if (entry.path !== 'SKILL.md' && !entry.path.endsWith('/SKILL.md')) continue;
    const folder = entry.path.slice(0, Math.max(0, entry.path.length - 'SKILL.md'.length - 1));
    const outer = innermostAround(folder, folders);
    const inner = outer === null ? '' : folder.slice(outer === '' ? 0 : outer.length + 1);
    const inside = folders.has(folder) || (outer !== null && inner.split('/').some((segment) => SUPPORT_FOLDERS.has(segment)));
    if (!inside && !out.some((other) => other.folder === folder)) out.push({ ...entry, folder });
  }
  return out;
}

/**
 * The outermost skill folders, each with its files (paths made relative to it) and the folders
 * of the skills nested in it (relative too), both in archive order. Files outside every skill
 * folder belong to none.
 */
export function groupBySkillFolder(
  files: readonly ZipFile[],
  folders: readonly string[],
): { outermost: string[]; filesOf: Map<string, ZipFile[]>; nestedOf: Map<string, string[]> } {
  const all = new Set(folders);
  const outermost = folders.filter((folder) => innermostAround(folder, all) === null);
  const outermostSet = new Set(outermost);
  const around = (path: string): string | null => (outermostSet.has(path) ? path : innermostAround(path, outermostSet));
  const relative = (path: string, owner: string) => path.slice(owner === '' ? 0 : owner.length + 1);
  const filesOf = new Map<string, ZipFile[]>(outermost.map((folder) => [folder, []]));
  const nestedOf = new Map<string, string[]>(outermost.map((folder) => [folder, []]));
  for (const file of files) {
    const cut = file.path.lastIndexOf('/');
    const owner = around(cut === -1 ? '' : file.path.slice(0, cut));
    if (owner !== null) filesOf.get(owner)!.push({ ...file, path: relative(file.path, owner) });
  }
  for (const folder of folders) {
    const owner = innermostAround(folder, outermostSet);
    if (owner !== null) nestedOf.get(owner)!.push(relative(folder, owner));
  }
  return { outermost, filesOf, nestedOf };
}

/**
 * The folders of the skills a list of paths holds, outermost only (nested skills travel inside
 * them): what one import candidate each, or one upstream skill each, is made of.
 */
export function outermostSkillFolders(paths: string[]): string[] {
  const folders = findSkillFolders(paths);
  const all = new Set(folders);
  return folders.filter((folder) => innermostAround(folder, all) === null);
}
