/**
 * A GitHub repository as an install source (docs/install.md, "GitHub"): the ref resolved to a
 * commit SHA (one API request), ONE recursive git-trees request for every file, and each file's
 * bytes from raw.githubusercontent.com at that exact commit, checked against the tree's blob id.
 * Every SKILL.md is a skill under the zip import's nesting rules; modes come from the tree
 * (100755 is executable); links and submodules are never fetched.
 */
import { DEFAULT_ZIP_LIMITS, isJunkPath, unsafePathReason, type RefusedEntry, type ZipFile } from '../../skills/zipArchive';
import { outermostSkillFolders, skillFoldersIn } from '../../skills/skillFolders';
import { gitBlobSha } from '../digest';
import { InstallError, mapLimited, type InstallNetwork } from '../installNetwork';
import type { FetchedFiles, ListedSkill, SourceListing } from '../sourceTypes';

export interface GithubTarget {
  owner: string;
  repo: string;
  ref: string | null;
  /** The folder to install from ('' for the whole repository). */
  path: string;
}

interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  size?: number;
}

interface TreeResponse {
  sha: string;
  tree: TreeEntry[];
  truncated: boolean;
}

/** Raw files fetched side by side: enough to hide latency, few enough to be polite. */
const PARALLEL_FILES = 6;

export function githubSourceKey(owner: string, repo: string, ref: string | null): string {
  return `github:${owner}/${repo}@${ref ?? 'HEAD'}`;
}

export function parseGithubSourceKey(key: string): { owner: string; repo: string; ref: string | null } | null {
  const match = /^github:([^/]+)\/([^@]+)@(.+)$/.exec(key);
  if (!match) return null;
  return { owner: match[1]!, repo: match[2]!, ref: match[3] === 'HEAD' ? null : match[3]! };
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The URLs the GitHub source may call: its API and raw hosts. */
export function githubHosts(network: Pick<InstallNetwork, 'hosts'>): string[] {
  return [network.hosts.githubApi, network.hosts.githubRaw];
}

/**
 * Lists a repository at one commit. `scope` limits the skills to one folder; `everyFolder`
 * lists nested skills as entries of their own too (Check for updates looks a skill up by the
 * path it was installed from, which may be nested in another).
 */
export async function listGithub(network: InstallNetwork, target: GithubTarget, options: { signal?: AbortSignal; everyFolder?: boolean } = {}): Promise<SourceListing> {
  const { owner, repo, ref } = target;
  const api = `${network.hosts.githubApi}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  const shaText = (await network.getText(`${api}/commits/${encodeURIComponent(ref ?? 'HEAD')}`, { accept: 'application/vnd.github.sha', signal: options.signal })).trim();
  if (!/^[0-9a-f]{40}$/.test(shaText)) throw new InstallError('format', `GitHub did not resolve '${ref ?? 'the default branch'}' of ${owner}/${repo} to a commit.`);
  const commit = shaText;
  const { value: tree } = await network.getJson<TreeResponse>(`${api}/git/trees/${commit}?recursive=1`, { signal: options.signal });
  if (!tree || !Array.isArray(tree.tree)) throw new InstallError('format', `GitHub's file list for ${owner}/${repo} is not in the expected shape.`);
  if (tree.truncated) {
    throw new InstallError('too-large', `GitHub listed only part of ${owner}/${repo} (the repository is too large for one listing). Paste the link of the folder that holds the skill (…/tree/<branch>/<folder>) and try again; Knack does not guess at the missing files.`);
  }
  const scope = target.path.replace(/^\/+|\/+$/g, '');
  const inScope = (path: string) => scope === '' || path === scope || path.startsWith(`${scope}/`);
  const blobs = tree.tree.filter((entry) => entry.type === 'blob' && inScope(entry.path));
  const treeShas = new Map(tree.tree.filter((entry) => entry.type === 'tree').map((entry) => [entry.path, entry.sha]));
  treeShas.set('', tree.sha);
  const paths = blobs.map((entry) => entry.path);
  const folders = options.everyFolder ? skillFoldersIn(paths) : outermostSkillFolders(paths);
  const skills = new Map<string, ListedSkill>();
  const sourceKey = githubSourceKey(owner, repo, ref);
  const base = `https://github.com/${owner}/${repo}`;
  for (const folder of folders) {
    const prefix = folder === '' ? '' : `${folder}/`;
    const entries = tree.tree.filter((entry) => entry.path.startsWith(prefix) && entry.type !== 'tree');
    skills.set(folder, githubSkill(network, { owner, repo, commit, folder, entries, treeSha: treeShas.get(folder) ?? '', url: folder === '' ? base : `${base}/tree/${ref ?? 'HEAD'}/${folder}` }));
  }
  const title = `${owner}/${repo}${scope ? `/${scope}` : ''}`;
  return { kind: 'github', sourceKey, revision: commit, title, rootName: repo, skills, refused: [] };
}

function githubSkill(
  network: InstallNetwork,
  skill: { owner: string; repo: string; commit: string; folder: string; entries: TreeEntry[]; treeSha: string; url: string },
): ListedSkill {
  const prefix = skill.folder === '' ? '' : `${skill.folder}/`;
  const refused: RefusedEntry[] = [];
  const ignored: string[] = [];
  const wanted: TreeEntry[] = [];
  let total = 0;
  for (const entry of skill.entries) {
    const relative = entry.path.slice(prefix.length);
    if (entry.type === 'commit') {
      ignored.push(relative);
      continue;
    }
    if (isJunkPath(relative)) {
      ignored.push(relative);
      continue;
    }
    if (entry.mode === '120000') {
      refused.push({ path: relative, reason: 'symbolic link (links are never imported)' });
      continue;
    }
    const unsafe = unsafePathReason(relative);
    if (unsafe) {
      refused.push({ path: relative, reason: unsafe });
      continue;
    }
    if ((entry.size ?? 0) > DEFAULT_ZIP_LIMITS.maxFileBytes) {
      refused.push({ path: relative, reason: `it is ${entry.size} bytes; the per-file limit is ${DEFAULT_ZIP_LIMITS.maxFileBytes}` });
      continue;
    }
    total += entry.size ?? 0;
    wanted.push(entry);
  }
  const tooMany = wanted.length > DEFAULT_ZIP_LIMITS.maxEntries || total > DEFAULT_ZIP_LIMITS.maxTotalBytes;
  const fetch = async (signal?: AbortSignal, onFile?: (path: string) => void): Promise<FetchedFiles> => {
    if (tooMany) throw new InstallError('too-large', `'${skill.folder || skill.repo}' has ${wanted.length} files and ${total} bytes; the limits are ${DEFAULT_ZIP_LIMITS.maxEntries} files and ${DEFAULT_ZIP_LIMITS.maxTotalBytes} bytes.`);
    const files = await mapLimited(
      wanted,
      PARALLEL_FILES,
      async (entry): Promise<ZipFile> => {
        const url = `${network.hosts.githubRaw}/${encodeURIComponent(skill.owner)}/${encodeURIComponent(skill.repo)}/${skill.commit}/${encodePath(entry.path)}`;
        const { bytes } = await network.get(url, { signal, maxBytes: DEFAULT_ZIP_LIMITS.maxFileBytes });
        const blob = await gitBlobSha(bytes);
        if (blob !== entry.sha) {
          throw new InstallError('digest', `'${entry.path}' does not match the repository: its git blob id is ${entry.sha}, the download is ${blob}. Nothing of this skill was installed.`);
        }
        onFile?.(entry.path);
        const executable = entry.mode === '100755';
        return { path: entry.path.slice(prefix.length), bytes, executable, mode: executable ? 0o755 : 0o644 };
      },
      signal,
    );
    return { files, refused, ignored };
  };
  return {
    path: skill.folder,
    folder: skill.folder,
    url: skill.url,
    revision: skill.commit,
    // The folder's git tree id changes when any file under it changes: one listing tells.
    upstreamDigest: `git-tree:${skill.treeSha}`,
    fileCount: wanted.length,
    digestFromContent: false,
    fetch,
    fetchFiles: async (signal) => {
      const fetched = await fetch(signal);
      return {
        files: new Map(fetched.files.map((file) => [file.path, file.bytes])),
        modes: new Map(fetched.files.map((file) => [file.path, file.mode ?? 0o644])),
      };
    },
  };
}
