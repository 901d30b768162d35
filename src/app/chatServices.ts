/**
 * What a chat session needs from the app's services, put together once: the tool registry
 * (memory, skills, session search), the system prompt builder, the session store and a
 * skill loader for `/<skill>`. The provider and the settings come from the UI state.
 */
import type { ChatSessionDeps, SkillLoader } from '../agent/chatSession';
import { sessionPromptBuilder } from '../agent/sessionPrompt';
import { ToolRegistry } from '../tools/toolRegistry';
import type { SessionSearch } from '../sessions/sessionSearch';

export interface ChatServices extends Pick<ChatSessionDeps, 'store' | 'registry' | 'buildSystemPrompt'> {
  search: SessionSearch;
  skills: SkillLoader;
  /** Active skills for slash completion, sorted by name. */
  skillList(): { name: string; description: string }[];
  /** A user turn starts: the memory tool's per-turn failure budget starts afresh. */
  startTurn(sessionId: string): void;
}

async function createChatServices(): Promise<ChatServices> {
  const [{ memoryServices }, { skillServices }, { sessionServices }] = await Promise.all([
    import('./memoryServices'),
    import('./skillServices'),
    import('./sessionServices'),
  ]);
  const [memory, skills, sessions] = await Promise.all([memoryServices(), skillServices(), sessionServices()]);
  const registry = new ToolRegistry([memory.tool, ...skills.registry.definitions(), sessions.tool]);
  const { catalog } = skills.engine;
  return {
    store: sessions.store,
    search: sessions.search,
    registry,
    buildSystemPrompt: sessionPromptBuilder({
      registry,
      index: skills.index,
      skillSettings: () => skills.settings.get(),
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

let started: Promise<ChatServices> | null = null;

/** The UI thread's chat services, created on first use. */
export function chatServices(): Promise<ChatServices> {
  started ??= createChatServices();
  started.catch(() => (started = null)); // let a later send retry after a failed start
  return started;
}
