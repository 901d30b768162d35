/**
 * Which folders of a list of paths are skills (docs/skill-tools.md, "Nested skills on import"):
 * a folder that directly holds a SKILL.md is a skill; one nested in another skill's folder is a
 * skill of its own (as the catalogue finds it) that travels inside its parent; a SKILL.md under
 * a skill's support folders is one of that skill's files. Shared by the zip import and Install
 * from a link (src/install/).
 */
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
  const chosen: string[] = [];
  for (const folder of folders) {
    const outer = innermostAround(folder, chosen);
    const inner = outer === null ? '' : folder.slice(outer === '' ? 0 : outer.length + 1);
    if (outer === null || !inner.split('/').some((segment) => SUPPORT_FOLDERS.has(segment))) chosen.push(folder);
  }
  return chosen;
}

/** The deepest of `folders` that strictly contains `folder`, or null. */
export function innermostAround(folder: string, folders: string[]): string | null {
  let found: string | null = null;
  for (const outer of folders) {
    if (outer === folder || !(outer === '' || folder.startsWith(`${outer}/`))) continue;
    if (found === null || outer.length > found.length) found = outer;
  }
  return found;
}

/** Every folder that holds a skill of its own (nested ones too, support folders excepted), outermost first. */
export function skillFoldersIn(paths: string[]): string[] {
  return findSkillFolders(paths);
}

/**
 * The folders of the skills a list of paths holds, outermost only (nested skills travel inside
 * them): what one import candidate each, or one upstream skill each, is made of.
 */
export function outermostSkillFolders(paths: string[]): string[] {
  const folders = findSkillFolders(paths);
  return folders.filter((folder) => innermostAround(folder, folders) === null);
}
