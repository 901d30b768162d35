/**
 * The plain data of reach measurements and description trials (docs/gate.md, "Reach",
 * "Description trial"), kept apart from types.ts so the evidence record can carry them.
 */

/** What a model did first when a reach request reached it (docs/gate.md, "Reach"). */
export type FirstAction =
  | { kind: 'tool'; name: string; /** `skill_view`'s `name` argument. */ skill?: string }
  | { kind: 'text'; /** A `/<skill>` the reply starts with. */ slash?: string }
  | { kind: 'error'; error: string };

export interface ReachCaseResult {
  id: string | number;
  /** false: a near miss (`should_trigger: false`): loading the skill there is a false trigger. */
  shouldTrigger: boolean;
  action: FirstAction;
  /** The first action loaded this skill. */
  loaded: boolean;
  /** The router (docs/gate.md, "Router") would load this skill for the prompt. */
  routed?: boolean;
  fromCache?: boolean;
}

/** Whether the model chooses the skill from its index line: one first-chat request per case. */
export interface ReachRecord {
  /** Trigger cases whose first action loaded the skill, of those measured. */
  reached: number;
  triggerCases: number;
  /** Near misses whose first action loaded the skill anyway, of those measured. */
  falseTriggers: number;
  nearMisses: number;
  /** Cases whose request failed (not counted above). */
  unmeasured: number;
  /** The router's figures on the same cases, when measured. */
  router?: { reached: number; falseTriggers: number };
  cases: ReachCaseResult[];
  cost: { requests: number; cacheHits: number; promptTokens: number; completionTokens: number };
}

/** Reach figures on the held-out side of a description trial. */
export interface TrialFigures {
  reached: number;
  triggerCases: number;
  falseTriggers: number;
  nearMisses: number;
}

export interface DescriptionTrial {
  before: string;
  after: string;
  /** More held-out trigger cases reached and no more false triggers. */
  kept: boolean;
  /** Held-out figures with the current and with the proposed description. */
  figures: { before: TrialFigures; after: TrialFigures };
  /** Requests the trial sent (its proposal and its reach requests). */
  requests: number;
}
