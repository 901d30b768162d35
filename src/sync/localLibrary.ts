/**
 * The library as the sync core sees it (docs/sync.md): skills by name, each with its files,
 * their modes and its records. `skillLibrary.ts` implements it over the skill engine (every
 * write through the skill's lock, the journal and the ledger); unit tests use the same one on
 * the in-memory stores.
 */
import type { ArrivedVerdict } from '../skills/modelVerdicts';
import type { KnackSkillRecord } from './syncLayout';
import type { SyncedFiles } from './syncState';

export interface LocalSkill {
  name: string;
  files: SyncedFiles;
  /** What this device knows of the skill: its installed source and its own verdicts. */
  record: KnackSkillRecord;
}

export type RemoveResult = { ok: true } | { ok: false; error: string };

export interface LocalLibrary {
  /** The names of the skills that sync: top-level skills, not archived ones. */
  list(): Promise<string[]>;
  read(name: string): Promise<LocalSkill | null>;
  /**
   * A skill that came from the place and is new here (already scanned). `verdicts`: those
   * another device measured on exactly these files, kept as this skill's verdicts in the same
   * commit (docs/sync.md, "Proof travels").
   */
  create(name: string, files: SyncedFiles, verdicts?: readonly ArrivedVerdict[]): Promise<void>;
  /** New files for a skill that exists here (already scanned or merged); `verdicts` as for create. */
  update(name: string, files: SyncedFiles, verdicts?: readonly ArrivedVerdict[]): Promise<void>;
  /** Verdicts another device measured on the files this skill already has here. */
  acceptVerdicts(name: string, verdicts: readonly ArrivedVerdict[]): Promise<void>;
  /** Deleted at the place: deleted here, ledgered, so it can be restored. */
  remove(name: string): Promise<RemoveResult>;
  /** The record's installed source, kept with the skill's usage record. */
  applyRecord(name: string, record: KnackSkillRecord): Promise<void>;
}
