import type { SkillSettings } from '../../skills/skillEngine';
import type { MemorySettings } from '../../app/memoryServices';

/**
 * The approval and scanning switches (SPEC §6, §8.4). They live with the engines that obey
 * them — skill settings with the skill services, memory settings with the memory services —
 * so the review worker reads the same values; this module only loads and saves them.
 */
export type ApprovalMode = SkillSettings['writeApproval'];

class SafetySettingsState {
  skills = $state<SkillSettings | null>(null);
  memory = $state<MemorySettings | null>(null);
  status = $state('');

  async load(): Promise<void> {
    const [{ skillServices }, { memoryServices }] = await Promise.all([import('../../app/skillServices'), import('../../app/memoryServices')]);
    const [skills, memory] = await Promise.all([skillServices(), memoryServices()]);
    this.skills = { ...skills.settings.get() };
    this.memory = { ...memory.settings() };
  }

  async updateSkills(change: Partial<SkillSettings>): Promise<void> {
    const { skillServices } = await import('../../app/skillServices');
    this.skills = { ...(await (await skillServices()).settings.update(change)) };
    this.status = 'Saved.';
  }

  async updateMemory(change: Partial<MemorySettings>): Promise<void> {
    const { memoryServices } = await import('../../app/memoryServices');
    this.memory = { ...(await (await memoryServices()).updateSettings(change)) };
    this.status = 'Saved.';
  }
}

export const safetySettings = new SafetySettingsState();
