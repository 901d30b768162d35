/**
 * Install from a link (docs/install.md): classify what the user pasted, list the source, fetch
 * every skill's files (progress per file, Cancel between files), and plan them exactly as a zip
 * import (planFiles): the same review, the same scanner, collisions and bulk choices. Nothing is
 * written here; each candidate carries the InstalledSource that applyImport writes with it.
 */
import { skillContentHash, type InstalledSource } from '../skills/installedSource';
import { planFiles, type ImportPlan, type RefusedSkill } from '../skills/zipImport';
import type { RefusedEntry, ZipFile } from '../skills/zipArchive';
import { CancelledError, throttledProgress, type LongTaskOptions } from '../storage/progress';
import { classifyLink, type LinkTarget } from './classifyLink';
import { InstallError, InstallNetwork, REAL_INSTALL_HOSTS, type InstallNetworkOptions } from './installNetwork';
import { githubHosts, listGithub } from './sources/githubSource';
import { listWellKnown } from './sources/wellKnownSource';
import { listClawhub } from './sources/clawhubSource';
import { listRawSkill } from './sources/rawSkillSource';
import { asFileMaps, type ListedSkill, type SourceListing } from './sourceTypes';

export interface LinkLookup {
  plan: ImportPlan;
  /** Per import candidate id, its source record (installedAt is set when it is written: stampSources). */
  sources: Record<string, InstalledSource>;
  /** What it cost: requests and bytes. */
  requests: number;
  bytes: number;
}

/** Sorts the link into a source listing, asking only the hosts that link names. */
export async function listLink(target: Exclude<LinkTarget, { kind: 'refused' }>, options: InstallNetworkOptions, signal?: AbortSignal): Promise<{ listing: SourceListing; network: InstallNetwork }> {
  const hosts = options.hosts ?? REAL_INSTALL_HOSTS;
  switch (target.kind) {
    case 'github': {
      const network = new InstallNetwork(githubHosts({ hosts }), options);
      return { listing: await listGithub(network, target, { signal }), network };
    }
    case 'well-known': {
      const network = new InstallNetwork([target.origin], options);
      return { listing: await listWellKnown(network, target, { signal }), network };
    }
    case 'clawhub': {
      const network = new InstallNetwork([hosts.clawhubApi], options);
      return { listing: await listClawhub(network, target, { signal }), network };
    }
    case 'raw': {
      const network = new InstallNetwork([target.url], options);
      return { listing: await listRawSkill(network, target.url, { signal }), network };
    }
  }
}

/** Errors that refuse one skill and let the others through; anything else (offline, CORS, rate limit) stops the lookup. */
const PER_SKILL_CODES = new Set(['digest', 'host', 'not-found', 'too-large', 'format']);

export async function lookUpLink(
  link: string,
  options: InstallNetworkOptions & LongTaskOptions & { exists?: (name: string) => boolean },
): Promise<LinkLookup> {
  const target = classifyLink(link);
  if (target.kind === 'refused') throw new InstallError('format', target.message);
  const report = throttledProgress(options.onProgress);
  const signal = options.signal;
  report({ phase: 'Looking up', done: 0, total: 0, item: link.trim() });
  const { listing, network } = await listLink(target, options, signal).catch((error: unknown) => {
    if (signal?.aborted) throw new CancelledError('The lookup');
    throw error;
  });
  const skills = [...listing.skills.values()];
  const total = skills.reduce((sum, skill) => sum + (skill.fileCount ?? 1), 0);
  let done = 0;
  const files: ZipFile[] = [];
  const refused: RefusedEntry[] = [];
  const ignored: string[] = [];
  const refusedSkills: RefusedSkill[] = [...listing.refused];
  const fetched: ListedSkill[] = [];
  for (const skill of skills) {
    if (signal?.aborted) throw new CancelledError('The lookup');
    try {
      const got = await skill.fetch(signal, (path) => report({ phase: 'Downloading files', done: ++done, total, item: path }));
      const prefix = skill.folder === '' ? '' : `${skill.folder}/`;
      files.push(...got.files.map((file) => ({ ...file, path: prefix + file.path })));
      refused.push(...got.refused.map((entry) => ({ ...entry, path: prefix + entry.path })));
      ignored.push(...got.ignored.map((path) => prefix + path));
      fetched.push(skill);
    } catch (error) {
      if (signal?.aborted) throw new CancelledError('The lookup');
      if (error instanceof InstallError && PER_SKILL_CODES.has(error.code)) refusedSkills.push({ archiveFolder: skill.folder, reason: error.message });
      else throw error;
    }
  }
  report({ phase: 'Downloading files', done: total, total });
  const plan = planFiles({ files, refused, ignored, error: null, inflatedBytes: files.reduce((sum, file) => sum + file.bytes.length, 0) }, { archiveName: listing.title, rootName: listing.rootName, exists: options.exists });
  plan.refusedSkills.unshift(...refusedSkills);
  if (plan.error && files.length === 0) {
    plan.error = refusedSkills.length > 0 ? `Nothing here can be installed: ${refusedSkills.map((skill) => `${skill.archiveFolder || listing.rootName}: ${skill.reason}`).join(' ')}` : `No SKILL.md was found at ${listing.title}, so it holds no skill.`;
  }
  const byFolder = new Map(fetched.map((skill) => [skill.folder, skill]));
  const sources: Record<string, InstalledSource> = {};
  for (const candidate of plan.skills) {
    const skill = byFolder.get(candidate.archiveFolder);
    if (!skill) continue;
    const maps = asFileMaps({ files: candidate.files, refused: [], ignored: [] });
    sources[candidate.id] = {
      kind: listing.kind,
      url: skill.url,
      sourceKey: listing.sourceKey,
      path: skill.path,
      revision: skill.revision,
      upstreamDigest: skill.upstreamDigest,
      installedHash: await skillContentHash(maps.files, maps.modes),
      installedAt: '',
    };
  }
  return { plan, sources, requests: network.requests, bytes: network.bytes };
}

/** The records with the time they are written. */
export function stampSources(sources: Readonly<Record<string, InstalledSource>>, now: Date): Record<string, InstalledSource> {
  const iso = now.toISOString();
  return Object.fromEntries(Object.entries(sources).map(([id, source]) => [id, { ...source, installedAt: iso }]));
}
