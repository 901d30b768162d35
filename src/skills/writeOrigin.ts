/**
 * Who is writing, and what they have read in this run.
 *
 * `foreground` = the chat agent acting on the user's request; `review` = the background review
 * agent; `curator` = the deterministic curator; `import` = a zip import; `user` = the skill
 * editor. The review-only guards (ownership, read-before-write, delete → archive) key off this.
 */
export type WriteOrigin = 'foreground' | 'review' | 'curator' | 'import' | 'user';

/** Ledger actors (SPEC §3.3 inv. 5). */
export type LedgerActor = 'user' | 'agent' | 'review' | 'curator' | 'import';

export interface WriteContext {
  origin: WriteOrigin;
  /** Skill files viewed in this run, as `skills/…` paths (read-before-write guard). */
  readPaths: Set<string>;
  sessionId?: string;
  /** Set while an approved pending write is replayed, so it is not staged a second time. */
  replayingApproval?: boolean;
}

export function createWriteContext(origin: WriteOrigin = 'foreground', sessionId?: string): WriteContext {
  return { origin, readPaths: new Set(), sessionId };
}

export function isReview(context: WriteContext): boolean {
  return context.origin === 'review';
}

export function actorFor(origin: WriteOrigin): LedgerActor {
  switch (origin) {
    case 'foreground':
      return 'agent';
    case 'review':
      return 'review';
    case 'curator':
      return 'curator';
    case 'import':
      return 'import';
    case 'user':
      return 'user';
  }
}
