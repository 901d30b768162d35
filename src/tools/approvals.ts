import type { LockManager } from '../storage/fileStore';
import { fail, type ToolOutcome } from './toolResult';
import type { ToolRegistry } from './toolRegistry';
import { createWriteContext } from './writeContext';
import type { PendingStore } from './pendingWrites';

/** Lock key of one pending write while it is approved or rejected. */
export function pendingLockKey(id: string): string {
  return `pending:${id}`;
}

/**
 * Approving a staged write replays its arguments through the same tool, with the origin it
 * was staged under, so every check runs again against today's files. Rejecting discards it.
 * Both hold the write's Web Lock: the read, the replay and the discard are one step, so two
 * tabs approving the same write replay it once, and a reject cannot slip in between
 * (docs/storage.md, "No lost update"). The replay takes the skill's or the memory lock inside
 * this one; nothing takes a pending lock while holding those, so the order never inverts.
 */
export async function approvePending(pending: PendingStore, registry: ToolRegistry, id: string, locks: LockManager): Promise<ToolOutcome> {
  return locks.withLock(pendingLockKey(id), async () => {
    const write = await pending.get(id);
    if (!write) return fail(`Pending write ${id} not found; it was already approved or rejected.`);
    const tool = write.subsystem === 'skills' ? 'skill_manage' : 'memory';
    const context = { ...createWriteContext(write.origin), replayingApproval: true };
    const outcome = await registry.dispatchOutcome(tool, write.payload, context);
    if (outcome.success) await pending.discard(id);
    return outcome;
  });
}

export async function rejectPending(pending: PendingStore, id: string, locks: LockManager): Promise<void> {
  await locks.withLock(pendingLockKey(id), () => pending.discard(id));
}
