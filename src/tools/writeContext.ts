/**
 * Who is writing, and what they have read in this run: the context every tool call carries.
 *
 * The origin of a write decides three things recorded elsewhere, and they are read from ONE
 * table (`WRITE_ORIGINS` below, explained in docs/write-origins.md) so no module spells the
 * mapping out for itself:
 * - the ledger actor of the entry the write leaves (skills/ledger.ts),
 * - the usage record's `source` when the write creates a skill (skills/usageStore.ts),
 * - the usage record's `created_by`, which opts a skill into curator management and into
 *   edits by the review agent.
 *
 * The word "agent" appears twice and means two different things there: the ledger actor
 * `agent` is the chat agent acting on the user's request (origin `foreground`), while
 * `created_by: "agent"` marks a skill the background review agent created (origin `review`).
 * The table is where that is settled; everything else reads it.
 */
import { ViewedFiles } from './viewedFiles';

export type WriteOrigin = 'foreground' | 'review' | 'curator' | 'import' | 'user' | 'gate';

/** Who a ledger entry names as having made the change. */
export type LedgerActor = 'user' | 'agent' | 'review' | 'curator' | 'import' | 'gate';

/** Where a skill came from, as its usage record says (`unknown`: a record with no creation). */
export type UsageSource = 'foreground' | 'review' | 'user' | 'import' | 'unknown';

/** `"agent"`: curator-managed and editable by the review agent; null: the user's to manage. */
export type CreatedBy = 'agent' | null;

export interface WriteOriginRow {
  /** Who is writing, in words. */
  writer: string;
  actor: LedgerActor;
  /** The usage record's `source` when this origin creates a skill. */
  usageSource: UsageSource;
  /** The usage record's `created_by` when this origin creates a skill. */
  createdBy: CreatedBy;
}

/** The one table: write origin → ledger actor → usage source and `created_by`. */
export const WRITE_ORIGINS: Readonly<Record<WriteOrigin, Readonly<WriteOriginRow>>> = {
  foreground: { writer: "the chat agent, on the user's request", actor: 'agent', usageSource: 'foreground', createdBy: null },
  review: { writer: 'the background review agent', actor: 'review', usageSource: 'review', createdBy: 'agent' },
  // The curator only changes states and archives; it never creates a skill through a tool.
  curator: { writer: 'the deterministic curator', actor: 'curator', usageSource: 'unknown', createdBy: null },
  import: { writer: 'a zip import', actor: 'import', usageSource: 'import', createdBy: null },
  user: { writer: 'the user, in the Skills view', actor: 'user', usageSource: 'user', createdBy: null },
  // The gate only changes a skill's verification (gate/gateEffects.ts); it never writes files.
  gate: { writer: 'the verification gate', actor: 'gate', usageSource: 'unknown', createdBy: null },
};

export function actorFor(origin: WriteOrigin): LedgerActor {
  return WRITE_ORIGINS[origin].actor;
}

export function usageSourceFor(origin: WriteOrigin): UsageSource {
  return WRITE_ORIGINS[origin].usageSource;
}

/** `created_by` of a skill created from `source`; sources no origin creates with are null. */
export function createdByFor(source: UsageSource): CreatedBy {
  const row = Object.values(WRITE_ORIGINS).find((candidate) => candidate.usageSource === source);
  return row?.createdBy ?? null;
}

export interface WriteContext {
  origin: WriteOrigin;
  /** Skill files viewed in this run, as `skills/…` paths (read-before-write guard). */
  readPaths: Set<string>;
  sessionId?: string;
  /** Set while an approved pending write is replayed, so it is not staged a second time. */
  replayingApproval?: boolean;
  /**
   * The characters a result may take in the model's window, set per call by the agent loop when a
   * window applies (docs/context-window.md): tools that return long texts show them in parts.
   */
  resultRoomChars?: number;
  /** Files already sent in this turn, so an unchanged one is not sent twice (tools/viewedFiles.ts). */
  viewedFiles?: ViewedFiles;
}

export function createWriteContext(origin: WriteOrigin = 'foreground', sessionId?: string): WriteContext {
  return { origin, readPaths: new Set(), sessionId, viewedFiles: new ViewedFiles() };
}

/** The review-only guards (ownership, read-before-write, delete → archive) key off this. */
export function isReview(context: WriteContext): boolean {
  return context.origin === 'review';
}
