/**
 * Knack's messages and tools in the OpenAI Chat Completions wire shape.
 */
import type { ChatMessage, ToolSpec } from './provider';

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; content: string; tool_call_id: string };

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: unknown };
}

function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function toOpenAIMessages(messages: readonly ChatMessage[]): OpenAIMessage[] {
  return messages.map((message): OpenAIMessage => {
    if (message.role === 'assistant') {
      const out: OpenAIMessage = { role: 'assistant', content: message.content };
      if (message.toolCalls && message.toolCalls.length > 0) {
        out.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          // Servers that render tool calls through a chat template (llama.cpp, Ollama) parse
          // these arguments and reject the whole request when they are broken JSON. The tool
          // result that follows already tells the model what was wrong with them.
          function: { name: call.name, arguments: isJsonObjectText(call.arguments) ? call.arguments : '{}' },
        }));
      }
      return out;
    }
    if (message.role === 'tool') {
      // No `name`: OpenAI's tool message has no such field, and the id already links the result.
      return { role: 'tool', content: message.content, tool_call_id: message.toolCallId ?? '' };
    }
    return { role: message.role, content: message.content };
  });
}

export function toOpenAITools(tools: readonly ToolSpec[]): OpenAITool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters ?? { type: 'object', properties: {} } },
  }));
}
