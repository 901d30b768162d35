/**
 * A ClawHub skill as an install source (docs/install.md, "ClawHub"): `GET /skills/<slug>` names
 * its latest version, `GET /download?slug=&version=` serves that version as a zip. ClawHub
 * publishes no digest, so the upstream digest is the content hash of what it served; the
 * version is the revision, so an update check whose version did not move needs no download.
 */
import { DEFAULT_ZIP_LIMITS } from '../../skills/zipArchive';
import { readArchive, unwrapSingleFolder } from '../archive';
import { InstallError, type InstallNetwork } from '../installNetwork';
import { listedSkill, type SourceListing } from '../sourceTypes';

interface SkillResponse {
  skill: { slug: string; displayName?: string; summary?: string | null } | null;
  latestVersion: { version: string } | null;
  moderation?: { isMalwareBlocked?: boolean; isSuspicious?: boolean } | null;
}

export const clawhubSourceKey = (slug: string) => `clawhub:${slug}`;

export async function listClawhub(
  network: InstallNetwork,
  target: { slug: string; page: string | null },
  options: { signal?: AbortSignal; known?: { revision: string; upstreamDigest: string } } = {},
): Promise<SourceListing> {
  const api = network.hosts.clawhubApi;
  const { slug } = target;
  const { value } = await network.getJson<SkillResponse>(`${api}/skills/${encodeURIComponent(slug)}`, { signal: options.signal });
  const version = value?.latestVersion?.version;
  if (!value?.skill || typeof version !== 'string') throw new InstallError('not-found', `ClawHub has no published version of '${slug}'.`);
  const listing: SourceListing = { kind: 'clawhub', sourceKey: clawhubSourceKey(slug), revision: version, title: `ClawHub: ${slug}`, rootName: slug, skills: new Map(), refused: [] };
  if (value.moderation?.isMalwareBlocked) {
    listing.refused.push({ archiveFolder: slug, reason: 'ClawHub blocked this skill as malware; Knack will not install it' });
    return listing;
  }
  const unchanged = options.known && options.known.revision === version;
  const skill = listedSkill(
    {
      path: slug,
      folder: slug,
      url: target.page ?? `${new URL(api).origin}/skills/${encodeURIComponent(slug)}`,
      revision: version,
      upstreamDigest: unchanged ? options.known!.upstreamDigest : '',
      fileCount: null,
      digestFromContent: true,
    },
    async (signal, onFile) => {
      const { bytes } = await network.get(`${api}/download?slug=${encodeURIComponent(slug)}&version=${encodeURIComponent(version)}`, { signal });
      const read = readArchive(bytes, DEFAULT_ZIP_LIMITS);
      if (read.error) throw new InstallError('format', `ClawHub's archive of '${slug}': ${read.error}`);
      onFile?.(`${slug}@${version}`);
      return { files: unwrapSingleFolder(read.files), refused: read.refused, ignored: read.ignored };
    },
  );
  listing.skills.set(slug, skill);
  return listing;
}
