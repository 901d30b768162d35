import type { FileStore } from '../storage/fileStore';
import type { RecordStore } from '../storage/recordStore';
import type { LedgerActor } from '../tools/writeContext';
import type { Clock } from './usageStore';
import { systemClock } from './usageStore';

/**
 * The audit ledger: every mutation of a skill, with the file hashes before and after and the
 * content-addressed blobs needed to put either side back (docs/storage.md, guarantee 5).
 */
export interface FileVersion {
  path: string;
  hash: string;
}

export interface LedgerEntry {
  id: string;
  ts: string;
  /** Epoch milliseconds of `ts`, for the IndexedDB `byTime` index. */
  at: number;
  actor: LedgerActor;
  action: string;
  skill: string;
  before: FileVersion[];
  after: FileVersion[];
  evidence: Record<string, unknown>;
  /** For `rollback` entries: the entry that was rolled back. */
  rollbackOf?: string;
}

export interface BlobRecord {
  hash: string;
  bytes: Uint8Array;
}

/** path → bytes of every file under a skill directory at one moment. */
export type SkillFiles = Map<string, Uint8Array>;

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Reads every file under `dir` (e.g. `skills/git/commit-style`). `alreadyRead` holds bytes the
 * caller read under the same skill lock; those files are not read again.
 */
export async function captureFiles(files: FileStore, dir: string, alreadyRead?: SkillFiles, listed?: string[]): Promise<SkillFiles> {
  const captured: SkillFiles = new Map();
  // `listed`: the caller walked `dir` under the same skill lock (alongside its own read).
  const paths = listed ?? (await files.walk(dir));
  const contents = await Promise.all(paths.map((path) => alreadyRead?.get(path) ?? files.read(path)));
  paths.forEach((path, i) => {
    const bytes = contents[i];
    if (bytes) captured.set(path, bytes);
  });
  return captured;
}

let idCounter = 0;
/**
 * No lost update (docs/storage.md): entries are appended under fresh ids and never rewritten;
 * blobs are content-addressed and stored only where none is (one transaction, `storeVersions`).
 */
function newEntryId(now: Date): string {
  // Sortable by time, unique within one context, and unlikely to collide across tabs.
  idCounter = (idCounter + 1) % 1296;
  const random = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, '0');
  return `${now.getTime().toString(36).padStart(9, '0')}-${idCounter.toString(36).padStart(2, '0')}${random}`;
}

/** What one ledger entry is made from. */
export interface PrepareInput {
  actor: LedgerActor;
  action: string;
  skill: string;
  before: SkillFiles;
  after: SkillFiles;
  evidence?: Record<string, unknown>;
  rollbackOf?: string;
  keepUnchanged?: boolean;
}

export class Ledger {
  constructor(
    private readonly entries: RecordStore<LedgerEntry>,
    private readonly blobs: RecordStore<BlobRecord>,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * Hashes every file of every side at once and stores the blobs not stored yet, in one
   * transaction where the store has them (one round trip instead of a get and a put per file).
   */
  private async storeVersions(...sides: SkillFiles[]): Promise<FileVersion[][]> {
    const hashed = await Promise.all(
      sides.map((files) => Promise.all([...files].map(async ([path, bytes]) => ({ path, hash: await sha256Hex(bytes), bytes })))),
    );
    const blobs = new Map<string, Uint8Array>();
    for (const side of hashed) for (const { hash, bytes } of side) blobs.set(hash, bytes);
    const hashes = [...blobs.keys()];
    await this.blobs.updateMany(hashes, (stored) => ({
      put: hashes.filter((_, i) => !stored[i]).map((hash): [string, BlobRecord] => [hash, { hash, bytes: blobs.get(hash)! }]),
    }));
    return hashed.map((side) => side.map(({ path, hash }): FileVersion => ({ path, hash })).sort((a, b) => (a.path < b.path ? -1 : 1)));
  }

  /**
   * Stores the bytes of files no entry side holds (an installed skill's upstream files, the base of
   * its next update: docs/install.md, "The three-way merge") and returns their versions.
   */
  async storeBlobs(files: SkillFiles): Promise<FileVersion[]> {
    return (await this.storeVersions(files))[0]!;
  }

  /**
   * Builds one entry and stores the blobs it refers to, without appending it: the entry is
   * appended when the change it describes is committed (see commitEffects.ts). Paths whose
   * content is the same before and after are left out, so an entry shows only what changed.
   */
  async prepare(input: PrepareInput): Promise<LedgerEntry> {
    return (await this.prepareMany([input]))[0]!;
  }

  /** `prepare` for several changes (a batched import): their blobs are stored in one transaction. */
  async prepareMany(inputs: readonly PrepareInput[]): Promise<LedgerEntry[]> {
    const versions = await this.storeVersions(...inputs.flatMap((input) => [input.before, input.after]));
    return inputs.map((input, i) => this.entryFor(input, versions[2 * i]!, versions[2 * i + 1]!));
  }

  private entryFor(input: PrepareInput, storedBefore: FileVersion[], storedAfter: FileVersion[]): LedgerEntry {
    let [before, after] = [storedBefore, storedAfter];
    if (!input.keepUnchanged) {
      const afterHash = new Map(after.map((v) => [v.path, v.hash]));
      const beforeHash = new Map(before.map((v) => [v.path, v.hash]));
      before = before.filter((v) => afterHash.get(v.path) !== v.hash);
      after = after.filter((v) => beforeHash.get(v.path) !== v.hash);
    }
    const now = this.clock();
    return {
      id: newEntryId(now),
      ts: now.toISOString(),
      at: now.getTime(),
      actor: input.actor,
      action: input.action,
      skill: input.skill,
      before,
      after,
      evidence: input.evidence ?? {},
      ...(input.rollbackOf ? { rollbackOf: input.rollbackOf } : {}),
    };
  }

  /** Appends prepared entries in one transaction (a batched import); idempotent like `append`. */
  async appendMany(entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length === 1) return this.append(entries[0]!);
    await this.entries.putMany(entries.map((entry): [string, LedgerEntry] => [entry.id, entry]));
  }

  /** Appends a prepared entry; appending the same entry twice keeps one. */
  async append(entry: LedgerEntry): Promise<void> {
    await this.entries.put(entry.id, entry);
  }

  /** Prepare and append in one go, for changes that need no journal. */
  async record(input: PrepareInput): Promise<LedgerEntry> {
    const entry = await this.prepare(input);
    await this.append(entry);
    return entry;
  }

  async get(id: string): Promise<LedgerEntry | undefined> {
    return this.entries.get(id);
  }

  /** Entries oldest first; optionally only one skill's. */
  async list(skill?: string): Promise<LedgerEntry[]> {
    // One skill's entries through the `bySkill` index (ids are time-ordered, so key order is
    // oldest first): opening a skill must not read every skill's history.
    if (skill !== undefined && this.entries.getAllByIndex) {
      // A store opened without the index (some test stores) falls back to the full read.
      const indexed = await this.entries.getAllByIndex('bySkill', skill).catch(() => null);
      if (indexed) return indexed;
    }
    const all = await this.entries.getAll();
    return skill === undefined ? all : all.filter((entry) => entry.skill === skill);
  }

  async blob(hash: string): Promise<Uint8Array | null> {
    return (await this.blobs.get(hash))?.bytes ?? null;
  }

  /**
   * What rolling back `entry` must do: files to write back (the `before` side) and files the
   * mutation created that must go. Fails before anything changes when a blob is missing.
   */
  async planRollback(entry: LedgerEntry): Promise<{ writes: Map<string, Uint8Array>; deletes: string[] }> {
    const writes = new Map<string, Uint8Array>();
    for (const version of entry.before) {
      const bytes = await this.blob(version.hash);
      if (!bytes) throw new Error(`Ledger blob ${version.hash.slice(0, 12)} for ${version.path} is missing; cannot roll back.`);
      writes.set(version.path, bytes);
    }
    const deletes = entry.after.map((v) => v.path).filter((path) => !writes.has(path));
    return { writes, deletes };
  }
}
