/**
 * What a lifecycle action hands to the commit helper (skillLifecycle.ts): the plan of one change
 * to one skill. Its own module so planners (rollback.ts) and the helper share it without a cycle.
 */
import type { LedgerActor } from '../tools/writeContext';
import type { UsageEffect } from './commitEffects';
import type { FileChangeSet } from './fileChanges';
import type { SkillFiles } from './ledger';

export type LifecycleFailure = { success: false; error: string };

/** One change to one skill, planned under its lock. */
export interface SkillChange<T> {
  skill: string;
  /** The ledger entry's action and the change event's action. */
  action: string;
  /** The folder the change event names, so other contexts re-read it. */
  dir: string;
  /** Files to change and the two sides of the ledger entry; absent for record-only changes. */
  files?: {
    actor: LedgerActor;
    /** Journal label of the change. */
    label: string;
    before: SkillFiles;
    after: SkillFiles;
    changes: FileChangeSet;
    evidence?: Record<string, unknown>;
    rollbackOf?: string;
  };
  /** Usage-record updates, applied with the files (or alone for a record-only change). */
  usage?: UsageEffect[];
  /** Work after the commit point: tidying folders, updating the catalogue. */
  settle?: () => Promise<void>;
  result: T;
}

