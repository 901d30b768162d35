/**
 * The library over the skill engine, for the sync core (localLibrary.ts). Every write goes
 * through the lifecycle's one commit path (`commitSkillChange`: the skill's lock, one journaled
 * change, its ledger entry, the catalogue, one change event), with actor `import` and evidence
 * `via: 'sync'`, recording each file's mode as an import does so Export gives the same modes
 * (zipExport.ts `importedModes`). A deletion that came from another device is `deleteSkill`:
 * ledgered with the bytes, so it can be restored.
 */
import { decodeSkillText } from '../skills/frontmatter';
import { captureFiles, type SkillFiles } from '../skills/ledger';
import { commitSkillChange, deleteSkill, type SkillChange } from '../skills/skillLifecycle';
import { SKILLS_ROOT } from '../skills/skillCatalog';
import type { SkillEngine } from '../skills/skillEngine';
import { defaultMode, importedModes } from '../skills/zipExport';
import { skillContentHash } from '../skills/installedSource';
import type { UsageEffect } from '../skills/commitEffects';
import type { ArrivedVerdict } from '../skills/modelVerdicts';
import type { LocalLibrary, LocalSkill, RemoveResult } from './localLibrary';
import { RECORD_FORMAT, type KnackSkillRecord, type SyncedVerdict } from './syncLayout';
import type { SyncedFiles } from './syncState';

export class SkillEngineLibrary implements LocalLibrary {
  constructor(private readonly engine: SkillEngine) {}

  /** Top-level skills: a skill nested in another's folder travels inside it, as in Export. */
  async list(): Promise<string[]> {
    const entries = this.engine.catalog.entries();
    const dirs = new Set(entries.map((entry) => entry.dir));
    const nested = (dir: string) => {
      for (let cut = dir.lastIndexOf('/'); cut > 0; cut = dir.lastIndexOf('/', cut - 1)) if (dirs.has(dir.slice(0, cut))) return true;
      return false;
    };
    return [...new Set(entries.filter((entry) => !nested(entry.dir)).map((entry) => entry.name))].sort();
  }

  async read(name: string): Promise<LocalSkill | null> {
    const entry = this.engine.catalog.findByName(name)[0];
    if (!entry) return null;
    const captured = await captureFiles(this.engine.files, entry.dir);
    if (captured.size === 0) return null;
    const modes = importedModes(await this.engine.ledger.list(name));
    const files: SyncedFiles = new Map();
    for (const [path, bytes] of [...captured].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const relative = path.slice(entry.dir.length + 1);
      files.set(relative, { bytes, mode: modes?.get(relative) ?? defaultMode(relative, bytes) });
    }
    return { name, files, record: await this.#record(name, files) };
  }

  /** Its installed source and its fresh verdicts, each with the content hash it was measured on. */
  async #record(name: string, files: SyncedFiles): Promise<KnackSkillRecord> {
    const usage = await this.engine.usage.find(name);
    const verdicts: SyncedVerdict[] = [];
    // This device's own measurements; those that arrived from another device travel through
    // the sync state's arrived verdicts (skillRecords.ts), so the view can say where they came from.
    const fresh = Object.entries(usage?.model_verdicts ?? {}).filter(([, verdict]) => !verdict.stale && verdict.verification !== 'unmeasured' && verdict.measured_on === undefined);
    if (fresh.length > 0) {
      const hash = await skillContentHash(new Map([...files].map(([path, file]) => [path, file.bytes])), new Map([...files].map(([path, file]) => [path, file.mode])));
      for (const [model, verdict] of fresh) verdicts.push({ model, verification: verdict.verification, contentHash: hash });
    }
    return { format: RECORD_FORMAT, version: 1, installed_from: usage?.installed_from ?? null, verdicts };
  }

  create(name: string, files: SyncedFiles, verdicts: readonly ArrivedVerdict[] = []): Promise<void> {
    return this.#write(name, files, true, verdicts);
  }

  update(name: string, files: SyncedFiles, verdicts: readonly ArrivedVerdict[] = []): Promise<void> {
    return this.#write(name, files, false, verdicts);
  }

  async acceptVerdicts(name: string, verdicts: readonly ArrivedVerdict[]): Promise<void> {
    if (verdicts.length > 0) await this.engine.usage.acceptArrivedVerdicts(name, verdicts);
  }

  /**
   * The usage effects of a write: a new skill is created (staged, as an import); new files for
   * one that exists make its earlier verdicts stale, as an edit does; then the verdicts that
   * arrived for exactly these files — in the same commit, so the gate's change event already
   * sees them and queues no run for a model they cover (docs/sync.md, "Proof travels").
   */
  #usageEffects(name: string, creating: boolean, verdicts: readonly ArrivedVerdict[]): UsageEffect[] {
    const effects: UsageEffect[] = creating ? [{ op: 'created', name, source: 'import' }] : [{ op: 'bumpPatch', name }];
    if (verdicts.length > 0) effects.push({ op: 'acceptArrivedVerdicts', name, verdicts: [...verdicts] });
    return effects;
  }

  async #write(name: string, files: SyncedFiles, creating: boolean, verdicts: readonly ArrivedVerdict[]): Promise<void> {
    const engine = this.engine;
    const committed = await commitSkillChange(engine, name, async (): Promise<SkillChange<null>> => {
      const existing = engine.catalog.findByName(name)[0];
      const dir = existing?.dir ?? `${SKILLS_ROOT}/${name}`;
      const before: SkillFiles = await captureFiles(engine.files, dir);
      const after: SkillFiles = new Map([...files].map(([path, file]) => [`${dir}/${path}`, file.bytes]));
      const usage = this.#usageEffects(name, creating && !existing, verdicts);
      return {
        skill: name,
        action: 'import',
        dir,
        files: {
          actor: 'import',
          label: `sync ${name}`,
          before,
          after,
          changes: { writes: [...after], deletes: [...before.keys()].filter((path) => !after.has(path)) },
          evidence: { via: 'sync', modes: Object.fromEntries([...files].map(([path, file]) => [path, file.mode])) },
        },
        usage,
        settle: async () => {
          await engine.catalog.upsert(dir, decodeSkillText(files.get('SKILL.md')!.bytes).text);
        },
        result: null,
      };
    });
    if (!committed.success) throw new Error(committed.error);
  }

  async remove(name: string): Promise<RemoveResult> {
    const removed = await deleteSkill(this.engine, name, { actor: 'import', evidence: { via: 'sync' } });
    return removed.success ? { ok: true } : { ok: false, error: removed.error };
  }

  async applyRecord(name: string, record: KnackSkillRecord): Promise<void> {
    if (!record.installed_from) return;
    const source = record.installed_from;
    await this.engine.usage.update(name, (usage) => {
      usage.installed_from = source;
    });
  }
}
