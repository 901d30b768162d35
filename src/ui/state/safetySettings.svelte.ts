import type { SkillSettings } from '../../skills/skillEngine';
import type { MemorySettings } from '../../app/settings';
import { appServices } from '../../app/services';

/**
 * The approval and scanning switches (docs/skill-tools.md, docs/learning-loop.md): the `skills` and `memory` keys of the
 * settings service, which the engines and the review worker read too; this module only
 * mirrors and saves them.
 */
export type ApprovalMode = SkillSettings['writeApproval'];

class SafetySettingsState {
  skills = $state<SkillSettings | null>(null);
  memory = $state<MemorySettings | null>(null);
  status = $state('');

  async load(): Promise<void> {
    const { settings } = await appServices();
    this.skills = { ...settings.get('skills') };
    this.memory = { ...settings.get('memory') };
  }

  async updateSkills(change: Partial<SkillSettings>): Promise<void> {
    const { settings } = await appServices();
    this.skills = { ...(await settings.update('skills', change)) };
    this.status = 'Saved.';
  }

  async updateMemory(change: Partial<MemorySettings>): Promise<void> {
    const { settings } = await appServices();
    this.memory = { ...(await settings.update('memory', change)) };
    this.status = 'Saved.';
  }
}

export const safetySettings = new SafetySettingsState();
