import type { KnackServices } from './services';
import { SkillCatalog } from '../skills/skillCatalog';
import { RecordCatalogSnapshot } from '../skills/catalogSnapshot';
import { UsageStore, systemClock, type Clock, type UsageRecord } from '../skills/usageStore';
import { Ledger, type BlobRecord, type LedgerEntry } from '../skills/ledger';
import { PendingStore, type PendingWrite } from '../tools/pendingWrites';
import { JournalCommitter } from '../skills/journalCommitter';
import { applyCommitEffects } from '../skills/commitEffects';
import type { ChangeCommitter } from '../skills/fileChanges';
import { skillDirOf } from '../skills/rollback';
import { defaultSkillSettings, type SkillEngine, type SkillSettings } from '../skills/skillEngine';
import { SkillIndex } from '../skills/skillIndex';
import { ToolRegistry } from '../tools/toolRegistry';
import { skillToolDefinitions } from '../skills/tools/skillToolDefinitions';

/**
 * The skill engine on OPFS and IndexedDB, for any context (UI thread or a worker). Each
 * context keeps its own in-memory catalogue; change events from the others keep it current.
 */
export interface SkillServices {
  engine: SkillEngine;
  registry: ToolRegistry;
  index: SkillIndex;
  /** The skill settings in the `settings` store (key "skills"). */
  settings: SkillSettingsStore;
}

export class SkillSettingsStore {
  private current: SkillSettings = { ...defaultSkillSettings };

  constructor(private readonly services: KnackServices) {}

  async load(): Promise<SkillSettings> {
    const stored = await this.services.records<Partial<SkillSettings>>('settings').get('skills');
    this.current = { ...defaultSkillSettings, ...(stored ?? {}) };
    return this.current;
  }

  get(): SkillSettings {
    return this.current;
  }

  async update(change: Partial<SkillSettings>): Promise<SkillSettings> {
    this.current = { ...this.current, ...change };
    await this.services.records<SkillSettings>('settings').put('skills', this.current);
    this.services.changes.publish({ type: 'settings-changed', keys: ['skills'] });
    return this.current;
  }
}

export async function createSkillServices(services: KnackServices, clock: Clock = systemClock): Promise<SkillServices> {
  const settings = new SkillSettingsStore(services);
  const contextId = crypto.randomUUID(); // to tell our own change events from other contexts'
  const catalog = new SkillCatalog(services.files, new RecordCatalogSnapshot(services.records<unknown>('index')));
  const usage = new UsageStore(services.records<UsageRecord>('usage'), clock);
  const ledger = new Ledger(services.records<LedgerEntry>('ledger'), services.records<BlobRecord>('blobs'), clock);
  const recovered = services.recovery.rolledForward.length + services.recovery.rolledBack.length > 0;
  await Promise.all([settings.load(), catalog.load({ forceRescan: recovered })]);

  const engine: SkillEngine = {
    files: services.files,
    locks: services.locks,
    catalog,
    usage,
    ledger,
    pending: new PendingStore(services.records<PendingWrite>('pending')),
    committer: markingCommitter(
      catalog,
      new JournalCommitter(services.files, services.journal, (effects) => applyCommitEffects(effects, { ledger, usage })),
    ),
    settings: () => settings.get(),
    clock,
    onChange: (change) => {
      index.invalidate({ labels: true });
      services.changes.publish({ type: 'skill-changed', name: change.skill, dir: change.dir, action: change.action, from: contextId });
      services.changes.publish({ type: 'index-invalidated', generation: catalog.generation });
    },
  };
  // Only non-default labels change the index; UsageStore keeps them in one record.
  const index = new SkillIndex(catalog, () => usage.labels());

  // Keep this context's catalogue in step with writes made elsewhere.
  services.changes.subscribe((change) => {
    if (change.type === 'skill-changed' && change.dir && change.from !== contextId) {
      void catalog.refresh(change.dir);
      index.invalidate({ labels: true });
    } else if (change.type === 'skills-rescanned' || change.type === 'storage-recovered') {
      void catalog.load({ forceRescan: true });
    } else if (change.type === 'settings-changed' && change.keys?.includes('skills')) {
      void settings.load().then(() => index.invalidate());
    }
  });

  return { engine, registry: new ToolRegistry(skillToolDefinitions(engine)), index, settings };
}

/**
 * Every skill file change first leaves a marker in the catalogue snapshot (cleared when the
 * catalogue catches up), so a tab that dies between the files and the snapshot makes the next
 * start rescan instead of serving a stale index (SkillCatalog.beginChange).
 */
function markingCommitter(catalog: SkillCatalog, inner: ChangeCommitter): ChangeCommitter {
  const dirOf = (path: string): string => {
    const parts = path.split('/');
    for (let end = 2; end < parts.length; end++) {
      const dir = parts.slice(0, end).join('/');
      if (catalog.byDirectory(dir)) return dir;
    }
    return path.endsWith('/SKILL.md') ? path.slice(0, -'/SKILL.md'.length) : skillDirOf(path);
  };
  return {
    async commit(label, changes, effects) {
      await catalog.beginChange([...changes.writes.map(([path]) => path), ...changes.deletes].map(dirOf));
      await inner.commit(label, changes, effects);
    },
  };
}

let started: Promise<SkillServices> | null = null;

/** The UI thread's skill services, created once after storage is up. */
export function skillServices(): Promise<SkillServices> {
  started ??= import('./services').then(({ services }) => services).then((s) => createSkillServices(s));
  return started;
}
