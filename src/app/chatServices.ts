/**
 * What a chat session needs from the app's services, put together once by the composition
 * root (app/appServices.ts): the context's one tool registry (memory, skills, session search),
 * the system prompt builder, the session store and a skill loader for `/<skill>`. The
 * provider comes from the UI state.
 */
import type { ChatSessionDeps, SkillLoader } from '../agent/chatSession';
import { sessionPromptBuilder, type SessionPromptContext } from '../agent/sessionPrompt';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { SessionSearch } from '../sessions/sessionSearch';
import type { KnackSettingsService } from './settings';
import type { MemoryServices } from './memoryServices';
import type { SessionServices } from './sessionServices';
import type { SkillServices } from './skillServices';

export interface ChatServices extends Pick<ChatSessionDeps, 'store' | 'registry'> {
  /** ChatSessionDeps' builder, told which model the chat uses (its index labels by that model's verdicts). */
  buildSystemPrompt(firstUserMessage: string, context?: SessionPromptContext): Promise<string>;
  search: SessionSearch;
  skills: SkillLoader;
  /** Active skills for slash completion, sorted by name. */
  skillList(): { name: string; description: string }[];
  /** A user turn starts: the memory tool's per-turn failure budget starts afresh. */
  startTurn(sessionId: string): void;
}

export function createChatServices(parts: {
  registry: ToolRegistry;
  settings: KnackSettingsService;
  memory: MemoryServices;
  skills: SkillServices;
  sessions: SessionServices;
}): ChatServices {
  const { registry, memory, skills, sessions, settings } = parts;
  const { catalog } = skills.engine;
  return {
    store: sessions.store,
    search: sessions.search,
    registry,
    buildSystemPrompt: sessionPromptBuilder({
      registry,
      index: skills.index,
      skillSettings: () => settings.get('skills'),
      memorySnapshot: async () => (await memory.snapshot()).text,
    }),
    skills: {
      async read(name) {
        const entry = catalog.resolve(name)[0];
        return entry ? await skills.engine.files.readText(`${entry.dir}/SKILL.md`) : null;
      },
      bumpUse: (name) => skills.engine.usage.bumpUse(name),
    },
    startTurn: (sessionId) => memory.store.resetConsolidationFailures(sessionId),
    skillList: () =>
      catalog
        .entries()
        .filter((entry) => !entry.dir.startsWith('skills/.archive/'))
        .map((entry) => ({ name: entry.name, description: entry.description }))
        .sort((a, b) => a.name.localeCompare(b.name)),
  };
}
