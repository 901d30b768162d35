/**
 * Where an installed skill came from, and the canonical hash of a skill's files. Install from a
 * link (src/install/), Check for updates, backup/restore, export and sync (src/sync/) all read
 * the same record, so it lives here in the skills layer (docs/install.md).
 *
 * Three values decide what an update or a sync may do without asking: the upstream digest (what
 * the source says it serves now), the installed hash (what we wrote when we installed or last
 * updated) and the skill's current hash. Current = installed means "not edited here".
 */

// Not ledger.ts's sha256Hex: the ledger imports the usage store, which imports this module's type.
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The kinds of place a skill can be installed from. */
export type SourceKind = 'github' | 'well-known' | 'clawhub' | 'raw';

export interface InstalledSource {
  kind: SourceKind;
  /** What the user typed or the index named, normalised (the link the skill view shows). */
  url: string;
  /**
   * What one "check for updates" request asks, shared by every skill of the same source: the
   * repository (`github:owner/repo@ref`), the index URL, the ClawHub slug, or the raw URL.
   */
  sourceKey: string;
  /** Inside the source: the skill's folder in the repository, its index name, or '' for one file. */
  path: string;
  /** The exact revision installed: a commit SHA, an index digest, a ClawHub version. */
  revision: string;
  /** The upstream's own digest of the skill when it gives one (`sha256:…`), else the content hash of what it served. */
  upstreamDigest: string;
  /** `skillContentHash` of the files as installed (or as last updated). */
  installedHash: string;
  /** ISO time of the install or the last update. */
  installedAt: string;
}

/**
 * A canonical hash of a skill's files and modes: paths sorted by code unit, each as
 * `<path>\0<mode octal>\0<sha256 of bytes>\n`, then sha256 of that text. Independent of the order
 * files were read in, of where the skill lives, and of anything outside its folder. A file with no
 * mode recorded counts as 0o644.
 */
export async function skillContentHash(files: ReadonlyMap<string, Uint8Array>, modes?: ReadonlyMap<string, number>): Promise<string> {
  const paths = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hashes = await Promise.all(paths.map((path) => sha256Hex(files.get(path)!)));
  const lines = paths.map((path, i) => `${path}\0${(modes?.get(path) ?? 0o644).toString(8)}\0${hashes[i]}\n`).join('');
  return `sha256:${await sha256Hex(new TextEncoder().encode(lines))}`;
}
