/**
 * What a chat session needs from the app's services, put together once by the composition
 * root (app/appServices.ts): the context's one tool registry (memory, skills, session search),
 * the system prompt builder, the session store and a skill loader for `/<skill>`. The
 * provider comes from the UI state.
 */
import type { ChatSessionDeps, SkillLoader } from '../agent/chatSession';
import { sessionPromptBuilder, type SessionPromptContext } from '../agent/sessionPrompt';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { ChatMessage } from '../providers/provider';
import type { RouterMatcher } from '../skills/skillRouter';
import type { UseOutcome } from '../skills/candidateCases';
import { chatRouter, routeMessage, type RoutedModel } from './routerServices';
import type { SessionSearch } from '../sessions/sessionSearch';
import type { KnackSettingsService } from './settings';
import type { MemoryServices } from './memoryServices';
import type { SessionServices } from './sessionServices';
import type { SkillServices } from './skillServices';
import type { SkillSettings } from '../skills/skillEngine';

export interface ChatServices extends Pick<ChatSessionDeps, 'store' | 'registry'> {
  /** ChatSessionDeps' builder, told which model the chat uses (its index labels by that model's verdicts). */
  buildSystemPrompt(firstUserMessage: string, context?: SessionPromptContext): Promise<string>;
  search: SessionSearch;
  skills: SkillLoader;
  /** Active skills for slash completion, sorted by name. */
  skillList(): { name: string; description: string }[];
  /** A user turn starts: the memory tool's per-turn failure budget starts afresh. */
  startTurn(sessionId: string): void;
  /** The skill router's matcher over the library as it is now (routerServices.ts). */
  skillRouter(): Promise<RouterMatcher>;
  /** The skill the router loads for `text` on the chat's model, or null (routerServices.ts `routeMessage`). */
  routeFor(text: string, model: () => Promise<RoutedModel | null>): Promise<string | null>;
  /** A turn ended: the skills it loaded keep the request as a candidate case (candidateServices.ts); their names. */
  recordSkillLoads(report: { sessionId: string; readonly messages: ChatMessage[] }): Promise<string[]>;
  /** What the user did after a turn that loaded these skills. */
  recordOutcome(skills: readonly string[], outcome: UseOutcome): Promise<void>;
}

/**
 * The system prompt builder of a new chat: the one a chat session freezes its prompt with, and
 * the one reach measurements build their first-chat requests with (reachServices.ts).
 */
export function chatSystemPromptBuilder(parts: {
  registry: ToolRegistry;
  skills: Pick<SkillServices, 'index'>;
  memory: Pick<MemoryServices, 'snapshot'>;
  skillSettings: () => SkillSettings;
}): ChatServices['buildSystemPrompt'] {
  return sessionPromptBuilder({
    registry: parts.registry,
    index: parts.skills.index,
    skillSettings: parts.skillSettings,
    memorySnapshot: async (limit) => (await parts.memory.snapshot(limit)).text,
  });
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
  const skillRouter = chatRouter(skills);
  return {
    store: sessions.store,
    search: sessions.search,
    registry,
    buildSystemPrompt: chatSystemPromptBuilder({ registry, skills, memory, skillSettings: () => settings.get('skills') }),
    skills: {
      async read(name) {
        const entry = catalog.resolve(name)[0];
        return entry ? await skills.engine.files.readText(`${entry.dir}/SKILL.md`) : null;
      },
      bumpUse: (name) => skills.engine.usage.bumpUse(name),
    },
    startTurn: (sessionId) => memory.store.resetConsolidationFailures(sessionId),
    skillRouter,
    routeFor: (text, model) => routeMessage(text, { settings: settings.get('skills'), model, matcher: skillRouter }),
    recordSkillLoads: async (report) => (await import('./candidateServices')).recordSkillLoads({ skills, sessions: sessions.store }, report),
    recordOutcome: async (names, outcome) => (await import('./candidateServices')).recordOutcome(skills, names, outcome),
    skillList: () =>
      catalog
        .entries()
        .filter((entry) => !entry.dir.startsWith('skills/.archive/'))
        .map((entry) => ({ name: entry.name, description: entry.description }))
        .sort((a, b) => a.name.localeCompare(b.name)),
  };
}
