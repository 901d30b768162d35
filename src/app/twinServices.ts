/**
 * Possible duplicates for the Skills view (docs/learning-loop.md, "Possible duplicates"): the library's
 * skills read as twin inputs (description, body, case prompts) for the curator's twin finder, and
 * an offered merge applied as the user: the merged skill created with the union of both skills'
 * cases, then both originals archived (restorable from the archive like any archived skill).
 */
import { findTwins, type TwinInput, type TwinPair } from '../curator/twins';
import { parseEvalsFile } from '../gate/evalCases';
import { EVALS_FILE } from '../gate/gateJob';
import { readSkillMeta } from '../skills/skillDocument';
import { SkillActions, type SkillActionResult } from '../skills/skillActions';
import { createWriteContext } from '../tools/writeContext';
import type { SkillServices } from './skillServices';

const decoder = new TextDecoder();

async function twinInputOf(skills: SkillServices, name: string): Promise<TwinInput | null> {
  const [markdown, evals] = await Promise.all([skills.readSkillFile(name, 'SKILL.md'), skills.readSkillFile(name, EVALS_FILE)]);
  if (markdown === null) return null;
  const meta = readSkillMeta(decoder.decode(markdown));
  const parsed = evals === null ? null : parseEvalsFile(decoder.decode(evals));
  return { name, description: meta.description ?? '', body: meta.body, casePrompts: parsed?.ok ? parsed.file.evals.map((item) => item.prompt) : [] };
}

/**
 * The twin pairs of the active library, best first. What it read of each skill is kept until
 * that skill changes (`changed`), so a reload after one skill's change reads one skill, not the
 * library (1,423 skills are 2,846 file reads).
 */
export class TwinLister {
  readonly #inputs = new Map<string, Promise<TwinInput | null>>();

  constructor(readonly skills: SkillServices) {}

  /** Forget what was read of a skill, or of every skill (`'*'`: a rescan, another library). */
  changed(name: string): void {
    if (name === '*') this.#inputs.clear();
    else this.#inputs.delete(name);
  }

  async list(): Promise<TwinPair[]> {
    const names = new Set(this.skills.engine.catalog.entries().map((entry) => entry.name));
    for (const name of this.#inputs.keys()) if (!names.has(name)) this.#inputs.delete(name);
    const reads = [...names].map((name) => {
      let read = this.#inputs.get(name);
      if (!read) {
        // A read that failed is not kept: the next list tries again.
        const started: Promise<TwinInput | null> = twinInputOf(this.skills, name).catch((error: unknown) => {
          if (this.#inputs.get(name) === started) this.#inputs.delete(name);
          throw error;
        });
        read = started;
        this.#inputs.set(name, read);
      }
      return read;
    });
    return findTwins((await Promise.all(reads)).filter((input): input is TwinInput => input !== null));
  }
}

export interface MergeOffer {
  a: string;
  b: string;
  name: string;
  markdown: string;
  evals: string;
}

/** Creates the merged skill with its cases, then archives both originals. Stops at the first failure, saying what was done. */
export async function applyMerge(skills: SkillServices, offer: MergeOffer): Promise<SkillActionResult> {
  const actions = new SkillActions(skills.engine);
  const created = await actions.save('create', { name: offer.name, category: '', content: offer.markdown });
  if (!created.ok) return created;
  const { SkillManageTool } = await import('../skills/tools/skillManage');
  const cases = await new SkillManageTool(skills.engine).run({ action: 'write_file', name: offer.name, file_path: EVALS_FILE, file_content: offer.evals }, createWriteContext('user'));
  if (!cases.success) return { ok: false, error: `Created ${offer.name}, but its cases could not be written: ${cases.error}` };
  for (const name of [offer.a, offer.b]) {
    const archived = await actions.archive(name);
    if (!archived.ok) return { ok: false, error: `Created ${offer.name}, but ${name} could not be archived: ${archived.error}` };
  }
  return { ok: true, message: `Merged ${offer.a} and ${offer.b} into ${offer.name}; both are archived and can be restored.` };
}
