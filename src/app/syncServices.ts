/**
 * Sync in the tab (docs/sync.md, "When it runs"): the connected place from Settings, one sync
 * at a time across tabs (Web Lock `knack:sync`), started after skill writes (debounced), when the
 * app opens, comes back online or into focus, and on Sync now. Changes made while the place
 * cannot be reached stay queued (the names of the skills changed here) and go out on the next
 * sync; nothing is lost if the tab closes, since the next start compares every skill.
 *
 * The places are plugged in by kind (`SYNC_PLACES`), each loaded on first use.
 */
import type { ChangeFeed } from '../storage/changes';
import type { LockManager } from '../storage/fileStore';
import type { RecordStore } from '../storage/recordStore';
import { Rerunner } from '../storage/rerun';
import type { ConflictChoice, SkillMerge } from '../skills/threeWayMerge';
import { SyncEngine, type SyncOutcome } from '../sync/syncEngine';
import { SyncStateStore } from '../sync/syncState';
import { SkillEngineLibrary } from '../sync/skillLibrary';
import { conflictMerge, keepHeldSkill, resolveSyncConflict } from '../sync/syncConflicts';
import { sameFiles } from '../sync/syncDecision';
import { filesHash } from '../sync/skillRecords';
import type { SyncedVerdict } from '../sync/syncLayout';
import { placeKeyOf, type SyncSettings } from '../sync/syncSettings';
import { SyncPlaceError, type SyncPlaceKind, type SyncTransport } from '../sync/transport';
import type { KnackSettingsService } from './settings';
import type { SkillServices } from './skillServices';

export type TransportFactory = (settings: SyncSettings, context: { appOrigin: string }) => Promise<SyncTransport>;

/** The places this build can sync with; the GitHub and folder places register here too. */
export const SYNC_PLACES: Partial<Record<SyncPlaceKind, TransportFactory>> = {
  git: async (settings, { appOrigin }) => {
    const { GitTransport } = await import('../sync/gitTransport');
    return new GitTransport({ url: settings.url, branch: settings.branch, folder: settings.folder, token: settings.token, appOrigin });
  },
  github: async (settings) => {
    const { GitHubTransport, parseGitHubRepository } = await import('../sync/githubTransport');
    const repository = parseGitHubRepository(settings.url);
    if (!repository) throw new SyncPlaceError('Type the Repository URL as owner/name or https://github.com/owner/name.', 'other');
    if (!settings.token) throw new SyncPlaceError(`Paste a fine-grained token with Contents: Read and write on ${repository.owner}/${repository.repo} in Token.`, 'auth');
    return new GitHubTransport({ ...repository, branch: settings.branch, folder: settings.folder, token: settings.token });
  },
  folder: async () => (await import('../sync/folderHandleStore')).savedFolderTransport(),
};

export type SyncPhase = 'off' | 'syncing' | 'synced' | 'waiting' | 'conflicts' | 'error';

export interface SyncStatus {
  phase: SyncPhase;
  /** What the status line says: "Synced 10:42", "3 changes waiting", "2 conflicts", or what went wrong. */
  text: string;
  lastSyncedAt: string | null;
  waiting: number;
  conflicts: string[];
  held: string[];
  notices: string[];
}

export type SkillSyncState = 'synced' | 'changed here' | 'conflict' | 'not synced';

/** After a skill write, wait this long for more before syncing (a review writes several files). */
export const SYNC_DEBOUNCE_MS = 1500;
const SYNC_LOCK = 'knack:sync';
/** Notices the status keeps (newest first). */
const MAX_NOTICES = 10;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export class SyncService {
  status: SyncStatus = { phase: 'off', text: 'Not connected', lastSyncedAt: null, waiting: 0, conflicts: [], held: [], notices: [] };
  readonly state: SyncStateStore;
  readonly #listeners = new Set<(status: SyncStatus) => void>();
  /** Skills changed here since the last sync that sent them. */
  readonly #queued = new Set<string>();
  #compareAll = true;
  readonly #runs = new Rerunner(() => this.deps.locks.withLock(SYNC_LOCK, () => this.#runOnce()));
  #timer: ReturnType<typeof setTimeout> | null = null;
  #library: SkillEngineLibrary | null = null;
  /** The place's transport, kept between syncs: the git one keeps the objects it fetched. */
  #transport: { key: string; transport: SyncTransport } | null = null;

  constructor(
    private readonly deps: {
      settings: KnackSettingsService;
      skills: () => Promise<SkillServices>;
      changes: ChangeFeed;
      locks: LockManager;
      records: RecordStore<unknown>;
      appOrigin: string;
      online: () => boolean;
    },
  ) {
    this.state = new SyncStateStore(deps.records as RecordStore<never>);
    deps.changes.subscribe((change) => {
      if (change.type === 'skill-changed') this.#skillChanged(change.name);
      if (change.type === 'skills-rescanned') this.#compareAll = true;
    });
  }

  subscribe(listener: (status: SyncStatus) => void): () => void {
    this.#listeners.add(listener);
    listener(this.status);
    return () => this.#listeners.delete(listener);
  }

  get connected(): boolean {
    return this.deps.settings.get('sync').connected;
  }

  #set(status: Partial<SyncStatus>): void {
    this.status = { ...this.status, ...status };
    for (const listener of this.#listeners) listener(this.status);
  }

  #skillChanged(name: string): void {
    if (!this.connected) return;
    const skill = name.split('/')[0]!;
    this.#queued.add(skill);
    if (this.status.phase !== 'syncing') this.#set(this.#waitingStatus());
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.syncNow('write'), SYNC_DEBOUNCE_MS);
  }

  #waitingStatus(): Partial<SyncStatus> {
    const waiting = this.#queued.size;
    return waiting > 0 ? { phase: 'waiting', waiting, text: `${plural(waiting, 'change')} waiting` } : {};
  }

  /** Saves the place and syncs everything once. */
  async connect(place: Pick<SyncSettings, 'kind' | 'url' | 'branch' | 'folder' | 'token'>): Promise<void> {
    if (!SYNC_PLACES[place.kind]) throw new SyncPlaceError('This build cannot sync with that place yet: choose another place under Sync with.', 'other');
    if (!place.url) throw new SyncPlaceError('Type the Repository URL first.', 'other');
    await this.deps.settings.update('sync', { ...place, connected: true });
    this.#compareAll = true;
    await this.syncNow('connect');
  }

  /** Stops syncing and forgets this device's sync records; the place and the library stay as they are. */
  async disconnect(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    await this.#runs.running;
    await this.deps.settings.update('sync', { connected: false });
    await this.state.clear();
    this.#queued.clear();
    this.#transport = null;
    this.#set({ phase: 'off', text: 'Not connected', waiting: 0, conflicts: [], held: [], notices: [], lastSyncedAt: null });
  }

  /** Runs a sync now (or right after the one running). `reason` only says why (open, online, focus…). */
  async syncNow(reason: 'now' | 'open' | 'online' | 'focus' | 'write' | 'connect' = 'now'): Promise<void> {
    void reason;
    if (!this.connected) return;
    return this.#runs.run();
  }

  async #runOnce(): Promise<void> {
    const settings = this.deps.settings.get('sync');
    if (!settings.connected) return;
    if (!this.deps.online()) {
      this.#set({ ...this.#waitingStatus(), ...(this.#queued.size === 0 ? { phase: 'waiting', text: 'Offline: changes will wait' } : {}) });
      return;
    }
    const changed = this.#compareAll ? 'all' : new Set(this.#queued);
    const taken = new Set(this.#queued);
    this.#set({ phase: 'syncing', text: 'Syncing…' });
    try {
      const key = `${placeKeyOf(settings)} ${settings.token}`;
      if (this.#transport?.key !== key) this.#transport = { key, transport: await SYNC_PLACES[settings.kind]!(settings, { appOrigin: this.deps.appOrigin }) };
      const transport = this.#transport.transport;
      const local = await this.#local();
      const outcome = await new SyncEngine({ transport, local, state: this.state, placeKey: placeKeyOf(settings), changed }).run();
      for (const name of taken) this.#queued.delete(name);
      // What this sync wrote here announced itself as skill changes; those are not news to send.
      for (const name of outcome.received) this.#queued.delete(name);
      this.#compareAll = outcome.status !== 'synced';
      this.#set(this.#statusOf(outcome));
    } catch (error) {
      const offline = error instanceof SyncPlaceError && error.problem === 'offline';
      const message = error instanceof Error ? error.message : String(error);
      this.#set(offline ? { phase: 'waiting', waiting: this.#queued.size, text: `${plural(this.#queued.size, 'change')} waiting (offline)` } : { phase: 'error', text: message });
    }
  }

  #statusOf(outcome: SyncOutcome): Partial<SyncStatus> {
    // Notices stay until newer ones push them out: the next sync (seconds later) has none to say.
    const notices = [...new Set([...outcome.notices, ...this.status.notices])].slice(0, MAX_NOTICES);
    const base = { lastSyncedAt: outcome.at, conflicts: outcome.conflicts, held: outcome.held, notices, waiting: this.#queued.size };
    if (outcome.status === 'unsettled') {
      return { ...base, phase: 'error', text: `The place kept changing during ${outcome.rounds} tries; nothing was lost. Sync now tries again.` };
    }
    if (outcome.conflicts.length > 0) return { ...base, phase: 'conflicts', text: plural(outcome.conflicts.length, 'conflict') };
    const time = new Date(outcome.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    const held = outcome.held.length > 0 ? `; ${plural(outcome.held.length, 'skill')} held for your decision` : '';
    return { ...base, phase: 'synced', text: `Synced ${time}${held}` };
  }

  async #local(): Promise<SkillEngineLibrary> {
    this.#library ??= new SkillEngineLibrary((await this.deps.skills()).engine);
    return this.#library;
  }

  /** A skill's sync state, for its view. */
  async skillState(name: string): Promise<SkillSyncState> {
    if (!this.connected) return 'not synced';
    if (await this.state.conflict(name)) return 'conflict';
    if (this.#queued.has(name)) return 'changed here';
    const base = (await this.state.bases()).get(name);
    if (!base) return 'not synced';
    const local = await (await this.#local()).read(name);
    return sameFiles(base.files, local?.files ?? null) ? 'synced' : 'changed here';
  }

  /**
   * Verdicts another device measured on exactly the files this skill has now, as that device
   * measured them ("verified on <model> on another device", docs/sync.md "Proof travels").
   */
  async verdictsFromElsewhere(name: string): Promise<SyncedVerdict[]> {
    const arrived = await this.state.arrivedVerdicts(name);
    if (!arrived) return [];
    const local = await (await this.#local()).read(name);
    if (!local) return [];
    const hash = await filesHash(local.files);
    const own = new Set(local.record.verdicts.map((verdict) => verdict.model));
    return arrived.verdicts.filter((verdict) => verdict.contentHash === hash && !own.has(verdict.model));
  }

  async conflictMerge(name: string): Promise<SkillMerge | null> {
    return conflictMerge({ local: await this.#local(), state: this.state }, name);
  }

  /** The user decided a conflict: write it here, then sync it out. */
  async resolve(name: string, choices: ReadonlyMap<string, ConflictChoice>): Promise<void> {
    await resolveSyncConflict({ local: await this.#local(), state: this.state }, name, choices);
    this.#queued.add(name);
    await this.syncNow('now');
  }

  async keepHeld(name: string): Promise<void> {
    await keepHeldSkill({ local: await this.#local(), state: this.state }, name);
    await this.syncNow('now');
  }
}
