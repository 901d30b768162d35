/**
 * Memory consolidation for the tab (docs/learning-loop.md, "Memory consolidation"): after every
 * memory write (from this tab, another tab or the review worker, all announced as
 * `memory-changed`), a file past 80 % of its limit gets one consolidation job in the review
 * worker; and the Activity view's one-step undo puts the file back as it was.
 */
import { pastConsolidationMark } from '../memory/memoryConsolidation';
import { joinEntries, type MemoryTarget } from '../memory/memoryEntries';
import type { MemoryActivity } from '../review/activity';
import type { ToolOutcome } from '../tools/toolResult';
import { fail } from '../tools/toolResult';
import type { AppServices } from './appServices';

export interface ConsolidationRunner {
  consolidateMemory(target: MemoryTarget): Promise<MemoryActivity | null>;
}

/**
 * Watches memory writes and asks for a consolidation when a file passes the mark. Each file text
 * is tried once: a refused merge is not asked again until the file changes, and a file still past
 * the mark after a merge waits for the next write. Returns the function that stops watching.
 */
export function watchMemoryConsolidation(app: AppServices, runner: ConsolidationRunner): () => void {
  const tried = new Set<string>();
  const running = new Set<MemoryTarget>();
  const check = async (target: MemoryTarget): Promise<void> => {
    if (running.has(target)) return;
    const { store } = await app.memory();
    const state = await store.read(target);
    const text = `${target}\u0000${joinEntries(state.entries)}`;
    if (!pastConsolidationMark(state.used, state.limit) || tried.has(text)) return;
    tried.add(text);
    // An undo (in any tab) put exactly this text back: the user chose it, so it is not merged again.
    const joined = joinEntries(state.entries);
    const records = await app.activity.list();
    if (records.some((r) => r.kind === 'memory' && r.target === target && r.undoneAt !== undefined && joinEntries(r.before ?? []) === joined)) return;
    running.add(target);
    try {
      const activity = await runner.consolidateMemory(target);
      if (activity?.after) tried.add(`${target}\u0000${joinEntries(activity.after)}`);
    } finally {
      running.delete(target);
    }
  };
  return app.changes.subscribe((change) => {
    if (change.type !== 'memory-changed') return;
    check(change.target).catch((error: unknown) => console.warn('[knack] memory consolidation could not start', error));
  });
}

/**
 * The one-step undo of a consolidation: the file goes back to what it held before, only if it
 * still holds what the consolidation wrote (a later write is never lost), and the record says
 * it was undone.
 */
export async function undoMemoryConsolidation(app: AppServices, recordId: string): Promise<ToolOutcome> {
  const record = await app.activity.get(recordId);
  if (!record || record.kind !== 'memory' || !record.before || !record.after) return fail('That run changed no memory, so there is nothing to undo.');
  if (record.undoneAt !== undefined) return fail('This consolidation was already undone.');
  const { store } = await app.memory();
  const outcome = await store.replaceEntries(record.target, record.after, record.before, { origin: 'user' });
  if (outcome.success) await app.activity.put({ ...record, undoneAt: Date.now(), outcome: `${record.outcome} Undone: the entries are back as they were.` });
  return outcome;
}
