import type { FileStore, LockManager } from '../storage/fileStore';
import type { SkillCatalog } from './skillCatalog';
import type { UsageStore, Clock } from './usageStore';
import type { Ledger } from './ledger';
import type { PendingStore } from '../tools/pendingWrites';
import type { ChangeCommitter } from './fileChanges';
import type { WriteOrigin } from '../tools/writeContext';
import type { RouterMode } from './skillRouter';

/**
 * Everything the skill tools need, passed in once. The app builds it on OPFS/IndexedDB
 * (src/app), unit tests build it on the in-memory stores (tests/unit/skillTestEngine.ts).
 */
export interface SkillSettings {
  /** Write approval for skill writes: off, every origin, or the review agent only. */
  writeApproval: 'off' | 'all' | 'review';
  /** Scan every model write (on by default; docs/skill-tools.md). */
  scanModelWrites: boolean;
  /** Skills the user switched off: hidden from the index and refused by skill_view. */
  disabled: string[];
  /** The platform skills are matched against; null = every platform matches (a browser). */
  platform: string | null;
  /** Token budget of the skill index in the system prompt (~4 characters a token). */
  indexTokenBudget: number;
  /** The skill router (skillRouter.ts): `auto` = on for small windows and the text tool protocol. */
  router?: RouterMode;
}

export const defaultSkillSettings: SkillSettings = {
  writeApproval: 'off',
  scanModelWrites: true,
  disabled: [],
  platform: null,
  indexTokenBudget: 2500,
  router: 'auto',
};

export type SkillChange = { skill: string; action: string; dir: string };

/**
 * A skill's verification as the models may see it (skill_view): the verdict of the current
 * run, with the ids of the development cases the skill still fails, and nothing about the
 * held-out cases (docs/gate.md, "What the models see"). Built by gate/verificationViews.ts.
 */
export interface SkillVerificationView {
  verdict: string;
  code: string;
  reason: string;
  devFailingCaseIds: (string | number)[];
  /** SKILL.md or evals/ changed since the run: the verdict is about earlier bytes. */
  stale: boolean;
}

/**
 * What the skill tools read of the gate, injected because skills sit below it
 * (gate/verificationViews.ts `gateVerificationSource`).
 */
export interface SkillVerificationSource {
  /** The blinded verification for skill_view; null when the gate never ran on the skill. */
  view(name: string): Promise<SkillVerificationView | null>;
  /** The bytes of `evals/verification.json` for an export; null when there is no current verdict. */
  sidecar(name: string): Promise<Uint8Array | null>;
}

/** What a file rule knows about the write it checks. */
export interface SkillFileRuleContext {
  /** The skill's name. */
  skill: string;
  /** Reads a file of the skill's folder as it is before this write (relative path); null when absent. */
  readFile(relativePath: string): Promise<Uint8Array | null>;
  /** Who writes: the forged-tool repair rule applies to the review's rewrites. */
  origin?: WriteOrigin;
}

/** A file rule's answer: `error` refuses the write (with `problems` for the model), `warnings` go along with a success. */
export interface SkillFileRuleResult {
  error?: string;
  problems?: unknown;
  warnings?: string[];
}

/**
 * Extra checks on particular files of a skill, injected because skills sit below the modules
 * that own those formats (the gate's evals/evals.json). null: no rule for this path.
 */
export type SkillFileRules = (relativePath: string, text: string, context: SkillFileRuleContext) => Promise<SkillFileRuleResult | null>;

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
  /** The gate's verdicts, for skill_view and export; absent = no verification is shown or exported. */
  verification?: SkillVerificationSource;
  /** Checks of particular files on skill_manage write_file and patch; absent = none. */
  fileRules?: SkillFileRules;
}

export const skillLockKey = (name: string) => `skill:${name}`;
