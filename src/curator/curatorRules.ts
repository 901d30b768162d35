import { lastActivityAt, type UsageRecord } from '../skills/usageStore';

/**
 * The curator's deterministic lifecycle (docs/learning-loop.md): no model involved.
 * Only curator-managed skills (`created_by: "agent"`, not pinned) move: unused for 30 days →
 * stale, unused for 90 days → archived, used again → active.
 */
export interface CuratorConfig {
  enabled: boolean;
  paused: boolean;
  intervalHours: number;
  minIdleHours: number;
  staleAfterDays: number;
  archiveAfterDays: number;
}

export const defaultCuratorConfig: CuratorConfig = {
  enabled: true,
  paused: false,
  intervalHours: 168,
  minIdleHours: 2,
  staleAfterDays: 30,
  archiveAfterDays: 90,
};

export interface CuratorState {
  lastRunAt: string | null;
  runCount: number;
  lastSummary: string;
}

export const emptyCuratorState = (): CuratorState => ({ lastRunAt: null, runCount: 0, lastSummary: '' });

export type Transition = { name: string; from: UsageRecord['state']; to: 'stale' | 'archived' | 'active' };

const DAY = 86_400_000;

export function isCuratorManaged(record: UsageRecord): boolean {
  return record.created_by === 'agent';
}

/**
 * What the curator would do to each candidate now. Pinned skills are never touched; a skill
 * that was never used keeps its grace period from creation until the stale cutoff.
 */
export function planTransitions(records: UsageRecord[], now: Date, config: CuratorConfig = defaultCuratorConfig): Transition[] {
  const staleCutoff = now.getTime() - config.staleAfterDays * DAY;
  const archiveCutoff = now.getTime() - config.archiveAfterDays * DAY;
  const transitions: Transition[] = [];
  for (const record of records) {
    if (!isCuratorManaged(record) || record.pinned || record.state === 'archived') continue;
    const anchorText = lastActivityAt(record) ?? record.created_at;
    const anchor = anchorText ? Date.parse(anchorText) : now.getTime();
    if (record.use_count === 0 && anchor > staleCutoff) {
      if (record.state === 'stale') transitions.push({ name: record.name, from: 'stale', to: 'active' });
      continue;
    }
    if (anchor <= archiveCutoff) transitions.push({ name: record.name, from: record.state, to: 'archived' });
    else if (anchor <= staleCutoff && record.state === 'active') transitions.push({ name: record.name, from: 'active', to: 'stale' });
    else if (anchor > staleCutoff && record.state === 'stale') transitions.push({ name: record.name, from: 'stale', to: 'active' });
  }
  return transitions;
}

/**
 * Whether a scheduled run is due. The first time it is asked it only starts the clock (no run
 * in the first interval after install); then at most once per interval, after `minIdleHours`
 * without user activity.
 */
export function scheduleDecision(
  state: CuratorState,
  now: Date,
  idleMs: number,
  config: CuratorConfig = defaultCuratorConfig,
): { run: boolean; seedState?: CuratorState; reason: string } {
  if (!config.enabled) return { run: false, reason: 'curator disabled' };
  if (config.paused) return { run: false, reason: 'curator paused' };
  if (!state.lastRunAt) {
    return {
      run: false,
      seedState: { ...state, lastRunAt: now.toISOString(), lastSummary: 'deferred first run' },
      reason: 'first run deferred by one interval',
    };
  }
  if (now.getTime() - Date.parse(state.lastRunAt) < config.intervalHours * 3_600_000) return { run: false, reason: 'ran recently' };
  if (idleMs < config.minIdleHours * 3_600_000) return { run: false, reason: 'user active' };
  return { run: true, reason: 'due' };
}

export function summarize(transitions: Transition[], dryRun: boolean): string {
  const count = (to: Transition['to']) => transitions.filter((t) => t.to === to).length;
  const parts = [
    count('stale') && `${count('stale')} marked stale`,
    count('archived') && `${count('archived')} archived`,
    count('active') && `${count('active')} reactivated`,
  ].filter(Boolean);
  const body = parts.length ? parts.join(', ') : 'no changes';
  return `${dryRun ? 'dry-run auto: ' : 'auto: '}${body}`;
}

/** A skill loaded in at least this many chats… */
export const CORRECTED_MIN_CHATS = 3;
/** …and corrected after at least this share of them is listed as often corrected. */
export const CORRECTED_SHARE = 0.3;

/**
 * Skills the user often corrects after they were used (docs/gate.md, "Use outcomes"): the
 * curator's report names them, since a skill that keeps leading to corrections needs a look.
 */
export function oftenCorrected(records: UsageRecord[]): string[] {
  return records
    .filter((record) => {
      const chats = record.use_outcomes?.chats.length ?? 0;
      return chats >= CORRECTED_MIN_CHATS && (record.use_outcomes?.corrected ?? 0) / chats >= CORRECTED_SHARE;
    })
    .map((record) => record.name)
    .sort();
}
