/**
 * The Pending view's state (SPEC §8.4): writes staged for the user's approval, newest first.
 * Approve replays a write through the same tool it was staged by (skill_manage, or the memory
 * tool from app/memoryServices.ts) with its original origin, so every check runs again;
 * Reject discards it. Both publish `pending-changed` so other tabs follow.
 */
import type { PendingWrite } from '../../tools/pendingWrites';

export type PendingResult = { ok: true; message: string } | { ok: false; error: string };

class PendingQueue {
  status = $state<'loading' | 'ready' | 'error'>('loading');
  loadError = $state<string | null>(null);
  items = $state.raw<PendingWrite[]>([]);
  /** The write being approved or rejected, so its buttons wait. */
  busyId = $state<string | null>(null);
  /** The last action's outcome, for the status line. */
  message = $state<PendingResult | null>(null);

  #starting: Promise<void> | null = null;

  start = (): Promise<void> => {
    this.#starting ??= (async () => {
      try {
        const { services } = await import('../../app/services');
        (await services).changes.subscribe((change) => {
          if (change.type === 'pending-changed') void this.refresh();
        });
        await this.refresh();
        this.status = 'ready';
      } catch (error) {
        this.status = 'error';
        this.loadError = error instanceof Error ? error.message : String(error);
      }
    })();
    return this.#starting;
  };

  async #tools() {
    const [{ skillServices }, { memoryServices }, { ToolRegistry }, { services }] = await Promise.all([
      import('../../app/skillServices'),
      import('../../app/memoryServices'),
      import('../../tools/toolRegistry'),
      import('../../app/services'),
    ]);
    const [skills, memory, storage] = await Promise.all([skillServices(), memoryServices(), services]);
    return { skills, registry: new ToolRegistry([memory.tool, ...skills.registry.definitions()]), changes: storage.changes };
  }

  async refresh(): Promise<void> {
    const { skills } = await this.#tools();
    const list = await skills.engine.pending.list();
    this.items = list.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
  }

  approve = async (id: string): Promise<PendingResult> => {
    this.busyId = id;
    try {
      const { skills, registry, changes } = await this.#tools();
      const { approvePending } = await import('../../tools/approvals');
      const write = this.items.find((item) => item.id === id);
      const outcome = await approvePending(skills.engine.pending, registry, id);
      const result: PendingResult = outcome.success
        ? { ok: true, message: `Approved: ${write?.gist ?? id}` }
        : { ok: false, error: `Not applied: ${outcome.error}` };
      this.message = result;
      changes.publish({ type: 'pending-changed' });
      await this.refresh();
      return result;
    } finally {
      this.busyId = null;
    }
  };

  reject = async (id: string): Promise<PendingResult> => {
    this.busyId = id;
    try {
      const { skills, changes } = await this.#tools();
      const { rejectPending } = await import('../../tools/approvals');
      const write = this.items.find((item) => item.id === id);
      await rejectPending(skills.engine.pending, id);
      const result: PendingResult = { ok: true, message: `Rejected: ${write?.gist ?? id}` };
      this.message = result;
      changes.publish({ type: 'pending-changed' });
      await this.refresh();
      return result;
    } finally {
      this.busyId = null;
    }
  };
}

export const pendingQueue = new PendingQueue();
