import type { ChatMessage, ToolSpec } from '../../../src/providers/provider';
import type { TokenCounter } from '../../../src/providers/modelWindow';

/**
 * A deterministic token counter for unit tests of the window budget: four characters a token,
 * four tokens of template per message, the tool schemas as their JSON. The budget only needs a
 * counter that is consistent with the "model" it talks to; the real estimator has its own tests.
 */
export const charCounter: TokenCounter = {
  countText: (text: string) => Math.ceil(text.length / 4),
  countMessage: (message: ChatMessage) =>
    4 + Math.ceil(message.content.length / 4) + (message.toolCalls ?? []).reduce((sum, call) => sum + 6 + Math.ceil((call.name.length + call.arguments.length) / 4), 0),
  countTools: (tools: readonly ToolSpec[] | undefined) => (tools?.length ? 10 + Math.ceil(JSON.stringify(tools).length / 4) : 0),
};
