/**
 * Settings → Sync and the skill view's sync line (docs/sync.md): the form, the status line, and
 * the window events that start a sync (online, focus; the app open starts one too). The work is
 * the app's sync service (app/syncServices.ts); this module only holds view state and listeners.
 */
import { appServices } from '../../app/services';
import type { SkillSyncState, SyncService, SyncStatus } from '../../app/syncServices';
import type { ConflictChoice, FileConflict } from '../../skills/threeWayMerge';
import type { SyncPlaceKind } from '../../sync/transport';
import type { SyncedVerdict } from '../../sync/syncLayout';
import { chooseSyncFolder } from '../../sync/folderHandleStore';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function service(): Promise<SyncService> {
  return (await appServices()).sync();
}

class SyncPanel {
  kind = $state<SyncPlaceKind>('git');
  url = $state('');
  branch = $state('main');
  folder = $state('');
  token = $state('');
  connected = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  status = $state<SyncStatus | null>(null);
  /** The skill whose conflicts the Merge update dialog shows. */
  resolving = $state.raw<{ name: string; conflicts: FileConflict[] } | null>(null);
  #started = false;

  /** Reads the saved place, follows the status, and syncs on open, online and focus. */
  start = (): (() => void) => {
    if (this.#started) return () => undefined;
    this.#started = true;
    let unsubscribe = () => undefined as unknown;
    void service().then(async (sync) => {
      const { settings } = await appServices();
      const saved = settings.get('sync');
      Object.assign(this, { kind: saved.kind, url: saved.url, branch: saved.branch, folder: saved.folder, token: saved.token, connected: saved.connected });
      unsubscribe = sync.subscribe((status) => (this.status = status));
      void sync.syncNow('open');
    });
    const online = () => void service().then((sync) => sync.syncNow('online'));
    const focus = () => void service().then((sync) => sync.syncNow('focus'));
    window.addEventListener('online', online);
    window.addEventListener('focus', focus);
    return () => {
      this.#started = false;
      unsubscribe();
      window.removeEventListener('online', online);
      window.removeEventListener('focus', focus);
    };
  };

  #act = async (work: (sync: SyncService) => Promise<void>): Promise<void> => {
    this.busy = true;
    this.error = null;
    try {
      await work(await service());
    } catch (error) {
      this.error = message(error);
    } finally {
      this.busy = false;
    }
  };

  connect = async () => {
    if (this.kind === 'folder') {
      // The folder picker needs the click's user activation: ask before anything else is awaited.
      try {
        this.url = await chooseSyncFolder();
      } catch (error) {
        this.error = message(error);
        return;
      }
    }
    await this.#act(async (sync) => {
      await sync.connect({ kind: this.kind, url: this.url.trim(), branch: this.branch.trim() || 'main', folder: this.folder.trim(), token: this.token });
      this.connected = true;
    });
  };

  syncNow = () => this.#act((sync) => sync.syncNow('now'));

  disconnect = () =>
    this.#act(async (sync) => {
      await sync.disconnect();
      this.connected = false;
    });

  keepHeld = (name: string) => this.#act((sync) => sync.keepHeld(name));

  /** Opens the Merge update dialog for a skill in conflict. */
  openResolve = (name: string) =>
    this.#act(async (sync) => {
      const merge = await sync.conflictMerge(name);
      if (!merge) throw new Error(`'${name}' has nothing left to decide; press Sync now.`);
      this.resolving = { name, conflicts: merge.conflicts };
    });

  applyResolve = (choices: Map<string, ConflictChoice>) =>
    this.#act(async (sync) => {
      const name = this.resolving?.name;
      if (!name) return;
      await sync.resolve(name, choices);
      this.resolving = null;
    });

  cancelResolve = () => {
    this.resolving = null;
  };

  skillState = async (name: string): Promise<SkillSyncState> => (await service()).skillState(name);

  verdictsFromElsewhere = async (name: string): Promise<SyncedVerdict[]> => (await service()).verdictsFromElsewhere(name);
}

export const syncPanel = new SyncPanel();
