import type { KnackServices } from './storageServices';
import type { KnackSettingsService } from './settings';
import { SkillCatalog } from '../skills/skillCatalog';
import { RecordCatalogSnapshot } from '../skills/catalogSnapshot';
import { systemClock, type Clock } from '../skills/usageStore';
import { JournalCommitter } from '../skills/journalCommitter';
import { applyCommitEffects } from '../skills/commitEffects';
import type { ChangeBatchItem, ChangeCommitter } from '../skills/fileChanges';
import { skillDirOf } from '../skills/rollback';
import type { SkillEngine } from '../skills/skillEngine';
import { SkillIndex } from '../skills/skillIndex';
import { VerdictStore, type MeasuredHashes } from '../gate/verdictStore';
import { gateVerificationSource } from '../gate/verificationViews';
import { indexLabel } from '../gate/indexLabel';
import { refreshFreshness, type GateEffectDeps } from '../gate/gateEffects';
import { EVALS_FILE, SKILL_FILE } from '../gate/gateJob';
import { parseEvalsFile, validateEvalsFile } from '../gate/evalCases';
import { casesHashOf, skillHashOf } from '../gate/verdictRecord';
import { forgedToolFileRules } from './forgedToolFileRules';

/**
 * The skill engine on OPFS and IndexedDB, for any context (UI thread or a worker), built by
 * the composition root (app/appServices.ts) on the context's one ledger, usage store and
 * pending store. Each context keeps its own in-memory catalogue; change events from the
 * others keep it current. The skill tools live in the context's one tool registry.
 */
export interface SkillServices {
  engine: SkillEngine;
  index: SkillIndex;
  /** The gate's stored runs. */
  verdicts: VerdictStore;
  /** What the gate's effects (gate/gateEffects.ts) need: the engine, the verdicts, the skill's hashes now. */
  gate: GateEffectDeps;
  /** Reads a file of a skill's folder by the skill's name (relative path); null when either is absent. */
  readSkillFile(skill: string, relativePath: string): Promise<Uint8Array | null>;
}

/** Changes that put back older bytes without skill_manage, after which a verdict may be fresh or stale again. */
const RESTORING_ACTIONS = new Set(['rollback', 'restore']);

const textOf = (data: Uint8Array) => new TextDecoder().decode(data);

/** The hashes a verdict is compared with: SKILL.md and the canonical evals/evals.json, as stored now. */
export async function skillHashesNow(read: SkillServices['readSkillFile'], skill: string): Promise<MeasuredHashes | null> {
  const [markdown, evals] = await Promise.all([read(skill, SKILL_FILE), read(skill, EVALS_FILE)]);
  if (markdown === null) return null;
  const evalsText = evals === null ? null : textOf(evals);
  const parsed = evalsText === null ? undefined : parseEvalsFile(evalsText);
  return { skillHash: await skillHashOf(markdown), casesHash: await casesHashOf(evalsText, parsed?.ok ? parsed.file : undefined) };
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
      // The context that made the change settles the verdict's freshness, once (after the lock it ran under).
      if (RESTORING_ACTIONS.has(change.action)) {
        void refreshFreshness(change.skill, gate).catch((error: unknown) => console.warn('[knack] refreshing a verdict failed', error));
      }
    },
  };
  const readSkillFile: SkillServices['readSkillFile'] = async (skill, relativePath) => {
    const dir = catalog.findByName(skill)[0]?.dir;
    return dir ? engine.files.read(`${dir}/${relativePath}`) : null;
  };
  const verdicts = new VerdictStore(stores.verdicts);
  const gate: GateEffectDeps = { engine, verdicts, currentHashes: (skill) => skillHashesNow(readSkillFile, skill) };
  engine.verification = gateVerificationSource({ usage, verdicts });
  const toolRules = forgedToolFileRules(usage, settings);
  engine.fileRules = async (relativePath, text, context) => {
    if (relativePath !== EVALS_FILE) return toolRules(relativePath, text, context);
    const checked = await validateEvalsFile(text, { readFile: context.readFile, skillName: context.skill });
    return checked.ok ? { warnings: checked.warnings } : { error: checked.error, problems: checked.errors };
  };
  // Only non-default labels change the index; UsageStore keeps them in one record. The gate chooses the words.
  const index = new SkillIndex(catalog, () => usage.labels(), indexLabel);

  // Keep this context's catalogue in step with writes made elsewhere.
  storage.changes.subscribe((change) => {
    if (change.type === 'skill-changed' && change.dir && change.from !== contextId) {
      void catalog.refresh(change.dir);
      index.invalidate({ labels: true });
    } else if (change.type === 'skills-rescanned') {
      // The context that rescanned wrote the snapshot: load it rather than rescan again.
      void catalog.load();
    } else if (change.type === 'storage-recovered') {
      void catalog.load({ forceRescan: true });
    }
  });
  settings.subscribe('skills', () => index.invalidate());

  return { engine, index, verdicts, gate, readSkillFile };
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
    ...(inner.commitMany
      ? {
          // A batch's markers go in one transaction, like its files in one intent.
          async commitMany(label: string, items: readonly ChangeBatchItem[]) {
            await catalog.beginChange(items.flatMap(({ changes }) => [...changes.writes.map(([path]) => path), ...changes.deletes]).map(dirOf));
            await inner.commitMany!(label, items);
          },
        }
      : {}),
  };
}
