/**
 * The shape of what a source serves, as src/install/upstream.ts (the install side) implements it.
 * Kept here until that module is merged; update.ts codes against these types only.
 */
import type { InstalledSource } from '../skills/installedSource';

export interface UpstreamSkill {
  path: string;
  revision: string;
  upstreamDigest: string;
  fetchFiles(signal?: AbortSignal): Promise<{ files: Map<string, Uint8Array>; modes: Map<string, number> }>;
}

/** Keyed by InstalledSource.path. */
export interface UpstreamListing {
  sourceKey: string;
  revision: string;
  skills: Map<string, UpstreamSkill>;
}

export type ReadUpstream = (source: InstalledSource, signal?: AbortSignal) => Promise<UpstreamListing>;
