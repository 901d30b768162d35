/**
 * Tool calling for models that have none (docs/providers.md): the tools and how to call them go
 * into the system prompt, the model answers with `<tool_call>{…}</tool_call>` blocks, and
 * this wrapper turns those blocks back into `tool-call` parts. Earlier calls and results in
 * the history are written out the same way, so the model sees one consistent convention.
 *
 * A block that can't be used (broken JSON, no name, wrong shape, unknown tool, arguments
 * that don't fit the schema) still becomes a `tool-call`, with `parseError` saying what is
 * wrong: the agent loop answers it with a failure result, and the model can try again.
 */
import type { ChatMessage, ChatProvider, ChatRequest, StreamPart, ToolCall, ToolSpec } from './provider';
import { checkToolArguments } from './toolArgumentsCheck';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, ToolBlockParser, type ParsedPiece } from './toolBlockParser';

const EXAMPLE = `${TOOL_CALL_OPEN}{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}${TOOL_CALL_CLOSE}`;
const FORMAT_REMINDER = `Write exactly one JSON object per block: ${EXAMPLE}`;

/** The part of the system prompt that offers the tools. */
export function toolProtocolPrompt(tools: readonly ToolSpec[]): string {
  const listing = tools
    .map((tool) => JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters ?? { type: 'object' } }))
    .join('\n');
  return [
    '# Tools',
    '',
    'You can call tools. To call one, write a block in exactly this form:',
    '',
    EXAMPLE,
    '',
    'Rules:',
    '- Each block holds one JSON object with "name" (one of the tools below) and "arguments" (an object that fits that tool\'s parameters).',
    '- To call several tools, write several blocks. After your blocks, stop and wait: the results come back in the next message as <tool_result name="TOOL_NAME">…</tool_result>.',
    '- Text outside the blocks is shown to the user. Write a block only when you mean to call the tool, and never write a <tool_result> yourself.',
    '- If a result says your call could not be read, correct the block and try again.',
    '',
    'Available tools (parameters are JSON Schema):',
    listing,
  ].join('\n');
}

function argumentsValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function callAsText(call: ToolCall): string {
  return `${TOOL_CALL_OPEN}${JSON.stringify({ name: call.name, arguments: argumentsValue(call.arguments) })}${TOOL_CALL_CLOSE}`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * The history in text form: assistant tool calls become blocks in the assistant's text,
 * and tool results become user messages (consecutive results share one), since a model
 * without tool calling usually has no chat-template slot for either.
 */
export function historyAsText(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const blocks = message.toolCalls.map(callAsText).join('\n');
      out.push({ role: 'assistant', content: message.content ? `${message.content}\n${blocks}` : blocks });
      continue;
    }
    if (message.role === 'tool') {
      const result = `<tool_result name="${escapeAttribute(message.name ?? '')}">${message.content}</tool_result>`;
      const previous = out[out.length - 1];
      if (previous && previous.role === 'user' && previous.content.startsWith('<tool_result ')) previous.content += `\n${result}`;
      else out.push({ role: 'user', content: result });
      continue;
    }
    out.push({ role: message.role, content: message.content });
  }
  if (tools.length > 0) {
    const prompt = toolProtocolPrompt(tools);
    const system = out.findIndex((message) => message.role === 'system');
    if (system === -1) out.unshift({ role: 'system', content: prompt });
    else out[system] = { role: 'system', content: out[system].content ? `${out[system].content}\n\n${prompt}` : prompt };
  }
  return out;
}

function stripCodeFence(text: string): string {
  const fenced = /^```[a-zA-Z]*\s*([\s\S]*?)\s*```$/.exec(text);
  return fenced ? fenced[1] : text;
}

/** Reads one block's body into a ToolCall, with `parseError` when it can't be used as is. */
export function readToolBlock(body: string, closed: boolean, id: string, tools: readonly ToolSpec[]): ToolCall {
  const text = stripCodeFence(body.trim());
  const failed = (name: string, args: string, problem: string): ToolCall => ({ id, name, arguments: args, parseError: problem });
  const unclosedNote = closed ? '' : ` The block was never closed with ${TOOL_CALL_CLOSE}.`;

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return failed('', body, `The ${TOOL_CALL_OPEN} block is not valid JSON (${reason}).${unclosedNote} ${FORMAT_REMINDER}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return failed('', body, `The ${TOOL_CALL_OPEN} block must hold a JSON object.${unclosedNote} ${FORMAT_REMINDER}`);
  }
  const fields = parsed as Record<string, unknown>;
  const name = typeof fields.name === 'string' ? fields.name.trim() : '';
  if (name === '') return failed('', body, `The ${TOOL_CALL_OPEN} block has no "name".${unclosedNote} ${FORMAT_REMINDER}`);

  // "parameters" is a common slip for "arguments"; a JSON string holding the object is another.
  let args: unknown = 'arguments' in fields ? fields.arguments : 'parameters' in fields ? fields.parameters : {};
  if (typeof args === 'string') args = argumentsValue(args);
  const argsText = typeof args === 'string' ? args : JSON.stringify(args ?? null);
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return failed(name, argsText, `"arguments" must be a JSON object.${unclosedNote} ${FORMAT_REMINDER}`);
  }

  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) {
    const known = tools.map((candidate) => candidate.name).join(', ');
    return failed(name, argsText, `There is no tool named "${name}".${known ? ` Available tools: ${known}.` : ''}`);
  }
  const problems = checkToolArguments(args, tool.parameters);
  if (problems.length > 0) return failed(name, argsText, `Arguments for "${name}" do not fit its parameters: ${problems.join(' ')}`);
  // A complete call whose closing tag never came (the model stopped right after it, or a
  // stop sequence ate the tag) is still clearly what the model meant.
  return { id, name, arguments: argsText };
}

/** Wraps `provider` so tools travel as text instead of native tool calls. */
export function withTextToolProtocol(provider: ChatProvider): ChatProvider {
  return {
    id: provider.id,
    model: provider.model,
    nativeTools: false,
    stream: (request) => streamWithTextTools(provider, request),
    ...(provider.listModels ? { listModels: (signal?: AbortSignal) => provider.listModels!(signal) } : {}),
  };
}

async function* streamWithTextTools(provider: ChatProvider, request: ChatRequest): AsyncGenerator<StreamPart> {
  const tools = request.tools ?? [];
  const parser = new ToolBlockParser();
  let callCount = 0;
  const toParts = (pieces: ParsedPiece[]): StreamPart[] =>
    pieces.map((piece): StreamPart => {
      if (piece.type === 'text') return { type: 'text-delta', text: piece.text };
      callCount++;
      return { type: 'tool-call', call: readToolBlock(piece.body, piece.closed, `call_${callCount}`, tools) };
    });

  const inner = provider.stream({ ...request, tools: undefined, messages: historyAsText(request.messages, tools) });
  for await (const part of inner) {
    switch (part.type) {
      case 'text-delta':
        yield* toParts(parser.push(part.text));
        break;
      case 'tool-call':
        // The wrapped provider made a native call after all: pass it on.
        callCount++;
        yield part;
        break;
      case 'finish': {
        if (part.reason === 'abort' || part.reason === 'error') {
          yield* toParts(parser.abandon());
          yield part;
          return;
        }
        yield* toParts(parser.end());
        const madeCalls = callCount > 0 && (part.reason === 'stop' || part.reason === 'other' || part.reason === 'tool-calls');
        yield { type: 'finish', reason: madeCalls ? 'tool-calls' : part.reason };
        return;
      }
      default:
        yield part;
    }
  }
  // The wrapped stream ended without a finish part (it should not): still flush.
  yield* toParts(parser.end());
  yield { type: 'finish', reason: callCount > 0 ? 'tool-calls' : 'other' };
}
