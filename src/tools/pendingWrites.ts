import type { RecordStore } from '../storage/recordStore';
import type { WriteOrigin } from './writeContext';

/**
 * Writes staged for the user's approval, by skill_manage and by memory alike: write approval
 * is on, or the scanner answered "ask". Approving replays the payload through the same tool
 * code path (approvals.ts). Each subsystem writes its own one-line gist.
 */
export interface PendingWrite {
  id: string;
  subsystem: 'skills' | 'memory';
  action: string;
  /** One line for the Pending view, e.g. "patch 'git-style' SKILL.md (+2/-1 lines)". */
  gist: string;
  origin: WriteOrigin;
  created_at: string;
  /** The tool arguments, replayed on approval. */
  payload: Record<string, unknown>;
  /** Why it was staged: approval setting or a scan that needs confirmation. */
  reason: string;
  /** Unified diff (or full content for a new file) for the reviewer. */
  diff: string;
}

export function newPendingId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * No lost update (docs/storage.md): a write is stored once under a fresh id and never changed
 * afterwards, only deleted; approving or rejecting it (get, replay, delete) runs under the
 * write's Web Lock (approvals.ts).
 */
export class PendingStore {
  constructor(private readonly records: RecordStore<PendingWrite>) {}

  async stage(write: Omit<PendingWrite, 'id' | 'created_at'>, now = new Date()): Promise<PendingWrite> {
    const record: PendingWrite = { ...write, id: newPendingId(), created_at: now.toISOString() };
    await this.records.put(record.id, record);
    return record;
  }

  list(): Promise<PendingWrite[]> {
    return this.records.getAll();
  }

  get(id: string): Promise<PendingWrite | undefined> {
    return this.records.get(id);
  }

  discard(id: string): Promise<void> {
    return this.records.delete(id);
  }
}
