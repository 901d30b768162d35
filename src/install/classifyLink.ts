/**
 * What the user pasted into "Install from a link" (docs/install.md, "Sources"): a GitHub
 * repository, folder or SKILL.md; a site or its well-known index; a ClawHub page or slug; a raw
 * SKILL.md URL. Links a browser cannot use (codeload, release downloads, zipballs) are refused
 * with what to paste instead. Pure: no network.
 */

export type LinkTarget =
  | {
      kind: 'github';
      owner: string;
      repo: string;
      /** The branch, tag or commit in the link; null for the default branch. */
      ref: string | null;
      /** The folder in the repository ('' for the whole repository). */
      path: string;
      /** The link named one SKILL.md (`/blob/`): its folder is `path`. */
      blob: boolean;
    }
  | {
      kind: 'well-known';
      /** `https://host` of the site. */
      origin: string;
      /** The index the link named; null to look in the two well-known places. */
      indexUrl: string | null;
    }
  | { kind: 'clawhub'; slug: string; /** The skill's page when the link was one. */ page: string | null }
  | { kind: 'raw'; url: string }
  | { kind: 'refused'; message: string };

const NAME_RE = /^[A-Za-z0-9_.-]+$/;
const SLUG_RE = /^[a-z0-9][a-z0-9-]*$/i;
const CLAWHUB_HOSTS = new Set(['clawhub.ai', 'www.clawhub.ai']);

const PASTE_REPO_INSTEAD =
  'A browser cannot download from this link (GitHub sends it without CORS headers). Paste the repository or folder link instead (https://github.com/<owner>/<repo> or …/tree/<branch>/<folder>), or download the zip yourself and drop it on Import skills.';

function refused(message: string): LinkTarget {
  return { kind: 'refused', message };
}

/** Local addresses may be plain http (a server on this machine); everything else must be https. */
function isLocalHost(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

function decodeSegments(segments: string[]): string[] {
  return segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}

function classifyGithub(url: URL): LinkTarget {
  const segments = decodeSegments(url.pathname.split('/').filter(Boolean));
  const [owner, rawRepo, mode, ref, ...rest] = segments;
  if (!owner || !rawRepo) return refused('That GitHub link names no repository. Paste https://github.com/<owner>/<repo>, a folder in it, or a SKILL.md in it.');
  const repo = rawRepo.replace(/\.git$/, '');
  if (!NAME_RE.test(owner) || !NAME_RE.test(repo)) return refused(`'${owner}/${repo}' is not a GitHub repository name.`);
  if (mode === undefined) return { kind: 'github', owner, repo, ref: null, path: '', blob: false };
  if (mode === 'archive' || mode === 'releases' || mode === 'zipball' || mode === 'tarball') return refused(PASTE_REPO_INSTEAD);
  if ((mode === 'tree' || mode === 'blob') && ref) {
    const path = rest.join('/');
    if (mode === 'tree') return { kind: 'github', owner, repo, ref, path, blob: false };
    if (!/(^|\/)SKILL\.md$/.test(path)) return refused('That GitHub link is a file but not a SKILL.md. Paste the link of a SKILL.md, of its folder, or of the repository.');
    return { kind: 'github', owner, repo, ref, path: path.slice(0, Math.max(0, path.length - 'SKILL.md'.length - 1)), blob: true };
  }
  return refused('That GitHub page is not a repository, folder or SKILL.md. Paste https://github.com/<owner>/<repo>, …/tree/<branch>/<folder> or …/blob/<branch>/<folder>/SKILL.md.');
}

/** Classifies what the user pasted. Never throws. */
export function classifyLink(input: string): LinkTarget {
  const text = input.trim();
  if (!text) return refused('Paste a link: a GitHub repository, a site with a skills index, a ClawHub skill, or a SKILL.md.');
  const clawhubPrefix = /^clawhub:(.+)$/i.exec(text);
  if (clawhubPrefix) {
    const slug = clawhubPrefix[1]!.trim();
    return SLUG_RE.test(slug) ? { kind: 'clawhub', slug, page: null } : refused(`'${slug}' is not a ClawHub skill name.`);
  }
  // A bare word is a ClawHub slug; a bare owner/repo is GitHub (as `npx skills add owner/repo`).
  if (SLUG_RE.test(text) && !text.includes('.')) return { kind: 'clawhub', slug: text, page: null };
  const shorthand = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(text);
  if (shorthand && !shorthand[1]!.includes('.')) return { kind: 'github', owner: shorthand[1]!, repo: shorthand[2]!.replace(/\.git$/, ''), ref: null, path: '', blob: false };
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return refused(`'${text}' is not a link Knack can read.`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLocalHost(url.hostname))) {
    return refused(url.protocol === 'http:' ? 'Knack installs only over https (a plain http link could be changed on the way). Paste the https link.' : `Knack cannot install from a ${url.protocol} link.`);
  }
  const host = url.hostname.toLowerCase();
  if (host === 'codeload.github.com' || host === 'objects.githubusercontent.com') return refused(PASTE_REPO_INSTEAD);
  if (host === 'api.github.com') {
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/(zipball|tarball))?/.exec(url.pathname);
    if (match?.[4]) return refused(PASTE_REPO_INSTEAD);
    return match ? { kind: 'github', owner: match[1]!, repo: match[2]!, ref: null, path: '', blob: false } : refused('Paste the repository link (https://github.com/<owner>/<repo>) rather than an API address.');
  }
  if (host === 'github.com' || host === 'www.github.com') return classifyGithub(url);
  if (host === 'gist.github.com') return refused('Gists are not supported. Paste the SKILL.md raw link (its "Raw" button) instead.');
  if (CLAWHUB_HOSTS.has(host)) {
    const segments = decodeSegments(url.pathname.split('/').filter(Boolean));
    const slug = segments[segments.length - 1];
    if (segments[0] === 'api') return refused('Paste the ClawHub skill page (https://clawhub.ai/<owner>/<skill>) or the skill name rather than an API address.');
    if (!slug || !SLUG_RE.test(slug)) return refused('That ClawHub page names no skill. Paste a skill page such as https://clawhub.ai/<owner>/<skill>.');
    return { kind: 'clawhub', slug, page: `${url.origin}${url.pathname}` };
  }
  const file = url.pathname.split('/').pop() ?? '';
  if (/^SKILL\.md$/i.test(file)) return { kind: 'raw', url: url.href };
  if (/\.(zip|skill|tar\.gz|tgz)$/i.test(file)) return refused('That link is an archive. Download it and drop it on Import skills, or paste the site (https://host) whose skills index lists it.');
  if (/\/\.well-known\/(agent-skills|skills)\/index\.json$/.test(url.pathname) || /\/index\.json$/.test(url.pathname)) {
    return { kind: 'well-known', origin: url.origin, indexUrl: `${url.origin}${url.pathname}` };
  }
  return { kind: 'well-known', origin: url.origin, indexUrl: null };
}
