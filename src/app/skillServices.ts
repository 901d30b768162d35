import type { KnackServices } from './services';
import type { KnackSettingsService } from './settings';
import { SkillCatalog } from '../skills/skillCatalog';
import { RecordCatalogSnapshot } from '../skills/catalogSnapshot';
import { systemClock, type Clock } from '../skills/usageStore';
import { JournalCommitter } from '../skills/journalCommitter';
import { applyCommitEffects } from '../skills/commitEffects';
import type { ChangeCommitter } from '../skills/fileChanges';
import { skillDirOf } from '../skills/rollback';
import type { SkillEngine } from '../skills/skillEngine';
import { SkillIndex } from '../skills/skillIndex';

/**
 * The skill engine on OPFS and IndexedDB, for any context (UI thread or a worker), built by
 * the composition root (app/appServices.ts) on the context's one ledger, usage store and
 * pending store. Each context keeps its own in-memory catalogue; change events from the
 * others keep it current. The skill tools live in the context's one tool registry.
 */
export interface SkillServices {
  engine: SkillEngine;
  index: SkillIndex;
}

export async function createSkillServices(storage: KnackServices, settings: KnackSettingsService, clock: Clock = systemClock): Promise<SkillServices> {
  const { stores } = storage;
  const contextId = crypto.randomUUID(); // to tell our own change events from other contexts'
  const catalog = new SkillCatalog(storage.files, new RecordCatalogSnapshot(stores.catalogSnapshot));
  const { usage, ledger } = stores;
  const recovered = storage.recovery.rolledForward.length + storage.recovery.rolledBack.length > 0;
  await catalog.load({ forceRescan: recovered });

  const engine: SkillEngine = {
    files: storage.files,
    locks: storage.locks,
    catalog,
    usage,
    ledger,
    pending: stores.pending,
    committer: markingCommitter(
      catalog,
      new JournalCommitter(storage.files, storage.journal, (effects) => applyCommitEffects(effects, { ledger, usage })),
    ),
    settings: () => settings.get('skills'),
    clock,
    onChange: (change) => {
      index.invalidate({ labels: true });
      storage.changes.publish({ type: 'skill-changed', name: change.skill, dir: change.dir, action: change.action, from: contextId });
      storage.changes.publish({ type: 'index-invalidated', generation: catalog.generation });
    },
  };
  // Only non-default labels change the index; UsageStore keeps them in one record.
  const index = new SkillIndex(catalog, () => usage.labels());

  // Keep this context's catalogue in step with writes made elsewhere.
  storage.changes.subscribe((change) => {
    if (change.type === 'skill-changed' && change.dir && change.from !== contextId) {
      void catalog.refresh(change.dir);
      index.invalidate({ labels: true });
    } else if (change.type === 'skills-rescanned' || change.type === 'storage-recovered') {
      void catalog.load({ forceRescan: true });
    }
  });
  settings.subscribe('skills', () => index.invalidate());

  return { engine, index };
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
