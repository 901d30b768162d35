/**
 * A site's skills index as an install source (docs/install.md, "Well-known indexes"):
 * `/.well-known/agent-skills/index.json` (v0.2.0 or its earlier draft), else the legacy
 * `/.well-known/skills/index.json` (v0.1). Every digest the index gives is checked before the
 * skill can be planned; a mismatch refuses that skill alone, with both hashes. Artifacts on a
 * host other than the site are refused: Knack asks only the host the user typed.
 */
import { checkDigest, manifestDigest, parseDigest, sha256Digest } from '../digest';
import { readArchive, unwrapSingleFolder } from '../archive';
import { InstallError, mapLimited, type InstallNetwork } from '../installNetwork';
import { AGENT_SKILLS_INDEX, LEGACY_SKILLS_INDEX, parseSkillsIndex, type IndexEntry } from '../wellKnownIndex';
import { listedSkill, type DownloadSkill, type ListedSkill, type SourceListing } from '../sourceTypes';
import { DEFAULT_ZIP_LIMITS, type ZipFile } from '../../skills/zipArchive';

/** Fetches the index the link named, or looks in the two well-known places. */
async function fetchIndex(network: InstallNetwork, origin: string, indexUrl: string | null, signal?: AbortSignal): Promise<{ url: string; bytes: Uint8Array; document: unknown }> {
  const candidates = indexUrl ? [indexUrl] : [`${origin}${AGENT_SKILLS_INDEX}`, `${origin}${LEGACY_SKILLS_INDEX}`];
  for (const url of candidates) {
    try {
      const { value, bytes } = await network.getJson(url, { signal, maxBytes: 8 * 1024 * 1024 });
      return { url, bytes, document: value };
    } catch (error) {
      if (error instanceof InstallError && error.code === 'not-found' && url !== candidates[candidates.length - 1]) continue;
      if (error instanceof InstallError && error.code === 'not-found') {
        throw new InstallError('not-found', indexUrl ? `${indexUrl} was not found (404).` : `${new URL(origin).host} publishes no skills index (neither ${AGENT_SKILLS_INDEX} nor ${LEGACY_SKILLS_INDEX}).`);
      }
      throw error;
    }
  }
  throw new InstallError('not-found', `${origin} publishes no skills index.`);
}

export async function listWellKnown(network: InstallNetwork, target: { origin: string; indexUrl: string | null }, options: { signal?: AbortSignal; resolveDigests?: boolean } = {}): Promise<SourceListing> {
  const index = await fetchIndex(network, target.origin, target.indexUrl, options.signal);
  let parsed;
  try {
    parsed = parseSkillsIndex(index.document, index.url);
  } catch (error) {
    throw new InstallError('format', error instanceof Error ? error.message : String(error));
  }
  const revision = await sha256Digest(index.bytes);
  const skills = new Map<string, ListedSkill>();
  for (const entry of parsed.skills) skills.set(entry.name, await wellKnownSkill(network, entry, index.url, revision));
  if (options.resolveDigests) {
    // A v0.1 index carries no digest: the only way to see a change is to fetch and hash.
    for (const skill of skills.values()) if (skill.digestFromContent) await skill.fetch(options.signal);
  }
  return {
    kind: 'well-known',
    sourceKey: index.url,
    revision,
    title: index.url,
    rootName: new URL(index.url).hostname,
    skills,
    refused: parsed.refused.map((refused) => ({ archiveFolder: refused.name, reason: `the index entry was refused: ${refused.reason}` })),
  };
}

async function wellKnownSkill(network: InstallNetwork, entry: IndexEntry, indexUrl: string, revision: string): Promise<ListedSkill> {
  const name = entry.name;
  let upstreamDigest = '';
  let digestFromContent = false;
  let fetchOnce: DownloadSkill;
  if (entry.shape === 'v0.2') {
    upstreamDigest = entry.digest;
    fetchOnce = async (signal, onFile) => {
      const { bytes } = await network.get(entry.url, { signal });
      await checkDigest(`'${name}' (${entry.url})`, bytes, entry.digest);
      onFile?.(entry.url);
      if (entry.type === 'skill-md') return { files: [{ path: 'SKILL.md', bytes }], refused: [], ignored: [] };
      const read = readArchive(bytes, DEFAULT_ZIP_LIMITS);
      if (read.error) throw new InstallError('format', `'${name}': ${read.error}`);
      return { files: unwrapSingleFolder(read.files), refused: read.refused, ignored: read.ignored };
    };
  } else if (entry.shape === 'draft') {
    const files = entry.files;
    upstreamDigest = entry.digest ?? (await manifestDigest(files.map((file) => ({ path: file.path, hex: parseDigest(file.digest)! }))));
    fetchOnce = async (signal, onFile) => {
      const fetched = await mapLimited(files, 4, async (file): Promise<ZipFile> => {
        const { bytes } = await network.get(file.url, { signal, maxBytes: DEFAULT_ZIP_LIMITS.maxFileBytes });
        await checkDigest(`'${name}/${file.path}'`, bytes, file.digest);
        onFile?.(file.path);
        return { path: file.path, bytes };
      }, signal);
      if (entry.digest) {
        const actual = await manifestDigest(files.map((file) => ({ path: file.path, hex: parseDigest(file.digest)! })));
        if (actual !== entry.digest) throw new InstallError('digest', `'${name}' does not match its digest: the index says ${entry.digest}, its files make ${actual}. Nothing of it was installed.`);
      }
      return { files: fetched, refused: [], ignored: [] };
    };
  } else {
    digestFromContent = true;
    const files = entry.files;
    fetchOnce = async (signal, onFile) => {
      const fetched = await mapLimited(files, 4, async (file): Promise<ZipFile> => {
        const { bytes } = await network.get(file.url, { signal, maxBytes: DEFAULT_ZIP_LIMITS.maxFileBytes });
        onFile?.(file.path);
        return { path: file.path, bytes };
      }, signal);
      return { files: fetched, refused: [], ignored: [] };
    };
  }
  return listedSkill(
    {
      path: name,
      folder: name,
      url: indexUrl,
      revision,
      upstreamDigest,
      fileCount: entry.shape === 'v0.2' ? 1 : entry.files.length,
      digestFromContent,
    },
    fetchOnce,
  );
}
