import { createWriteContext } from '../tools/writeContext';
import type { SkillEngine } from './skillEngine';
import { archiveSkill, restoreSkill, rollbackEntry, setPinned } from './skillLifecycle';
import { SkillManageTool } from './tools/skillManage';

/**
 * What the user can do to skills from the Skills view, as one facade: every action runs as the
 * user (ledger actor `user`, no model guards) through the same code as everyone else —
 * skill_manage for create, edit and delete (so write approval and the pin refusal apply), the
 * skill lifecycle for archive, restore, rollback and pin (skillLifecycle.ts, which locks and
 * notifies). Results carry the sentence the view shows.
 */
export type SkillActionResult = { ok: true; message: string } | { ok: false; error: string };

export interface SkillSaveInput {
  name: string;
  category: string;
  content: string;
}

const failed = (error: string): SkillActionResult => ({ ok: false, error });

export class SkillActions {
  constructor(private readonly engine: SkillEngine) {}

  private manage(args: Record<string, unknown>) {
    return new SkillManageTool(this.engine).run(args, createWriteContext('user'));
  }

  async save(mode: 'create' | 'edit', input: SkillSaveInput): Promise<SkillActionResult> {
    const category = input.category.trim();
    const outcome = await this.manage({ action: mode, name: input.name, content: input.content, ...(mode === 'create' && category ? { category } : {}) });
    if (!outcome.success) return failed(outcome.error);
    return { ok: true, message: mode === 'create' ? `Created skill ${input.name}.` : `Saved changes to ${input.name}.` };
  }

  async delete(name: string): Promise<SkillActionResult> {
    const outcome = await this.manage({ action: 'delete', name });
    return outcome.success ? { ok: true, message: `Deleted skill ${name}.` } : failed(outcome.error);
  }

  /** The skill moves to skills/.archive/ (out of the index) and can be restored. */
  async archive(name: string): Promise<SkillActionResult> {
    const result = await archiveSkill(this.engine, name, { actor: 'user', evidence: { reason: 'archived from the Skills view' } });
    return result.success ? { ok: true, message: `Archived ${name}: it is out of the skill index until you restore it.` } : failed(result.error);
  }

  /** The newest archived copy moves back into skills/, active again. */
  async restore(name: string): Promise<SkillActionResult> {
    const result = await restoreSkill(this.engine, name, { actor: 'user' });
    return result.success ? { ok: true, message: `Restored ${name}.` } : failed(result.error);
  }

  async rollback(entryId: string): Promise<SkillActionResult> {
    const result = await rollbackEntry(this.engine, entryId, 'user');
    return result.success ? { ok: true, message: 'Rolled back. The rollback is in the history too, so it can be undone.' } : failed(result.error);
  }

  async togglePin(name: string): Promise<SkillActionResult> {
    const pinned = !(await this.engine.usage.get(name)).pinned;
    const result = await setPinned(this.engine, name, pinned);
    if (!result.success) return failed(result.error);
    return {
      ok: true,
      message: pinned ? `Pinned ${name}: it cannot be deleted, and the review agent and curator leave it alone.` : `Unpinned ${name}.`,
    };
  }
}
