import type { FileStore, LockManager } from '../storage/fileStore';
import type { SkillCatalog } from './skillCatalog';
import type { UsageStore, Clock } from './usageStore';
import type { Ledger } from './ledger';
import type { PendingStore } from '../tools/pendingWrites';
import type { ChangeCommitter } from './fileChanges';

/**
 * Everything the skill tools need, passed in once. The app builds it on OPFS/IndexedDB
 * (src/app), unit tests build it on the in-memory stores (tests/unit/skillTestEngine.ts).
 */
export interface SkillSettings {
  /** Write approval for skill writes: off, every origin, or the review agent only. */
  writeApproval: 'off' | 'all' | 'review';
  /** Scan every model write (on by default; SPEC §6). */
  scanModelWrites: boolean;
  /** Skills the user switched off: hidden from the index and refused by skill_view. */
  disabled: string[];
  /** The platform skills are matched against; null = every platform matches (a browser). */
  platform: string | null;
  /** Token budget of the skill index in the system prompt (~4 characters a token). */
  indexTokenBudget: number;
}

export const defaultSkillSettings: SkillSettings = {
  writeApproval: 'off',
  scanModelWrites: true,
  disabled: [],
  platform: null,
  indexTokenBudget: 2500,
};

export type SkillChange = { skill: string; action: string; dir: string };

export interface SkillEngine {
  files: FileStore;
  locks: LockManager;
  catalog: SkillCatalog;
  usage: UsageStore;
  ledger: Ledger;
  pending: PendingStore;
  committer: ChangeCommitter;
  settings: () => SkillSettings;
  clock: Clock;
  /** Told after every committed change (BroadcastChannel in the app). */
  onChange?: (change: SkillChange) => void;
}

export const skillLockKey = (name: string) => `skill:${name}`;
