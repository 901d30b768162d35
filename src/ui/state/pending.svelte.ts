/**
 * The Pending view's state (docs/learning-loop.md): writes staged for the user's approval, newest first.
 * Approve replays a write through the same tool it was staged by (skill_manage, or the memory
 * tool) with its original origin, so every check runs again; Reject discards it. Both are
 * the app services' pending actions (app/appServices.ts), which publish `pending-changed`.
 */
import type { PendingWrite } from '../../tools/pendingWrites';
import { appServices } from '../../app/services';

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
        (await appServices()).changes.subscribe((change) => {
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

  async refresh(): Promise<void> {
    this.items = await (await appServices()).pending.list();
  }

  approve = async (id: string): Promise<PendingResult> => {
    this.busyId = id;
    try {
      const write = this.items.find((item) => item.id === id);
      const outcome = await (await appServices()).pending.approve(id);
      const result: PendingResult = outcome.success
        ? { ok: true, message: `Approved: ${write?.gist ?? id}` }
        : { ok: false, error: `Not applied: ${outcome.error}` };
      this.message = result;
      await this.refresh();
      return result;
    } finally {
      this.busyId = null;
    }
  };

  reject = async (id: string): Promise<PendingResult> => {
    this.busyId = id;
    try {
      const write = this.items.find((item) => item.id === id);
      await (await appServices()).pending.reject(id);
      const result: PendingResult = { ok: true, message: `Rejected: ${write?.gist ?? id}` };
      this.message = result;
      await this.refresh();
      return result;
    } finally {
      this.busyId = null;
    }
  };
}

export const pendingQueue = new PendingQueue();
