import { fail, type ToolOutcome } from './toolResult';
import type { ToolRegistry } from './toolRegistry';
import { createWriteContext } from './writeContext';
import type { PendingStore } from './pendingWrites';

/**
 * Approving a staged write replays its arguments through the same tool, with the origin it
 * was staged under, so every check runs again against today's files. Rejecting discards it.
 */
export async function approvePending(pending: PendingStore, registry: ToolRegistry, id: string): Promise<ToolOutcome> {
  const write = await pending.get(id);
  if (!write) return fail(`Pending write ${id} not found; it was already approved or rejected.`);
  const tool = write.subsystem === 'skills' ? 'skill_manage' : 'memory';
  const context = { ...createWriteContext(write.origin), replayingApproval: true };
  const outcome = await registry.dispatchOutcome(tool, write.payload, context);
  if (outcome.success) await pending.discard(id);
  return outcome;
}

export async function rejectPending(pending: PendingStore, id: string): Promise<void> {
  await pending.discard(id);
}
