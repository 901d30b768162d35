/**
 * What a source serves now, for Check for updates and Update (docs/install.md, "The record"):
 * `readUpstream(source)` asks the source once — one commit and one trees request per GitHub
 * repository, one index per site, one skill request per ClawHub slug, the file itself for a raw
 * SKILL.md — and lists its skills by the path an InstalledSource records. Each skill fetches its
 * own files only when asked (the update), with every digest checked as on install.
 */
import type { InstalledSource } from '../skills/installedSource';
import { InstallError, InstallNetwork, REAL_INSTALL_HOSTS, type InstallNetworkOptions } from './installNetwork';
import { githubHosts, listGithub, parseGithubSourceKey } from './sources/githubSource';
import { listWellKnown } from './sources/wellKnownSource';
import { listClawhub } from './sources/clawhubSource';
import { listRawSkill } from './sources/rawSkillSource';
import type { SourceListing, UpstreamListing } from './sourceTypes';

export type { UpstreamListing, UpstreamSkill } from './sourceTypes';

export type ReadUpstream = (source: InstalledSource, signal?: AbortSignal) => Promise<UpstreamListing>;

/** A ReadUpstream over the real hosts (or, in tests, the ones given). Each call makes its own network, allowed only the source's hosts. */
export function createReadUpstream(options: InstallNetworkOptions = {}): ReadUpstream {
  return async (source, signal) => listSource(source, options, signal);
}

async function listSource(source: InstalledSource, options: InstallNetworkOptions, signal?: AbortSignal): Promise<SourceListing> {
  switch (source.kind) {
    case 'github': {
      const target = parseGithubSourceKey(source.sourceKey);
      if (!target) throw new InstallError('format', `'${source.sourceKey}' is not a GitHub source key.`);
      const hosts = options.hosts ?? REAL_INSTALL_HOSTS;
      const network = new InstallNetwork(githubHosts({ hosts }), options);
      return listGithub(network, { ...target, path: '' }, { signal, everyFolder: true });
    }
    case 'well-known': {
      const network = new InstallNetwork([source.sourceKey], options);
      return listWellKnown(network, { origin: new URL(source.sourceKey).origin, indexUrl: source.sourceKey }, { signal, resolveDigests: true });
    }
    case 'clawhub': {
      const slug = source.sourceKey.replace(/^clawhub:/, '');
      const network = new InstallNetwork([(options.hosts ?? REAL_INSTALL_HOSTS).clawhubApi], options);
      const listing = await listClawhub(network, { slug, page: source.url }, { signal, known: { revision: source.revision, upstreamDigest: source.upstreamDigest } });
      // A new version publishes no digest: fetching it is how its content hash is known.
      for (const skill of listing.skills.values()) if (!skill.upstreamDigest) await skill.fetch(signal);
      return listing;
    }
    case 'raw': {
      const network = new InstallNetwork([source.sourceKey], options);
      const listing = await listRawSkill(network, source.sourceKey, { signal });
      for (const skill of listing.skills.values()) await skill.fetch(signal);
      return listing;
    }
  }
}
