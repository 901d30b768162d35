/**
 * Digests a source gives (docs/install.md, "Digests"): `sha256:<64 hex>` of one artifact, and the
 * earlier well-known draft's per-skill manifest digest over its files. Checked with WebCrypto
 * before anything is written; a mismatch refuses that skill with both values shown.
 */
import { sha256Hex } from '../skills/ledger';
import { InstallError } from './installNetwork';

const DIGEST_RE = /^sha256:([0-9a-f]{64})$/;

/** The hex of a `sha256:<hex>` digest (lower-cased), or null when it is not one. */
export function parseDigest(digest: unknown): string | null {
  if (typeof digest !== 'string') return null;
  return DIGEST_RE.exec(digest.trim().toLowerCase())?.[1] ?? null;
}

export async function sha256Digest(bytes: Uint8Array): Promise<string> {
  return `sha256:${await sha256Hex(bytes)}`;
}

/** Throws a 'digest' InstallError naming both hashes when `bytes` do not hash to `expected`. */
export async function checkDigest(what: string, bytes: Uint8Array, expected: string): Promise<string> {
  const hex = parseDigest(expected);
  if (!hex) throw new InstallError('digest', `${what} has no usable digest ('${expected}'); a digest is "sha256:" and 64 hex digits.`);
  const actual = await sha256Hex(bytes);
  if (actual !== hex) {
    throw new InstallError('digest', `${what} does not match its digest: the index says sha256:${hex}, the download is sha256:${actual}. Nothing of it was installed; the file changed or was tampered with.`);
  }
  return `sha256:${actual}`;
}

/**
 * The draft index's manifest digest of a skill: its files sorted by path, one line
 * `<path>\0<hex>\n` each, hashed. `files` gives each path's own hex digest.
 */
export async function manifestDigest(files: ReadonlyArray<{ path: string; hex: string }>): Promise<string> {
  const lines = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).map((file) => `${file.path}\0${file.hex}\n`).join('');
  return `sha256:${await sha256Hex(new TextEncoder().encode(lines))}`;
}

/** Git's blob id of some bytes (SHA-1 of `blob <length>\0` + bytes): checks a raw GitHub file against its tree entry. */
export async function gitBlobSha(bytes: Uint8Array): Promise<string> {
  const header = new TextEncoder().encode(`blob ${bytes.length}\0`);
  const all = new Uint8Array(header.length + bytes.length);
  all.set(header);
  all.set(bytes, header.length);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-1', all));
  return [...hash].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}
