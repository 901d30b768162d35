/**
 * The Skills view's state: the library rows and filters, which panel is open (a skill, the
 * create form, the edit form), the open skill's details, and the user's actions on skills.
 * Components read fields and call methods; every write goes through the user's skill actions
 * (skills/skillActions.ts), which lock, record and notify, so a method here only calls the
 * action, refreshes the view and shows the result.
 */
import { appServices } from '../../app/services';
import type { SkillServices } from '../../app/skillServices';
import { SkillActions, type SkillActionResult } from '../../skills/skillActions';
import type { LedgerEntry } from '../../skills/ledger';
import type { CuratorActivity } from '../../review/activity';
import { learning } from './learning.svelte';
import { textDecoder } from '../../storage/fileStore';
import { buildRows, emptyFilters, filterOptions, filterRows, isFiltering, replaceRowsOf, type SkillFilters, type SkillRow } from './skillLibrary';
import { AUTO_DIFF_MAX_PATHS, changedPathCount, describeEntry, diffEntry, newestFirst, type HistoryItem } from './skillHistory';
import { splitSkill, type ActionResult, type SkillConfirm, type SkillDetail, type SkillPanel } from './skillDetail';
import { skillFileList } from '../../skills/skillPaths';
import type { CatalogChange } from '../../skills/skillCatalog';
import { isCancelled, type Progress } from '../../storage/progress';
import type { StorageChange } from '../../storage/changes';

export type { SkillPanel, SkillDetail, SkillConfirm, ActionResult } from './skillDetail';

class SkillsLibrary {
  status = $state<'loading' | 'ready' | 'error'>('loading');
  loadError = $state<string | null>(null);
  /** Raw: rows are replaced, never changed in place, so 1,400 of them need no deep proxies. */
  rows = $state.raw<SkillRow[]>([]);
  filters = $state<SkillFilters>(emptyFilters());
  panel = $state<SkillPanel>({ kind: 'none' });
  detail = $state<SkillDetail | null>(null);
  detailLoading = $state(false);
  /** The supporting file whose text is shown, if any. */
  openFile = $state<{ path: string; text: string } | null>(null);
  confirm = $state<SkillConfirm | null>(null);
  /** The last action's outcome, for the polite status line. */
  notice = $state<string | null>(null);
  actionError = $state<string | null>(null);
  busy = $state(false);
  /** The last curator dry run: what it would change, nothing changed. */
  dryRun = $state<CuratorActivity | null>(null);
  dryRunning = $state(false);
  /** The running rescan's progress; null when none runs. */
  rescanProgress = $state<Progress | null>(null);

  visible = $derived(filterRows(this.rows, this.filters));
  archived = $derived(this.rows.filter((row) => !row.live));
  options = $derived(filterOptions(this.rows, this.filters));
  filtering = $derived(isFiltering(this.filters));

  #services: SkillServices | null = null;
  #actions: SkillActions | null = null;
  #starting: Promise<SkillServices> | null = null;
  /** Names changed since the last update, or null when everything must be read again. */
  #changed: Set<string> | null = new Set();
  #updateQueued = false;
  /** Updates run one after another, so an older one never overwrites a newer one's rows. */
  #updating: Promise<void> = Promise.resolve();
  #detailToken = 0;
  #rescanAbort: AbortController | null = null;
  #publish: ((change: StorageChange) => void) | null = null;

  /** Loads the engine once and follows its changes for the rest of the session. */
  start = (): Promise<SkillServices> => {
    this.#starting ??= (async () => {
      try {
        const app = await appServices();
        const services = await app.skills();
        this.#services = services;
        this.#actions = new SkillActions(services.engine);
        services.engine.catalog.onChange((change) => this.#catalogChanged(change));
        this.#publish = (change) => app.changes.publish(change);
        app.changes.subscribe((change) => {
          // Usage and verdicts change without touching the catalogue (counters, the gate).
          if (change.type === 'skill-changed' || change.type === 'verdict-changed') this.#queueUpdate(change.name);
        });
        await this.refresh();
        this.status = 'ready';
        return services;
      } catch (error) {
        this.status = 'error';
        this.loadError = error instanceof Error ? error.message : String(error);
        throw error;
      }
    })();
    return this.#starting;
  };

  #catalogChanged(change: CatalogChange): void {
    if (change.kind === 'reset') return this.#queueUpdate(null);
    this.#queueUpdate(change.entry.name);
    if (change.replaced && change.replaced.name !== change.entry.name) this.#queueUpdate(change.replaced.name);
  }

  /**
   * Every change event carries the skill's name: only that skill's rows are rebuilt (its
   * catalogue entries and its one usage record), so a change costs the same in a library of
   * 1,400 as in an empty one. `null` (a rescan) reads everything again.
   */
  #queueUpdate(name: string | null): void {
    if (name === null) this.#changed = null;
    else this.#changed?.add(name);
    if (this.#updateQueued) return;
    this.#updateQueued = true;
    queueMicrotask(() => {
      this.#updateQueued = false;
      const changed = this.#changed;
      this.#changed = new Set();
      this.#updating = this.#updating.then(() => (changed ? this.#updateNames([...changed]) : this.refresh())).catch((error: unknown) => {
        console.warn('[knack] updating the skill list failed', error);
      });
    });
  }

  async #updateNames(names: string[]): Promise<void> {
    const services = this.#services;
    if (!services || names.length === 0) return;
    const { catalog, usage } = services.engine;
    const records = await Promise.all(names.map((name) => usage.find(name)));
    let rows = this.rows;
    names.forEach((name, i) => {
      rows = replaceRowsOf(rows, name, catalog.findByName(name), records[i] ?? null);
    });
    this.rows = rows;
    const panel = this.panel;
    if (panel.kind === 'detail' && names.includes(panel.name)) await this.#loadDetail(panel.name, false, panel.dir);
  }

  /** Reads every row again: at start and after a rescan. */
  async refresh(): Promise<void> {
    const services = this.#services;
    if (!services) return;
    const records = await services.engine.usage.all();
    this.rows = buildRows(services.engine.catalog.entries(), records);
    const panel = this.panel;
    if (panel.kind === 'detail') await this.#loadDetail(panel.name, false, panel.dir);
  }

  /** After the user's own action on `name`: that skill's rows and, if open, its detail. */
  async #refreshSkill(name: string): Promise<void> {
    await this.#updating;
    await this.#updateNames([name]);
  }

  setFilter = <K extends keyof SkillFilters>(key: K, value: SkillFilters[K]): void => {
    this.filters = { ...this.filters, [key]: value };
  };

  clearFilters = (): void => {
    this.filters = emptyFilters();
  };

  select = async (name: string, dir?: string): Promise<void> => {
    this.panel = dir ? { kind: 'detail', name, dir } : { kind: 'detail', name };
    this.openFile = null;
    this.actionError = null;
    await this.#loadDetail(name, true, dir);
  };

  closePanel = (): void => {
    this.panel = { kind: 'none' };
    this.detail = null;
    this.openFile = null;
    this.actionError = null;
  };

  openCreate = (): void => {
    this.panel = { kind: 'create' };
    this.detail = null;
    this.actionError = null;
  };

  openEdit = (name: string): void => {
    this.panel = { kind: 'edit', name };
    this.actionError = null;
  };

  /**
   * Reads one skill only, in two steps (docs/skill-tools.md, "Opening a large skill"). First
   * its SKILL.md and its usage record: the text and the actions show as soon as they are read.
   * Then, with the view usable, the listing of its folder and its ledger entries; each entry's
   * diffs after that, at once for a small entry, on demand (`showChanges`) for a large one.
   * Nothing here grows with the library, and nothing before the view grows with the skill.
   */
  async #loadDetail(name: string, showLoading: boolean, dir?: string): Promise<void> {
    const services = this.#services;
    if (!services) return;
    const token = ++this.#detailToken;
    if (showLoading) this.detailLoading = true;
    try {
      const { engine } = services;
      // By folder when known (two skills can share a name); by name once that folder is gone
      // (archived, restored elsewhere).
      const row = (dir ? this.rows.find((candidate) => candidate.dir === dir) : undefined) ?? this.rows.find((candidate) => candidate.name === name) ?? null;
      const skillDir = row?.dir ?? null;
      const [text, usage] = await Promise.all([skillDir ? engine.files.readText(`${skillDir}/SKILL.md`) : Promise.resolve(null), engine.usage.find(name)]);
      if (token !== this.#detailToken) return; // a newer load started meanwhile
      // A refresh of the open skill keeps its listing and history on screen until the new ones are read.
      const kept = this.detail?.name === name && this.detail.row?.dir === skillDir ? this.detail : null;
      this.detail = { name, row, text, ...splitSkill(text), files: kept?.files ?? null, nested: kept?.nested ?? [], usage, history: kept?.history ?? null };
      void this.#loadFilesAndHistory(token, name, skillDir).catch((error: unknown) => console.warn('[knack] reading the skill files failed', error));
    } finally {
      if (token === this.#detailToken) this.detailLoading = false;
    }
  }

  /** The open skill's listing and history, then the diffs of its small entries; dropped if another load started. */
  async #loadFilesAndHistory(token: number, name: string, skillDir: string | null): Promise<void> {
    const { engine } = this.#services!;
    const [paths, entries] = await Promise.all([skillDir ? engine.files.walk(skillDir) : Promise.resolve([] as string[]), engine.ledger.list(name)]);
    if (token !== this.#detailToken || this.detail?.name !== name) return;
    const list = skillDir ? this.#filesOf(skillDir, paths) : { files: [], nested: [] };
    const kept = new Map((this.detail.history ?? []).map((item) => [item.entry.id, item.diffs]));
    const history: HistoryItem[] = newestFirst(entries).map((entry) => ({ entry, diffs: kept.get(entry.id) ?? null, changedPaths: changedPathCount(entry) }));
    this.detail = { ...this.detail, ...list, history };
    const small = history.filter((item) => item.diffs === null && item.changedPaths <= AUTO_DIFF_MAX_PATHS);
    await Promise.all(small.map((item) => this.#readDiffs(token, name, item.entry)));
  }

  /** Reads one entry's diffs into the open detail (its blobs in parallel). */
  async #readDiffs(token: number, name: string, entry: LedgerEntry): Promise<void> {
    const { engine } = this.#services!;
    const blobText = async (hash: string) => {
      const bytes = await engine.ledger.blob(hash);
      return bytes ? textDecoder.decode(bytes) : null;
    };
    const skillDir = this.detail?.row?.dir;
    const diffs = await diffEntry(entry, blobText, skillDir ? [skillDir] : []);
    const detail = this.detail;
    if (token !== this.#detailToken || detail?.name !== name || !detail.history) return;
    this.detail = { ...detail, history: detail.history.map((item) => (item.entry.id === entry.id ? { ...item, diffs } : item)) };
  }

  /** "Show changes" of a history entry too large to diff when the skill opened. */
  showChanges = async (entryId: string): Promise<void> => {
    const item = this.detail?.history?.find((candidate) => candidate.entry.id === entryId);
    if (!item || item.diffs !== null || !this.detail) return;
    await this.#readDiffs(this.#detailToken, this.detail.name, item.entry);
  };

  /** The skill's own files, and its nested skills (catalogue entries inside its folder) as links. */
  #filesOf(dir: string, paths: string[]): Pick<SkillDetail, 'files' | 'nested'> {
    const catalog = this.#services!.engine.catalog;
    const inside = paths.filter((path) => path.endsWith('/SKILL.md')).map((path) => path.slice(0, -'/SKILL.md'.length));
    const skillDirs = inside.filter((candidate) => catalog.byDirectory(candidate));
    const { files, nested } = skillFileList(dir, paths, skillDirs);
    return {
      files,
      nested: nested.map((path) => {
        const nestedDir = `${dir}/${path}`;
        return { path, dir: nestedDir, name: catalog.byDirectory(nestedDir)?.name ?? path };
      }),
    };
  }

  showFile = async (path: string): Promise<void> => {
    const dir = this.detail?.row?.dir;
    if (!dir || !this.#services) return;
    const text = await this.#services.engine.files.readText(`${dir}/${path}`);
    this.openFile = { path, text: text ?? '(This file could not be read as text.)' };
  };

  closeFile = (): void => {
    this.openFile = null;
  };

  /** The user's skill actions, once the engine is up. */
  async #ready(): Promise<SkillActions> {
    await this.start();
    return this.#actions!;
  }

  /**
   * Runs one user action with the busy flag set and shows its result (the notice on success,
   * the error otherwise); `done` updates the view before the flag clears.
   */
  async #act(run: (actions: SkillActions) => Promise<SkillActionResult>, done: (result: SkillActionResult) => Promise<void> | void): Promise<void> {
    const actions = await this.#ready();
    this.busy = true;
    try {
      const result = await run(actions);
      if (result.ok) {
        this.actionError = null;
        this.notice = result.message;
      } else {
        this.actionError = result.error;
      }
      await done(result);
    } finally {
      this.busy = false;
    }
  }

  /** Create or edit through skill_manage, as the user: ledger actor `user`, no model guards. */
  save = async (mode: 'create' | 'edit', input: { name: string; category: string; content: string }): Promise<ActionResult> => {
    const actions = await this.#ready();
    this.busy = true;
    try {
      // A failed save is shown by the editor form, not the status line.
      const result = await actions.save(mode, input);
      if (!result.ok) return result;
      this.notice = result.message;
      await this.#refreshSkill(input.name);
      await this.select(input.name);
      return result;
    } finally {
      this.busy = false;
    }
  };

  togglePin = async (name: string): Promise<void> => {
    const actions = await this.#ready();
    const result = await actions.togglePin(name);
    if (result.ok) this.notice = result.message;
    else this.actionError = result.error;
    await this.#refreshSkill(name);
  };

  requestDelete = (name: string): void => {
    this.confirm = { kind: 'delete', name };
  };

  requestRollback = (name: string, item: HistoryItem): void => {
    this.confirm = {
      kind: 'rollback',
      name,
      entryId: item.entry.id,
      summary: `${describeEntry(item.entry)}, ${new Date(item.entry.ts).toLocaleString()}`,
    };
  };

  cancelConfirm = (): void => {
    this.confirm = null;
  };

  deleteSkill = (name: string): Promise<void> =>
    this.#act(
      (actions) => actions.delete(name),
      async (result) => {
        this.confirm = null;
        if (!result.ok) return;
        this.closePanel();
        await this.#refreshSkill(name);
      },
    );

  /** The user's archive: the skill moves to skills/.archive/ (out of the index), restorable. */
  archive = (name: string): Promise<void> =>
    this.#act(
      (actions) => actions.archive(name),
      async (result) => {
        if (result.ok) await this.#refreshSkill(name);
      },
    );

  /** Moves the newest archived copy back into skills/, active again. */
  restore = (name: string): Promise<void> =>
    this.#act(
      (actions) => actions.restore(name),
      async (result) => {
        if (result.ok) await this.#refreshSkill(name);
        else this.notice = `Could not restore ${name}: ${result.error}`;
      },
    );

  /**
   * Reads every skill folder again (files changed outside Knack, or the list looks wrong), with
   * progress and Cancel. A cancelled rescan changes nothing; a finished one replaces the
   * catalogue and tells the other tabs and the worker to reload it.
   */
  rescanLibrary = async (): Promise<void> => {
    if (this.#rescanAbort) return;
    const services = await this.start();
    const controller = new AbortController();
    this.#rescanAbort = controller;
    this.rescanProgress = { phase: 'Reading skills', done: 0, total: 0 };
    try {
      await services.engine.catalog.rescan({ signal: controller.signal, onProgress: (progress) => (this.rescanProgress = progress) });
      this.#publish?.({ type: 'skills-rescanned' });
      this.actionError = null;
      this.notice = `Rescanned the library: ${services.engine.catalog.size} skills.`;
    } catch (error) {
      if (isCancelled(error)) this.notice = 'Rescan cancelled; the library is as it was.';
      else this.actionError = `The rescan failed: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      this.#rescanAbort = null;
      this.rescanProgress = null;
    }
  };

  cancelRescan = (): void => {
    this.#rescanAbort?.abort();
  };

  /** What the curator would do now (stale, archive, reactivate), without changing anything. */
  curatorDryRun = async (): Promise<void> => {
    this.dryRunning = true;
    try {
      this.dryRun = await learning.runCurator({ dryRun: true });
    } finally {
      this.dryRunning = false;
    }
  };

  closeDryRun = (): void => {
    this.dryRun = null;
  };

  rollback = (entryId: string): Promise<void> => {
    const name = this.confirm?.kind === 'rollback' ? this.confirm.name : null;
    return this.#act(
      (actions) => actions.rollback(entryId),
      async (result) => {
        this.confirm = null;
        if (result.ok) await (name ? this.#refreshSkill(name) : this.refresh());
      },
    );
  };
}

export const skillsLibrary = new SkillsLibrary();
