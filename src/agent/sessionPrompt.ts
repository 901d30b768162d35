/**
 * The system prompt of a new chat session (docs/chat.md): Knack's instructions, the guidance for
 * the tools on offer, the frozen memory snapshot and the skill index, ranked against the
 * first user message when it does not fit its budget. Built once; the session keeps it.
 */
import { buildSystemPrompt } from './systemPrompt';
import type { SkillIndex } from '../skills/skillIndex';
import type { SkillSettings } from '../skills/skillEngine';
import type { ToolRegistry } from '../tools/toolRegistry';

/** Toolsets as skill frontmatter names them (`requires_toolsets`, `fallback_for_toolsets`). */
const TOOLSET_OF: Record<string, string> = {
  skills_list: 'skills',
  skill_view: 'skills',
  skill_manage: 'skills',
  memory: 'memory',
  session_search: 'session_search',
};

export interface SessionPromptSources {
  registry: ToolRegistry;
  index: SkillIndex;
  skillSettings(): SkillSettings;
  /** The memory block of the prompt ("" when memory is empty or off). */
  memorySnapshot(): Promise<string>;
}

/** Optional facts of the chat the prompt is for. */
export interface SessionPromptContext {
  /** The chat model's key (gate/modelKey.ts): the index labels skills by that model's verdicts. */
  model?: string;
}

export function sessionPromptBuilder(sources: SessionPromptSources): (firstUserMessage: string, context?: SessionPromptContext) => Promise<string> {
  return async (firstUserMessage, context) => {
    const tools = sources.registry.names();
    const settings = sources.skillSettings();
    const toolsets = new Set(tools.map((tool) => TOOLSET_OF[tool]).filter((set): set is string => set !== undefined));
    const [memorySnapshot, skillIndex] = await Promise.all([
      sources.memorySnapshot(),
      sources.index.render({
        platform: settings.platform,
        disabled: settings.disabled,
        available: { tools: new Set(tools), toolsets },
        tokenBudget: settings.indexTokenBudget,
        firstUserMessage,
        ...(context?.model !== undefined ? { model: context.model } : {}),
      }),
    ]);
    return buildSystemPrompt({ tools, memorySnapshot, skillIndex });
  };
}
