/**
 * A place the skill library syncs with (docs/sync.md): a GitHub repository, a git server over
 * smart HTTP, or a folder on this computer. The sync core (three-way per skill, compare-and-swap
 * pushes, retries) is written once against this interface; each place is one small
 * implementation. Paths are relative to the library root in the place (the subfolder, if any, is
 * the transport's business): `<skill>/SKILL.md`, `<category>/<skill>/...`, `.knack/...`.
 *
 * Every method that talks to a host takes an AbortSignal and throws `SyncPlaceError` with a
 * message a user can act on (what to set on the server, which token scope is missing, when the
 * rate limit resets).
 */

export type SyncPlaceKind = 'github' | 'git' | 'folder';

/** One file in a remote tree: an id that changes when its bytes change, and its mode. */
export interface RemoteEntry {
  /** git's blob SHA-1 for git and GitHub; a hash of the bytes (or of size + mtime) for a folder. */
  id: string;
  /** 0o644 or 0o755 where the place keeps modes; 0o644 where it cannot (the core keeps modes in `.knack/`). */
  mode: number;
}

/** The listing of the remote library at one head: no bytes, so a sync reads only what changed. */
export interface RemoteTree {
  head: string;
  entries: Map<string, RemoteEntry>;
}

/** A compare-and-swap change: applied only if the remote is still at `expectedHead`. */
export interface RemoteChange {
  /** null: the remote is empty (no branch, empty folder) and must still be. */
  expectedHead: string | null;
  writes: Map<string, { bytes: Uint8Array; mode: number }>;
  deletes: string[];
  /** A commit message where the place keeps history. */
  message: string;
}

export interface SyncTransport {
  readonly kind: SyncPlaceKind;
  /**
   * The remote's current head (commit SHA, or a version id of the folder's listing); null when
   * the remote is empty. One request where the place allows it: a sync that finds the head it
   * last synced and has nothing to send stops here.
   */
  readHead(signal?: AbortSignal): Promise<string | null>;
  /** The listing at `head` (as `readHead` returned it). */
  readTree(head: string, signal?: AbortSignal): Promise<RemoteTree>;
  /** The bytes of `paths` at `head`; a missing path is an error, never an empty file. */
  readFiles(head: string, paths: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>>;
  /**
   * Writes `change` on top of `change.expectedHead` as one step (one commit; for a folder, after
   * re-reading its listing) and returns the new head. Throws `RemoteMovedError` when the remote
   * is no longer at `expectedHead`: the core then reads, merges and tries again.
   */
  commit(change: RemoteChange, signal?: AbortSignal): Promise<string>;
}

/** The remote moved since it was read: nothing was written. */
export class RemoteMovedError extends Error {
  constructor(readonly actualHead: string | null) {
    super('The remote changed while this device was syncing; nothing was written.');
    this.name = 'RemoteMovedError';
  }
}

export type SyncPlaceProblem = 'cors' | 'auth' | 'not-found' | 'rate-limit' | 'offline' | 'refused' | 'other';

/** A place refused or failed: `message` says what happened and what to do next. */
export class SyncPlaceError extends Error {
  constructor(
    message: string,
    readonly problem: SyncPlaceProblem,
    /** For `rate-limit`: when the limit resets (ISO time). */
    readonly resetAt: string | null = null,
  ) {
    super(message);
    this.name = 'SyncPlaceError';
  }
}
