/**
 * One SKILL.md at a URL as an install source (docs/install.md, "A raw SKILL.md"): the file, and
 * the files its relative links name under references/, scripts/, templates/ and assets/ (as
 * Hermes fetches them). A linked file that is missing is reported, not fatal. No digest is
 * published, so the upstream digest is the content hash of what was fetched.
 */
import { DEFAULT_ZIP_LIMITS, unsafePathReason, type RefusedEntry, type ZipFile } from '../../skills/zipArchive';
import { sha256Digest } from '../digest';
import { InstallError, mapLimited, type InstallNetwork } from '../installNetwork';
import { listedSkill, type SourceListing } from '../sourceTypes';

const LINKED_FOLDERS = ['references', 'scripts', 'templates', 'assets'];
/** More linked files than this is no single SKILL.md page. */
const MAX_LINKED_FILES = 200;

/** The relative paths under the support folders that a SKILL.md links to or names in backticks. */
export function linkedSupportFiles(markdown: string): string[] {
  const found = new Set<string>();
  const candidates = [...markdown.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...markdown.matchAll(/`([^`\s]+)`/g), ...markdown.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
  for (const candidate of candidates) {
    const path = candidate.replace(/[#?].*$/, '').replace(/^\.\//, '');
    if (!path || /^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('/')) continue;
    if (!LINKED_FOLDERS.includes(path.split('/')[0]!) || path.endsWith('/')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      continue;
    }
    if (unsafePathReason(decoded)) continue;
    found.add(decoded);
  }
  return [...found].sort().slice(0, MAX_LINKED_FILES);
}

export async function listRawSkill(network: InstallNetwork, url: string, options: { signal?: AbortSignal } = {}): Promise<SourceListing> {
  const { bytes: skillMd } = await network.get(url, { signal: options.signal, maxBytes: DEFAULT_ZIP_LIMITS.maxFileBytes });
  const parts = new URL(url).pathname.split('/').filter(Boolean);
  const folder = (parts.length >= 2 ? decodeURIComponent(parts[parts.length - 2]!) : new URL(url).hostname) || 'skill';
  const revision = await sha256Digest(skillMd);
  const linked = linkedSupportFiles(new TextDecoder().decode(skillMd));
  const skill = listedSkill(
    { path: '', folder, url, revision, upstreamDigest: '', fileCount: linked.length + 1, digestFromContent: true },
    async (signal, onFile) => {
      onFile?.('SKILL.md');
      const refused: RefusedEntry[] = [];
      const files = await mapLimited(linked, 4, async (path): Promise<ZipFile | null> => {
        const fileUrl = new URL(path.split('/').map(encodeURIComponent).join('/'), url).href;
        try {
          const { bytes } = await network.get(fileUrl, { signal, maxBytes: DEFAULT_ZIP_LIMITS.maxFileBytes });
          onFile?.(path);
          return { path, bytes };
        } catch (error) {
          if (error instanceof InstallError && (error.code === 'not-found' || error.code === 'too-large' || error.code === 'host')) {
            refused.push({ path, reason: `SKILL.md links to it, but ${error.message}` });
            return null;
          }
          throw error;
        }
      }, signal);
      return { files: [{ path: 'SKILL.md', bytes: skillMd }, ...files.filter((file): file is ZipFile => file !== null)], refused, ignored: [] };
    },
  );
  return { kind: 'raw', sourceKey: url, revision, title: url, rootName: folder, skills: new Map([['', skill]]), refused: [] };
}
