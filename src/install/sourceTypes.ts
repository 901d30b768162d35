/**
 * The one interface every install source implements (docs/install.md, "Sources"): a listing of
 * the skills it serves at one revision, each able to fetch its own files. Install from a link
 * fetches every listed skill and plans them like a zip; Check for updates (upstream.ts) reads
 * the same listing.
 */
import { skillContentHash, type SourceKind } from '../skills/installedSource';
import type { RefusedEntry, ZipFile } from '../skills/zipArchive';
import type { RefusedSkill } from '../skills/zipImport';

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

/** A skill's files as a source served them, relative to its folder, with what was refused or ignored. */
export interface FetchedFiles {
  files: ZipFile[];
  refused: RefusedEntry[];
  ignored: string[];
}

export interface ListedSkill extends UpstreamSkill {
  /** Where its files go in the plan's list of files (the import candidate's archiveFolder). */
  folder: string;
  /** The link the skill view shows. */
  url: string;
  /** Files known before fetching (GitHub's tree), for progress; null when unknown. */
  fileCount: number | null;
  /** The digest is the content hash of what was fetched (the source publishes none): set by fetching. */
  digestFromContent: boolean;
  /** Fetches and checks the files (digests, blob ids); `onFile` hears each file as it arrives. */
  fetch(signal?: AbortSignal, onFile?: (path: string) => void): Promise<FetchedFiles>;
}

export interface SourceListing extends UpstreamListing {
  kind: SourceKind;
  /** What the review dialog's title names: the link as the user gave it, normalised. */
  title: string;
  /** The folder name of a skill at the source's root (a repository's name). */
  rootName: string;
  skills: Map<string, ListedSkill>;
  /** Entries the source lists but Knack will not install, with the reason. */
  refused: RefusedSkill[];
}

/** Modes as the ledger records them: the file's own, else 0o755 for executables and 0o644 for the rest. */
export function modeOf(file: ZipFile): number {
  return file.mode ?? (file.executable ? 0o755 : 0o644);
}

/** FetchedFiles as UpstreamSkill.fetchFiles returns them. */
export function asFileMaps(fetched: FetchedFiles): { files: Map<string, Uint8Array>; modes: Map<string, number> } {
  return { files: new Map(fetched.files.map((file) => [file.path, file.bytes])), modes: new Map(fetched.files.map((file) => [file.path, modeOf(file)])) };
}

/** A source's download of one skill's files. */
export type DownloadSkill = (signal?: AbortSignal, onFile?: (path: string) => void) => Promise<FetchedFiles>;

/**
 * A ListedSkill whose `fetch` downloads once per listing (the install and a digest check share
 * it; a failed download is tried afresh) and, when the source publishes no digest
 * (`digestFromContent`), sets `upstreamDigest` to the content hash of what arrived.
 */
export function listedSkill(fields: Omit<ListedSkill, 'fetch' | 'fetchFiles'>, download: DownloadSkill): ListedSkill {
  let cached: Promise<FetchedFiles> | null = null;
  const skill: ListedSkill = {
    ...fields,
    fetch: (signal, onFile) => {
      cached ??= download(signal, onFile)
        .then(async (fetched) => {
          if (skill.digestFromContent) {
            const maps = asFileMaps(fetched);
            skill.upstreamDigest = await skillContentHash(maps.files, maps.modes);
          }
          return fetched;
        })
        .catch((error: unknown) => {
          cached = null;
          throw error;
        });
      return cached;
    },
    fetchFiles: async (signal) => asFileMaps(await skill.fetch(signal)),
  };
  return skill;
}
