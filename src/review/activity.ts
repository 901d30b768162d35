import type { LearningCounters, ReviewKind } from '../agent/learningCounters';
import type { CuratorRun } from '../curator/curator';
import type { Transition } from '../curator/curatorRules';
import type { ReviewToolCall } from './reviewRun';
import type { ReviewRecord } from './reviewScheduler';
import type { GateJobOutcome } from './reviewWorkerApi';
import { CONSOLIDATE_AT_PERCENT, type ConsolidationOutcome } from '../memory/memoryConsolidation';
import { MEMORY_FILE_NAMES, usedChars, type MemoryTarget } from '../memory/memoryEntries';

/**
 * What the Activity view lists (docs/learning-loop.md): one record per background run — a review or a
 * curator run — with what triggered it, the tool calls it made and their results, and what came
 * of it. Plain data, stored in the IndexedDB `activity` store keyed by `id`; pure helpers only.
 */
export type ActivityStatus = 'running' | 'done' | 'cancelled' | 'failed';

export interface ReviewActivity {
  kind: 'review';
  id: string;
  sessionId: string;
  review: ReviewKind;
  trigger: string;
  status: ActivityStatus;
  startedAt: number;
  endedAt?: number;
  toolCalls: ReviewToolCall[];
  /** The review's last words, "Nothing to save.", or why it stopped. */
  outcome: string;
  notices: string[];
  modelCalls: number;
  error?: string;
}

export type CuratorMode = 'scheduled' | 'manual' | 'dry-run';

export interface CuratorActivity {
  kind: 'curator';
  id: string;
  mode: CuratorMode;
  trigger: string;
  status: ActivityStatus;
  startedAt: number;
  endedAt?: number;
  /** The clock the run used (a preview or a test may run at another time than now). */
  runAt?: string;
  transitions: Transition[];
  outcome: string;
  error?: string;
}

/** Why a gate run started: the Verify button, a change to the skill or its cases, or idle time. */
export type GateTrigger = 'manual' | 'manual-no-cache' | 'changed' | 'idle' | 'import';

/** One verification run (docs/gate.md): what started it, how far it got, what it decided. */
export interface GateActivity {
  kind: 'gate';
  id: string;
  skill: string;
  trigger: GateTrigger;
  status: ActivityStatus;
  startedAt: number;
  endedAt?: number;
  /** The stored verdict (words from the record; never recomputed here). */
  verdict?: { verdict: string; code: string; reason: string };
  recordId?: string;
  superseded?: boolean;
  requests: number;
  cacheHits: number;
  /** One line for the Activity view. */
  outcome: string;
  error?: string;
}

/**
 * One memory consolidation (docs/learning-loop.md, "Memory consolidation"): the file before and
 * after, for the diff and the one-step undo, which sets `undoneAt`.
 */
export interface MemoryActivity {
  kind: 'memory';
  id: string;
  target: MemoryTarget;
  trigger: string;
  status: ActivityStatus;
  startedAt: number;
  endedAt?: number;
  requests: number;
  outcome: string;
  before?: string[];
  after?: string[];
  undoneAt?: number;
  error?: string;
}

export type ActivityRecord = ReviewActivity | CuratorActivity | GateActivity | MemoryActivity;

/** The running record of a consolidation, and the ended one from its outcome. */
export function memoryActivity(base: Pick<MemoryActivity, 'id' | 'target' | 'startedAt'>, ended?: { outcome: ConsolidationOutcome; endedAt: number } | { error: string; endedAt: number }): MemoryActivity {
  const file = MEMORY_FILE_NAMES[base.target];
  const record: MemoryActivity = { kind: 'memory', ...base, trigger: `${file} passed ${CONSOLIDATE_AT_PERCENT} % of its limit`, status: 'running', requests: 0, outcome: `Consolidating ${file}…` };
  if (!ended) return record;
  if ('error' in ended) return { ...record, status: 'failed', endedAt: ended.endedAt, error: ended.error, outcome: `Failed: ${ended.error}` };
  const { outcome } = ended;
  const common = { ...record, status: 'done' as const, endedAt: ended.endedAt, requests: outcome.requests };
  if (outcome.kind === 'done') {
    return { ...common, before: outcome.before, after: outcome.after, outcome: `Merged ${outcome.before.length} entries into ${outcome.after.length}: ${usedChars(outcome.before)} → ${usedChars(outcome.after)} characters, every name, number and date kept.` };
  }
  if (outcome.kind === 'skipped') return { ...common, outcome: `Nothing changed: ${outcome.reason}.` };
  return { ...common, outcome: `Refused, nothing changed: ${outcome.reason}.` };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Why a review was scheduled, from the counters as they stood before the finalizer reset them. */
export function reviewTrigger(kind: ReviewKind, counters: LearningCounters): string {
  const skills = `${plural(counters.itersSinceSkill, 'model call', 'model calls')} without saving a skill`;
  const memory = `${plural(counters.turnsSinceMemory, 'user turn', 'user turns')} without saving to memory`;
  if (kind === 'skills') return skills;
  if (kind === 'memory') return memory;
  return `${skills}; ${memory}`;
}

export const NOTHING_TO_SAVE = 'Nothing to save.';

/** One line saying how a review ended, for the Activity view. */
export function reviewOutcomeText(record: ReviewRecord): string {
  const outcome = record.outcome;
  if (record.status === 'running') return 'Reviewing the conversation…';
  if (record.status === 'cancelled') return 'Cancelled: a new message arrived in the conversation.';
  if (record.status === 'failed') return `Failed: ${record.error ?? outcome?.error ?? 'unknown error'}. The chat was not affected.`;
  if (!outcome) return NOTHING_TO_SAVE;
  if (outcome.end === 'iteration-limit') return `Stopped after ${outcome.modelCalls} model calls without a final answer.`;
  const text = outcome.finalText?.trim();
  return text ? text : NOTHING_TO_SAVE;
}

export function reviewActivity(record: ReviewRecord): ReviewActivity {
  return {
    kind: 'review',
    id: record.runId,
    sessionId: record.sessionId,
    review: record.kind,
    trigger: record.trigger,
    status: record.status,
    startedAt: record.startedAt,
    ...(record.endedAt !== undefined ? { endedAt: record.endedAt } : {}),
    toolCalls: record.outcome?.toolCalls ?? [],
    outcome: reviewOutcomeText(record),
    notices: record.outcome?.notices ?? [],
    modelCalls: record.outcome?.modelCalls ?? 0,
    ...(record.error ? { error: record.error } : {}),
  };
}

export function curatorTrigger(mode: CuratorMode): string {
  switch (mode) {
    case 'scheduled':
      return 'Scheduled: 7 days since the last run and 2 hours without input';
    case 'dry-run':
      return 'Dry run from the Skills view: nothing is changed';
    default:
      return 'Run on request';
  }
}

export function curatorActivity(
  base: Pick<CuratorActivity, 'id' | 'mode' | 'startedAt'>,
  result: { run: CuratorRun; endedAt: number } | { error: string; endedAt: number } | null,
): CuratorActivity {
  const record: CuratorActivity = { kind: 'curator', ...base, trigger: curatorTrigger(base.mode), status: 'running', transitions: [], outcome: 'Checking skill usage…' };
  if (!result) return record;
  if ('error' in result) return { ...record, status: 'failed', endedAt: result.endedAt, error: result.error, outcome: `Failed: ${result.error}` };
  return { ...record, status: 'done', endedAt: result.endedAt, runAt: result.run.startedAt, transitions: result.run.transitions, outcome: result.run.summary };
}

export type GateRunBase = Pick<GateActivity, 'id' | 'skill' | 'trigger' | 'startedAt'>;

/** A gate run as it starts (docs/gate.md): nothing measured yet. */
export function gateRunningActivity(base: GateRunBase): GateActivity {
  return { kind: 'gate', ...base, status: 'running', requests: 0, cacheHits: 0, outcome: `Verifying ${base.skill}…` };
}

/**
 * How a gate run ended. The verdict words are copied from the stored record (the gate's
 * `decide` is their only producer); `progress` is what the run reported last, for a run that
 * was stopped before the worker answered.
 */
export function gateEndedActivity(
  base: GateRunBase,
  outcome: GateJobOutcome,
  endedAt: number,
  progress?: { casesDone: number; casesTotal: number; requests: number; cacheHits: number } | null,
): GateActivity {
  const spent = { requests: progress?.requests ?? 0, cacheHits: progress?.cacheHits ?? 0 };
  const ended = { ...gateRunningActivity(base), endedAt };
  if (outcome.kind === 'failed') return { ...ended, ...spent, status: 'failed', error: outcome.error, outcome: `Failed: ${outcome.error}` };
  if (outcome.kind === 'cancelled') {
    return { ...ended, ...spent, status: 'cancelled', outcome: `Cancelled after ${outcome.pairsDone}/${outcome.pairsTotal} pairs; no verdict written` };
  }
  const { verdict, code, reason } = outcome.record.verdict;
  const superseded = outcome.superseded ? ' (superseded: the skill or its cases changed during the run, so it was stored and not applied)' : '';
  return {
    ...ended,
    status: 'done',
    verdict: { verdict, code, reason },
    recordId: outcome.record.id,
    superseded: outcome.superseded,
    requests: outcome.requests,
    cacheHits: outcome.cacheHits,
    outcome: `${verdict}: ${reason}${superseded}`,
  };
}

/** Newest first; a record that is still running sorts by its start like any other. */
export function newestFirst(records: readonly ActivityRecord[]): ActivityRecord[] {
  return [...records].sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/** The list after `record` was added or updated (same id replaces), newest first. */
export function withActivity(records: readonly ActivityRecord[], record: ActivityRecord): ActivityRecord[] {
  return newestFirst([...records.filter((existing) => existing.id !== record.id), record]);
}

/** A tool call's JSON, indented for reading; anything else as it came. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The collapsed line of a tool call: tool, action and target, then ok or the result's error. */
export function toolCallSummary(call: ReviewToolCall): string {
  let args: Record<string, unknown> = {};
  let result: Record<string, unknown> = {};
  try {
    args = JSON.parse(call.arguments || '{}') as Record<string, unknown>;
  } catch {
    /* shown raw in the expanded view */
  }
  try {
    result = JSON.parse(call.result) as Record<string, unknown>;
  } catch {
    /* idem */
  }
  const target = [args.action, args.name ?? args.target, args.file_path].filter((part) => typeof part === 'string' && part).join(' ');
  const head = target ? `${call.name} ${target}` : call.name;
  if (call.success) return result.staged ? `${head} — staged for approval` : `${head} — ok`;
  const error = typeof result.error === 'string' ? result.error : 'failed';
  return `${head} — ${error}`;
}
