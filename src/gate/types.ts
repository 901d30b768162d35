import type { DescriptionTrial, ReachRecord } from './reachTypes';

/**
 * The verification gate's shared vocabulary (docs/gate.md). Plain data only: every module of
 * src/gate/ speaks these types, and nothing here computes anything.
 */

/** One mechanical check of an answer. `value` depends on the type (see checks.ts). */
export type CheckType =
  | 'contains'
  | 'not_contains'
  | 'icontains'
  | 'not_icontains'
  | 'contains_any'
  | 'icontains_any'
  | 'contains_all'
  | 'icontains_all'
  | 'regex'
  | 'not_regex'
  | 'equals'
  | 'starts_with'
  | 'ends_with'
  | 'is_json'
  | 'length';

export interface Check {
  type: CheckType;
  /** string for most types, string[] for *_any / *_all, {min?, max?} for length, absent for is_json. */
  value?: unknown;
  /** regex / not_regex only: a subset of "imsu". */
  flags?: string;
}

export interface CaseMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Provenance Knack adds to a case; missing = imported. */
export interface CaseProvenance {
  /**
   * `chat`: the user's own request in a later chat (not the one that taught the skill), added
   * from **Cases from your chats** — independent of the skill's author (docs/gate.md,
   * "Independent cases").
   */
  origin: 'review' | 'user' | 'import' | 'chat';
  /** The literal prompt of the teaching conversation: always kept in dev. */
  source?: boolean;
  /** The chat the case came from. */
  session_id?: string;
  /** That chat's title when the case was added. */
  session_title?: string;
  run_id?: string;
  created_at?: string;
}

/** One eval of `evals/evals.json` (skill-creator shape plus Knack's fields). */
export interface EvalCase {
  id: string | number;
  prompt: string;
  expected_output?: string;
  files?: string[];
  /** Shown to people, never scored (`assertions` is read as an alias). */
  expectations?: string[];
  messages?: CaseMessage[];
  checks?: Check[];
  knack?: CaseProvenance;
  /**
   * false: a near miss the skill must not be loaded for (docs/gate-cases.md). It measures reach
   * only (a load there is a false trigger) and is never replayed. Absent or true: a trigger case.
   */
  should_trigger?: boolean;
  /** Unknown fields are kept as they were. */
  [field: string]: unknown;
}

export interface EvalsFile {
  skill_name?: string;
  evals: EvalCase[];
  [field: string]: unknown;
}

/** A case ready to replay: files inlined by content, checks validated. */
export interface ScorableCase {
  id: string | number;
  prompt: string;
  messages: CaseMessage[];
  /** Supporting files named by the case, with their text, in the order listed. */
  files: { path: string; text: string; sha256: string }[];
  checks: Check[];
  source: boolean;
  /** A request from a later chat (`knack.origin: "chat"`): held out first (split.ts). */
  independent?: boolean;
  /**
   * Malformed checks left out of `checks` (and so of k), each as "checks[i].field: why";
   * absent when every check was kept. A case whose checks are all malformed is excluded instead.
   */
  ignoredChecks?: string[];
}

export interface ExcludedCase {
  id: string | number;
  reason: string;
}

export interface SplitCase extends ScorableCase {
  side: 'dev' | 'holdout';
  /** Hex SHA-256 split key (salted; see split.ts). */
  key: string;
}

export interface Split {
  dev: SplitCase[];
  holdout: SplitCase[];
  excluded: ExcludedCase[];
  /**
   * Cases left out of this run by the cost cap (split.ts MAX_CASES_PER_RUN), in key order, each
   * still on its side. Absent or empty = every scorable case runs.
   */
  notRun?: SplitCase[];
}

export type ArmStatus = 'ok' | 'error' | 'empty' | 'truncated' | 'too-long';

export interface ArmResult {
  status: ArmStatus;
  /** Checks passed (0 unless status is ok, or too-long in the with-skill arm). */
  passed: number;
  /** Per check, in case order; empty when the arm was not scored. */
  checkPass: boolean[];
  /** Replay cache key of the request (cacheKey.ts). */
  outputRef: string;
  /** First 500 characters of the answer text (render it sanitised). */
  excerpt: string;
  fromCache?: boolean;
  error?: string;
}

export type CaseOutcomeKind = 'up' | 'down' | 'tie' | 'unmeasured';

export interface CaseResult {
  id: string | number;
  side: 'dev' | 'holdout';
  /** Number of valid checks (k). */
  checks: number;
  base: ArmResult;
  skill: ArmResult;
  outcome: CaseOutcomeKind;
  /** e.g. "skill_too_long", "regex_timeout". */
  flags: string[];
}

/** Statistics of one side (dev, holdout or pooled), all from integer pass counts. */
export interface SideSummary {
  n: number;
  up: number;
  down: number;
  tie: number;
  /** Cases where the baseline leaves room (b < k). */
  headroom: number;
  meanBaseline: number;
  meanSkill: number;
  meanGain: number;
  /**
   * Sign of the mean gain computed on integers (a common denominator of the per-case gains), so
   * "mean > 0" has no float rounding in it. decide() compares this, never `meanGain`.
   */
  gainSign: -1 | 0 | 1;
  /** Exact one-sided sign test, ties dropped. */
  p: number;
  midP: number;
  /** P(theta > 1/2) under a uniform prior: "chance it helps more often than it hurts". */
  probHelps: number;
  /** How far one case moves the mean: 1/n (0 when n = 0). */
  resolution: number;
}

/** What the per-check diagnostics say about one check (summary.ts writes the sentences). */
export type CheckDiagnosticKind = 'non_discriminating' | 'broken' | 'helps_here' | 'hurts_here' | 'flaky';

/**
 * One distinct check (same type, value and flags) across the measured cases that carry it, both
 * arms counted separately.
 */
export interface CheckDiagnostic {
  check: Check;
  /** canonical JSON of {type, value, flags}: how identical checks on different cases are grouped. */
  key: string;
  caseIds: (string | number)[];
  basePasses: number;
  skillPasses: number;
  diagnostics: { kind: CheckDiagnosticKind; text: string }[];
}

export type EvidencePolicy = 'lenient' | 'standard' | 'strict';

export interface PolicyThresholds {
  minCases: number;
  minHoldout: number;
  maxHoldoutP: number;
  maxPooledP: number;
  /** strict: baseline replayed twice uncached; disagreeing cases count as ties. */
  stabilityReplay: boolean;
  /**
   * Measured held-out cases from the user's later chats a promotion needs (strict: 1; absent
   * or 0: none). Cases the skill's author wrote can be fitted; the user's own cannot.
   */
  minIndependentHoldout?: number;
}

/** Everything decide() reads. Counts of cases are after exclusion. */
export interface Evidence {
  /** false = no evals/evals.json at all. */
  hasCasesFile: boolean;
  /** Parse or schema error of evals/evals.json, when any. */
  casesError?: string;
  /** Scorable cases (after exclusion), before any replay. */
  scorable: number;
  excluded: ExcludedCase[];
  /** Planned sizes of the split. */
  planned: { dev: number; holdout: number };
  /** The run stopped at its request/token budget. */
  budget?: { requests: number; tokens: number; casesRun: number; casesPlanned: number };
  /** The circuit breaker opened (consecutive unmeasured pairs). */
  breaker?: boolean;
  /** Unmeasured pairs and the first error seen, for the replay_failed reason. */
  unmeasured: number;
  firstError?: string;
  providerLabel: string;
  dev: SideSummary;
  holdout: SideSummary;
  pooled: SideSummary;
  /** Dev cases where every check failed in both arms (the "checks may be wrong" hint). */
  devAllFailBoth: boolean;
  /** Holdout ratio the split used (default 0.25); the "add N cases" advice is computed with it. */
  splitRatio?: number;
  /** Measured held-out cases that came from the user's later chats (`knack.origin: "chat"`). */
  independentHoldout?: number;
  /** How those cases moved: improved and worse with the skill. */
  independentMoves?: { up: number; down: number };
}

export type VerdictWord = 'promoted' | 'staged' | 'rejected';

export type VerdictCode =
  | 'no_cases'
  | 'invalid_cases'
  | 'too_few_cases'
  | 'budget'
  | 'replay_failed'
  | 'ceiling'
  | 'no_dev_gain'
  | 'dev_harm'
  | 'thin_holdout'
  | 'holdout_regressed'
  | 'holdout_ceiling'
  | 'weak_holdout'
  | 'weak_overall'
  | 'promoted'
  | 'dev_only';

export interface Verdict {
  verdict: VerdictWord;
  code: VerdictCode;
  sub: 'not_measured' | 'unproven' | null;
  reason: string;
  /** What would settle it, e.g. the number of cases to add. */
  needed?: { cases?: number };
  /** The figures the reason was written from. */
  numbers: { dev: SideSummary; holdout: SideSummary; pooled: SideSummary; pHoldout: number; pPooled: number };
}

/** What the index shows for a skill (verdictLabel.ts is the only producer). */
export type IndexLabel = '[verified]' | '[unverified]' | '[approved]' | null;

/** A case named in a stored split: its id and its split key (never its text). */
export interface CaseRef {
  id: string | number;
  key: string;
  /** A request from a later chat (docs/gate.md, "Independent cases"). */
  independent?: true;
}

/** The model and the parameters a run actually sent (after any retry without a rejected one). */
export interface GateModelUsed {
  /** Origin of an HTTP provider, or 'webgpu'. */
  provider: string;
  id: string;
  params: {
    /** 'provider-default' when the provider refused `temperature` and the run went on without it. */
    temperature: number | 'provider-default';
    /** null when the provider refused `seed`. */
    seed: number | null;
    maxTokens: number;
  };
}

export interface GateCost {
  requests: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  /** true when the provider reported no usage and the token counts are estimates. */
  estimated: boolean;
  /** null when the price of the model is unknown (always for local models). */
  usd: number | null;
  ms: number;
}

/**
 * The full evidence of one completed run (IndexedDB `verdicts`). Written once when a run
 * ends; the UI, the index label and the export only read it. A verdict is about one
 * (skill bytes, cases, model, protocol) tuple: the hashes say which.
 */
export interface VerdictRecord {
  id: string;
  skill: string;
  /** sha256 of the SKILL.md bytes the run measured. */
  skillHash: string;
  /** sha256 of the canonical evals the run measured. */
  casesHash: string;
  /** Ledger sequence number of the skill version measured. */
  skillVersion: number;
  protocol: 'gate.v1';
  policy: EvidencePolicy;
  model: GateModelUsed;
  /**
   * `model` as a key (gate/modelKey.ts): the verdict belongs to this model (docs/gate.md,
   * "Per-model verdicts"). Records stored before it existed got it from the storage migration.
   */
  modelKey?: string;
  /** 'memory' when the opt-in replay with the frozen memory snapshot was used. */
  context: 'isolated' | 'memory';
  verdict: Verdict;
  startedAt: string;
  finishedAt: string;
  split: { dev: CaseRef[]; holdout: CaseRef[]; excluded: ExcludedCase[] };
  cases: CaseResult[];
  cost: GateCost;
  /** New version vs the previous version's with-skill answers on the same cases (after a patch). */
  vsPrevious?: { version: number; up: number; down: number; tie: number };
  /** 'superseded' when the skill or its cases changed during the run: stored, never applied. */
  status: 'applied' | 'superseded';
  /** Set when the user approved a staged skill (label [approved], never [verified]). */
  approvedBy?: 'user';
  /** Whether the model chooses the skill (docs/gate.md, "Reach"); absent when not measured. */
  reach?: ReachRecord;
  /** A new description tried because reach was low (docs/gate.md, "Description trial"). */
  descriptionTrial?: DescriptionTrial;
  checkDiagnostics: CheckDiagnostic[];
}

export type { FirstAction, ReachCaseResult, ReachRecord } from './reachTypes';

/** Progress of a run in flight, as the worker reports it to the UI. */
export interface GateProgress {
  runId: string;
  skill: string;
  phase: 'dev' | 'holdout' | 'done';
  casesDone: number;
  casesTotal: number;
  requests: number;
  cacheHits: number;
}
