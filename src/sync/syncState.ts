/**
 * What this device remembers between syncs (IndexedDB `sync`, docs/sync.md, "What is kept
 * here"): the head it last synced with, and per skill the last synced version — its files with
 * their bytes and modes, and the remote ids they had — which is the base of the next three-way
 * merge. Conflicts keep the remote version next to the local one until the user decides; skills
 * that came in dangerous are held here, out of the library. The bytes are kept inline: a base is
 * read whole when its skill changed, and a skill is small (docs/storage.md).
 */
import type { RecordStore } from '../storage/recordStore';
import type { Finding } from '../skills/scanner';
import type { KnackSkillRecord, SyncedVerdict } from './syncLayout';

export interface SyncedFile {
  bytes: Uint8Array;
  mode: number;
}

export type SyncedFiles = Map<string, SyncedFile>;

/** A skill as it was when this device and the place last agreed on it. */
export interface SyncBase {
  name: string;
  files: SyncedFiles;
  /** The place's ids of those files (path → id), to see what changed there without reading bytes. */
  remoteIds: Record<string, string>;
  /** The place's id of the skill's `.knack` record, or null when there was none. */
  recordId: string | null;
  /** The record's bytes as last agreed, to see a record changed here (a new verdict). */
  recordBytes: Uint8Array | null;
}

/** A skill edited on both sides in the same lines: both versions stay until the user decides. */
export interface SyncConflict {
  name: string;
  /** The remote version (the other device's), kept whole so nothing is dropped. */
  theirs: SyncedFiles;
  theirsIds: Record<string, string>;
  theirsRecordId: string | null;
  /** The files in conflict. */
  paths: string[];
  at: string;
}

/** A skill that came in dangerous: not written to the library until the user says so. */
export interface HeldSkill {
  name: string;
  files: SyncedFiles;
  remoteIds: Record<string, string>;
  findings: Pick<Finding, 'severity' | 'file' | 'description'>[];
  at: string;
}

export interface SyncPlaceState {
  /** Identifies the place (kind + URL + branch + folder): a different place starts afresh. */
  placeKey: string;
  lastHead: string | null;
  lastSyncedAt: string | null;
}

/** Verdicts another device measured on the exact content this device has (docs/sync.md, "Proof travels"). */
export interface ArrivedVerdicts {
  name: string;
  verdicts: SyncedVerdict[];
  record: KnackSkillRecord;
}

type SyncRecord = SyncBase | SyncConflict | HeldSkill | SyncPlaceState | ArrivedVerdicts;

const PLACE = 'place';
const key = {
  base: (name: string) => `base:${name}`,
  conflict: (name: string) => `conflict:${name}`,
  held: (name: string) => `held:${name}`,
  verdicts: (name: string) => `verdicts:${name}`,
};

export class SyncStateStore {
  constructor(private readonly records: RecordStore<SyncRecord>) {}

  async place(): Promise<SyncPlaceState | null> {
    return ((await this.records.get(PLACE)) as SyncPlaceState | undefined) ?? null;
  }

  setPlace(state: SyncPlaceState): Promise<void> {
    return this.records.put(PLACE, state);
  }

  /** Forgets everything (Disconnect, or a different place): the next sync starts without bases. */
  clear(): Promise<void> {
    return this.records.clear();
  }

  async bases(): Promise<Map<string, SyncBase>> {
    const out = new Map<string, SyncBase>();
    for (const record of await this.records.getAll()) if ('remoteIds' in record && 'recordId' in record && !('findings' in record)) out.set(record.name, record as SyncBase);
    return out;
  }

  /** Writes and removes bases in one transaction. */
  async putBases(bases: readonly SyncBase[], removed: readonly string[] = []): Promise<void> {
    if (bases.length === 0 && removed.length === 0) return;
    await this.records.updateMany([], () => ({ put: bases.map((base): [string, SyncRecord] => [key.base(base.name), base]), remove: removed.map(key.base) }));
  }

  async conflicts(): Promise<SyncConflict[]> {
    return (await this.records.getAll()).filter((record): record is SyncConflict => 'theirsIds' in record);
  }

  async conflict(name: string): Promise<SyncConflict | null> {
    return ((await this.records.get(key.conflict(name))) as SyncConflict | undefined) ?? null;
  }

  putConflict(conflict: SyncConflict): Promise<void> {
    return this.records.put(key.conflict(conflict.name), conflict);
  }

  removeConflict(name: string): Promise<void> {
    return this.records.delete(key.conflict(name));
  }

  async held(): Promise<HeldSkill[]> {
    return (await this.records.getAll()).filter((record): record is HeldSkill => 'findings' in record);
  }

  putHeld(held: HeldSkill): Promise<void> {
    return this.records.put(key.held(held.name), held);
  }

  removeHeld(name: string): Promise<void> {
    return this.records.delete(key.held(name));
  }

  async arrivedVerdicts(name: string): Promise<ArrivedVerdicts | null> {
    return ((await this.records.get(key.verdicts(name))) as ArrivedVerdicts | undefined) ?? null;
  }

  putArrivedVerdicts(arrived: ArrivedVerdicts): Promise<void> {
    return this.records.put(key.verdicts(arrived.name), arrived);
  }
}
