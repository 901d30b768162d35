import type { RecordStore } from '../storage/recordStore';
import type { WriteOrigin } from './writeOrigin';

/**
 * Writes staged for the user's approval (SPEC §8.4): write approval is on, or the scanner
 * answered "ask". Approving replays the payload through the same tool code path.
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

function lineCount(text: string | undefined): number {
  return text ? text.split('\n').length : 0;
}

function sizeLabel(text: string): string {
  return text.length < 1024 ? `${text.length} chars` : `${Math.floor(text.length / 1024) + 1} KB`;
}

/** Hermes' gist rules, in Knack's words. */
export function skillGist(args: Record<string, unknown>, description = ''): string {
  const name = String(args.name ?? '');
  const action = String(args.action ?? '');
  switch (action) {
    case 'create':
    case 'edit': {
      const verb = action === 'create' ? 'create' : 'rewrite';
      return `${verb} '${name}' — ${description.slice(0, 140)} (${sizeLabel(String(args.content ?? ''))})`;
    }
    case 'patch':
      return `patch '${name}' ${String(args.file_path ?? 'SKILL.md')} (+${lineCount(args.new_string as string)}/-${lineCount(args.old_string as string)} lines)`;
    case 'write_file':
      return `write ${String(args.file_path)} in '${name}'`;
    case 'remove_file':
      return `remove ${String(args.file_path)} from '${name}'`;
    case 'delete':
      return `delete skill '${name}'`;
    default:
      return `${action} '${name}'`;
  }
}

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
