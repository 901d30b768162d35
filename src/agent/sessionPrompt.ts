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

/** A model window's limits on the prompt's parts (src/agent/contextBudget.ts `planFor`). */
export interface PromptFit {
  indexTokens: number;
  memoryTokens: number;
  /** The tools the chat is offered at this window (all of the registry's when absent). */
  tools?: readonly string[];
}

export interface SessionPromptSources {
  registry: ToolRegistry;
  index: SkillIndex;
  skillSettings(): SkillSettings;
  /** The memory block of the prompt ("" when memory is empty or off), within `maxChars` when given. */
  memorySnapshot(limit?: { maxChars: number; relevantTo: string }): Promise<string>;
}

/** Characters per token the budgets below assume, as the index does (src/skills/skillIndex.ts). */
const CHARS_PER_TOKEN = 4;

/** Optional facts of the chat the prompt is for. */
export interface SessionPromptContext {
  /** The chat model's key (gate/modelKey.ts): the index labels skills by that model's verdicts. */
  model?: string;
  /** The chat model's window limits on the prompt's parts (docs/context-window.md). */
  fit?: PromptFit;
  /** A reach measurement's skill, labelled as if promoted (skills/skillIndex.ts `asPromoted`). */
  asPromoted?: string;
}

export type SessionPromptBuilder = (firstUserMessage: string, context?: SessionPromptContext) => Promise<string>;

export function sessionPromptBuilder(sources: SessionPromptSources): SessionPromptBuilder {
  return async (firstUserMessage, context) => {
    const fit = context?.fit;
    const tools = sources.registry.names().filter((name) => fit?.tools?.includes(name) ?? true);
    const settings = sources.skillSettings();
    const toolsets = new Set(tools.map((tool) => TOOLSET_OF[tool]).filter((set): set is string => set !== undefined));
    const [memorySnapshot, skillIndex] = await Promise.all([
      fit ? sources.memorySnapshot({ maxChars: fit.memoryTokens * CHARS_PER_TOKEN, relevantTo: firstUserMessage }) : sources.memorySnapshot(),
      sources.index.render({
        platform: settings.platform,
        disabled: settings.disabled,
        available: { tools: new Set(tools), toolsets },
        tokenBudget: fit ? Math.min(settings.indexTokenBudget, fit.indexTokens) : settings.indexTokenBudget,
        compactHeader: fit !== undefined && fit.indexTokens < 1_000,
        firstUserMessage,
        ...(context?.model !== undefined ? { model: context.model } : {}),
        ...(context?.asPromoted !== undefined ? { asPromoted: context.asPromoted } : {}),
      }),
    ]);
    return buildSystemPrompt({ tools, memorySnapshot, skillIndex });
  };
}
