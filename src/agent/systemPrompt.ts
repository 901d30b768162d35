/**
 * The system prompt, built once per session and then frozen (docs/chat.md): the prefix stays the
 * same for every call of the session, which keeps provider prefix caches warm. A skill
 * written mid-session shows up in the next session's index; this session learns of it from
 * the tool result.
 */
export const KNACK_INSTRUCTIONS = `You are Knack, a helpful assistant that runs in the user's browser. You keep what you learn: procedures go into skills, facts about the user and their setup go into memory. Be direct and accurate. Use the tools when they help; say so plainly when you cannot do something.`;

export const SKILLS_GUIDANCE = `Learning skills: after a task that took many steps, a fix that was hard to find, a workflow worth repeating, or a correction of your style or method, save it as a skill with skill_manage so next time goes right the first time. If a skill you loaded was wrong or incomplete, patch it right away, without being asked.`;

export const MEMORY_GUIDANCE = `Memory: it is shown to you at the start of every session, so keep it short. Save what spares the user from repeating themselves (preferences, recurring corrections, facts about their environment) as plain statements. Do not save task progress, one-off details, or anything that will be stale within a week; procedures belong in skills.`;

export interface SystemPromptParts {
  tools: string[];
  memorySnapshot: string;
  skillIndex: string;
  extraInstructions?: string;
}

export function buildSystemPrompt(parts: SystemPromptParts): string {
  const sections = [KNACK_INSTRUCTIONS];
  if (parts.extraInstructions) sections.push(parts.extraInstructions);
  if (parts.tools.includes('skill_manage')) sections.push(SKILLS_GUIDANCE);
  if (parts.tools.includes('memory')) sections.push(MEMORY_GUIDANCE);
  if (parts.memorySnapshot.trim()) sections.push(parts.memorySnapshot.trim());
  if (parts.skillIndex.trim()) sections.push(parts.skillIndex.trim());
  return sections.join('\n\n');
}

/** The heading the skill index starts with (src/skills/skillIndex.ts). */
const INDEX_START = '\n\n## Skills\n';
/** Memory blocks open with a rule line of this character (src/memory/memoryStore.ts). */
const MEMORY_RULE_CHAR = '═';

/**
 * A frozen system prompt split into what the context meter shows: Knack's instructions and
 * guidance, the memory snapshot and the skill index. Found by their fixed openings, so a prompt
 * stored by any version can be measured.
 */
export function systemPromptParts(prompt: string): { instructions: string; memory: string; skills: string } {
  const indexAt = prompt.indexOf(INDEX_START);
  const skills = indexAt >= 0 ? prompt.slice(indexAt + 2) : '';
  const before = indexAt >= 0 ? prompt.slice(0, indexAt) : prompt;
  const memoryAt = before.indexOf(`\n\n${MEMORY_RULE_CHAR}`);
  return {
    instructions: memoryAt >= 0 ? before.slice(0, memoryAt) : before,
    memory: memoryAt >= 0 ? before.slice(memoryAt + 2) : '',
    skills,
  };
}
