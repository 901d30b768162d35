/**
 * The one place a reach request is built (docs/gate.md, "Reach"): shaped exactly like the first
 * request of a new chat on the gate's model — the real system prompt (instructions, memory, the
 * skill index ranked against this very prompt and labelled for that model) and the real tools —
 * with the case's prompt as the first user message. The session-prompt builder and the tool
 * specs come in as dependencies, so whatever builds a chat's first prompt (a token-budgeted
 * builder included) builds the reach request too.
 */
import type { ChatMessage, ToolSpec } from '../providers/provider';

/** What a chat's first prompt is built with: `sessionPromptBuilder(...)` of agent/sessionPrompt.ts. */
export type SessionPromptBuild = (firstUserMessage: string, context?: { model?: string; asPromoted?: string }) => Promise<string>;

export interface FirstChatRequestDeps {
  buildSystemPrompt: SessionPromptBuild;
  /** The tools a chat offers (agent/agentLoop.ts `toolSpecs(registry)`). */
  toolSpecs: () => ToolSpec[];
}

export interface FirstChatRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
}

/**
 * `(prompt, model key, measured skill) → request`: the builder reach measurements use. The
 * measured skill is labelled in the index as if promoted on that model (docs/gate.md, "Reach").
 */
export type FirstChatRequestBuilder = (prompt: string, model?: string, measured?: string) => Promise<FirstChatRequest>;

export function firstChatRequestBuilder(deps: FirstChatRequestDeps): FirstChatRequestBuilder {
  return async (prompt, model, measured) => {
    const context = { ...(model !== undefined ? { model } : {}), ...(measured !== undefined ? { asPromoted: measured } : {}) };
    const systemPrompt = await deps.buildSystemPrompt(prompt, Object.keys(context).length > 0 ? context : undefined);
    return {
      messages: [
        { role: 'system', content: systemPrompt },
        { role: 'user', content: prompt },
      ],
      tools: deps.toolSpecs(),
    };
  };
}
