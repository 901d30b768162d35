/**
 * The Memory view's state: both files' entries and usage, re-read whenever `memory-changed`
 * arrives (from this tab, another tab, or the agent). Edits go through the same MemoryStore
 * code path as the model's tool, with origin 'user': limits and matching apply, a threat-scan
 * finding only warns.
 */
import type { MemoryFileState } from '../../memory/memoryStore';
import type { MemoryTarget } from '../../memory/memoryEntries';
import type { ToolOutcome } from '../../tools/toolResult';
import { appServices } from '../../app/services';

export interface MemoryNotice {
  kind: 'ok' | 'warning' | 'error';
  text: string;
}

const USER_EDIT = { origin: 'user' as const };

async function store() {
  return (await (await appServices()).memory()).store;
}

class MemoryViewState {
  files = $state<Record<MemoryTarget, MemoryFileState | null>>({ memory: null, user: null });
  loadError = $state<string | null>(null);
  notice = $state<MemoryNotice | null>(null);
  busy = $state(false);
  /** Entries the user pinned, by text (settings `memory.pinned`): a consolidation never touches them. */
  pinned = $state<Record<MemoryTarget, string[]>>({ memory: [], user: [] });
  private stop: (() => void) | null = null;
  private users = 0;

  /** Called by the view on mount; returns the cleanup. */
  start = (): (() => void) => {
    this.users++;
    if (this.users === 1) void this.subscribe();
    void this.reload();
    return () => {
      this.users--;
      if (this.users === 0) {
        this.stop?.();
        this.stop = null;
      }
    };
  };

  reload = async (): Promise<void> => {
    try {
      const s = await store();
      const [memory, user] = await Promise.all([s.read('memory'), s.read('user')]);
      this.files = { memory, user };
      this.pinned = (await (await appServices()).settings.read('memory')).pinned ?? { memory: [], user: [] };
      this.loadError = null;
    } catch (err) {
      this.loadError = `Memory could not be read: ${(err as Error)?.message ?? String(err)}`;
    }
  };

  add = (target: MemoryTarget, content: string): Promise<boolean> => this.run(async (s) => s.add(target, content, USER_EDIT));

  edit = (target: MemoryTarget, entry: string, content: string): Promise<boolean> =>
    this.run(async (s) => s.replace(target, entry, content, USER_EDIT));

  remove = (target: MemoryTarget, entry: string): Promise<boolean> => this.run(async (s) => s.remove(target, entry, USER_EDIT));

  isPinned = (target: MemoryTarget, entry: string): boolean => this.pinned[target].includes(entry);

  /** Pins or unpins an entry (stored with the memory settings, read by the consolidation in the worker). */
  togglePin = async (target: MemoryTarget, entry: string): Promise<void> => {
    const app = await appServices();
    const stored = await app.settings.update('memory', (current) => {
      const list = current.pinned?.[target] ?? [];
      const next = list.includes(entry) ? list.filter((text) => text !== entry) : [...list, entry];
      return { pinned: { ...(current.pinned ?? { memory: [], user: [] }), [target]: next } };
    });
    this.pinned = stored.pinned;
  };

  dismissNotice = (): void => {
    this.notice = null;
  };

  private async subscribe(): Promise<void> {
    const { changes } = await appServices();
    const unsubscribe = changes.subscribe((change) => {
      if (change.type === 'memory-changed') void this.reload();
    });
    if (this.users === 0) unsubscribe();
    else this.stop = unsubscribe;
  }

  /** Runs one edit; the outcome's message or error becomes the notice. True on success. */
  private async run(edit: (s: Awaited<ReturnType<typeof store>>) => Promise<ToolOutcome>): Promise<boolean> {
    this.busy = true;
    try {
      const outcome = await edit(await store());
      if (outcome.success) {
        const warning = typeof outcome.warning === 'string' ? outcome.warning : null;
        this.notice = warning ? { kind: 'warning', text: `Saved. ${warning}` } : { kind: 'ok', text: String(outcome.message ?? 'Saved.') };
      } else {
        this.notice = { kind: 'error', text: outcome.error };
      }
      await this.reload();
      return outcome.success;
    } catch (err) {
      this.notice = { kind: 'error', text: `Not saved: ${(err as Error)?.message ?? String(err)}` };
      return false;
    } finally {
      this.busy = false;
    }
  }
}

export const memoryView = new MemoryViewState();
