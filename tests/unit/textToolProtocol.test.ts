import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { OpenAICompatibleProvider } from '../../src/providers/openaiCompatible';
import type { ChatProvider, ChatRequest, FinishReason, StreamPart, ToolCall, ToolSpec } from '../../src/providers/provider';
import { historyAsText, withTextToolProtocol } from '../../src/providers/textToolProtocol';
import { ToolBlockParser } from '../../src/providers/toolBlockParser';
import { checkToolArguments } from '../../src/providers/toolArgumentsCheck';

const tools: ToolSpec[] = [
  {
    name: 'skill_view',
    description: 'Show a skill.',
    parameters: { type: 'object', properties: { name: { type: 'string' }, file_path: { type: 'string' } }, required: ['name'] },
  },
  {
    name: 'memory',
    description: 'Change memory.',
    parameters: {
      type: 'object',
      properties: { action: { type: 'string', enum: ['add', 'replace', 'remove'] }, target: { type: 'string' }, content: { type: 'string' } },
      required: ['action', 'target'],
      additionalProperties: false,
    },
  },
  { name: 'skills_list', description: 'List skills.', parameters: { type: 'object', properties: { category: { type: 'string' } } } },
];

/** A provider that streams fixed text pieces and records what it was asked. */
class FakeProvider implements ChatProvider {
  readonly id = 'fake';
  readonly model = 'fake-model';
  readonly nativeTools = true;
  readonly requests: ChatRequest[] = [];
  constructor(
    private pieces: string[],
    private reason: FinishReason = 'stop',
    private extra: StreamPart[] = [],
  ) {}
  async *stream(request: ChatRequest): AsyncGenerator<StreamPart> {
    this.requests.push(request);
    for (const part of this.extra) yield part;
    for (const text of this.pieces) yield { type: 'text-delta', text };
    yield { type: 'finish', reason: this.reason };
  }
}

interface Outcome {
  parts: StreamPart[];
  text: string;
  calls: ToolCall[];
  finish?: FinishReason;
}

async function run(pieces: string[], reason: FinishReason = 'stop', request: Partial<ChatRequest> = {}): Promise<Outcome> {
  const wrapped = withTextToolProtocol(new FakeProvider(pieces, reason));
  return collect(wrapped.stream({ messages: [{ role: 'user', content: 'hi' }], tools, ...request }));
}

async function collect(stream: AsyncIterable<StreamPart>): Promise<Outcome> {
  const outcome: Outcome = { parts: [], text: '', calls: [] };
  for await (const part of stream) {
    outcome.parts.push(part);
    if (part.type === 'text-delta') outcome.text += part.text;
    if (part.type === 'tool-call') outcome.calls.push(part.call);
    if (part.type === 'finish') outcome.finish = part.reason;
  }
  return outcome;
}

const reply =
  'Let me check <that> first.\n' +
  '<tool_call>{"name": "skill_view", "arguments": {"name": "git", "file_path": "a<b>.md"}}</tool_call>\n' +
  '<tool_call>\n{"name":"skills_list","arguments":{}}\n</tool_call>' +
  ' Then I answer; a < b and <tool not a tag.';
const expectedText = 'Let me check <that> first.\n\n Then I answer; a < b and <tool not a tag.';
const expectedCalls: ToolCall[] = [
  { id: 'call_1', name: 'skill_view', arguments: '{"name":"git","file_path":"a<b>.md"}' },
  { id: 'call_2', name: 'skills_list', arguments: '{}' },
];

describe('streamed parsing', () => {
  it('turns blocks into tool calls and passes the text around them through', async () => {
    const outcome = await run([reply]);
    expect(outcome.text).toBe(expectedText);
    expect(outcome.calls).toEqual(expectedCalls);
    expect(outcome.finish).toBe('tool-calls');
  });

  it('gives the same result with the reply split in two at every position', async () => {
    for (let at = 0; at <= reply.length; at++) {
      const outcome = await run([reply.slice(0, at), reply.slice(at)]);
      expect(outcome.text, `split at ${at}`).toBe(expectedText);
      expect(outcome.calls, `split at ${at}`).toEqual(expectedCalls);
    }
  });

  it('gives the same result one character at a time, and no text delta ever shows a tag', async () => {
    const outcome = await run([...reply]);
    expect(outcome.text).toBe(expectedText);
    expect(outcome.calls).toEqual(expectedCalls);
    for (const part of outcome.parts) {
      if (part.type === 'text-delta') expect(part.text).not.toMatch(/<\/?tool_call/);
    }
  });

  it('gives the same result split in three at every pair of positions in the first block', async () => {
    const end = reply.indexOf('</tool_call>') + 14;
    for (let a = 20; a < end; a += 3) {
      for (let b = a; b < end; b += 5) {
        const outcome = await run([reply.slice(0, a), reply.slice(a, b), reply.slice(b)]);
        expect(outcome.calls, `split at ${a}, ${b}`).toEqual(expectedCalls);
        expect(outcome.text).toBe(expectedText);
      }
    }
  });

  it('holds back only a possible start of a tag, and releases it when it is not one', () => {
    const parser = new ToolBlockParser();
    expect(parser.push('Hello <tool')).toEqual([{ type: 'text', text: 'Hello ' }]);
    expect(parser.push('ing> there')).toEqual([{ type: 'text', text: '<tooling> there' }]);
    expect(parser.push('<')).toEqual([]);
    expect(parser.end()).toEqual([{ type: 'text', text: '<' }]);
  });

  it('a reply without blocks finishes as the inner provider said', async () => {
    const outcome = await run(['Just ', 'text.'], 'length');
    expect([outcome.text, outcome.calls.length, outcome.finish]).toEqual(['Just text.', 0, 'length']);
  });

  it('passes reasoning and usage through untouched', async () => {
    const inner = new FakeProvider(['ok'], 'stop', [
      { type: 'reasoning-delta', text: 'hmm <tool_call>' },
      { type: 'usage', usage: { promptTokens: 1 } },
    ]);
    const outcome = await collect(withTextToolProtocol(inner).stream({ messages: [], tools }));
    expect(outcome.parts).toEqual([
      { type: 'reasoning-delta', text: 'hmm <tool_call>' },
      { type: 'usage', usage: { promptTokens: 1 } },
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('on abort passes on held-back text, drops a half-written block, and finishes abort', async () => {
    expect((await run(['Wait <tool_'], 'abort')).parts).toEqual([
      { type: 'text-delta', text: 'Wait ' },
      { type: 'text-delta', text: '<tool_' },
      { type: 'finish', reason: 'abort' },
    ]);
    const halfBlock = await run(['Sure. <tool_call>{"name": "skill_vi'], 'abort');
    expect(halfBlock.calls).toEqual([]);
    expect(halfBlock.text).toBe('Sure. ');
    expect(halfBlock.finish).toBe('abort');
  });
});

describe('malformed blocks become tool calls with parseError', () => {
  const one = async (block: string) => {
    const outcome = await run([`Before ${block} after`]);
    expect(outcome.text).toBe('Before  after');
    expect(outcome.calls).toHaveLength(1);
    expect(outcome.finish).toBe('tool-calls');
    return outcome.calls[0];
  };

  it('bad JSON keeps the raw text and explains the format', async () => {
    const call = await one('<tool_call>{"name": "memory", "arguments": {action: add}}</tool_call>');
    expect(call.name).toBe('');
    expect(call.arguments).toBe('{"name": "memory", "arguments": {action: add}}');
    expect(call.parseError).toMatch(/not valid JSON/);
    expect(call.parseError).toContain('<tool_call>{"name": "TOOL_NAME"');
  });

  it('missing name', async () => {
    expect((await one('<tool_call>{"arguments": {}}</tool_call>')).parseError).toMatch(/no "name"/);
  });

  it('not an object', async () => {
    expect((await one('<tool_call>["skill_view", {"name": "git"}]</tool_call>')).parseError).toMatch(/must hold a JSON object/);
  });

  it('arguments that are not an object', async () => {
    const call = await one('<tool_call>{"name": "skill_view", "arguments": 42}</tool_call>');
    expect(call.name).toBe('skill_view');
    expect(call.parseError).toMatch(/"arguments" must be a JSON object/);
  });

  it('unknown tool lists the tools there are', async () => {
    const call = await one('<tool_call>{"name": "web_search", "arguments": {"q": "x"}}</tool_call>');
    expect(call.name).toBe('web_search');
    expect(call.parseError).toMatch(/no tool named "web_search".*skill_view, memory, skills_list/);
  });

  it('a missing required argument, a wrong type, a value outside the enum, an unknown key', async () => {
    const call = await one('<tool_call>{"name": "memory", "arguments": {"action": "append", "content": 5, "extra": true}}</tool_call>');
    expect(call.name).toBe('memory');
    expect(call.arguments).toBe('{"action":"append","content":5,"extra":true}');
    expect(call.parseError).toContain('Missing required argument "target".');
    expect(call.parseError).toContain('Argument "content" must be string, not integer.');
    expect(call.parseError).toContain('Argument "action" must be one of "add", "replace", "remove".');
    expect(call.parseError).toContain('Unknown argument "extra"');
  });

  it('an unclosed block at the end with broken JSON', async () => {
    const outcome = await run(['Ok. <tool_call>{"name": "skill_view", "argu']);
    expect(outcome.text).toBe('Ok. ');
    expect(outcome.calls).toHaveLength(1);
    expect(outcome.calls[0].parseError).toMatch(/never closed/);
    expect(outcome.finish).toBe('tool-calls');
  });

  it('several blocks, good and bad, keep their order and ids', async () => {
    const outcome = await run([
      '<tool_call>{"name":"skills_list","arguments":{}}</tool_call><tool_call>oops</tool_call><tool_call>{"name":"skill_view","arguments":{"name":"x"}}</tool_call>',
    ]);
    expect(outcome.calls.map((call) => [call.id, call.name, call.parseError === undefined])).toEqual([
      ['call_1', 'skills_list', true],
      ['call_2', '', false],
      ['call_3', 'skill_view', true],
    ]);
  });
});

describe('tolerated variants', () => {
  it('an unclosed block whose JSON is a complete, valid call is accepted', async () => {
    const outcome = await run(['<tool_call>{"name": "skill_view", "arguments": {"name": "git"}}']);
    expect(outcome.calls).toEqual([{ id: 'call_1', name: 'skill_view', arguments: '{"name":"git"}' }]);
  });

  it('a code fence inside the block, "parameters" for "arguments", arguments as a JSON string, no arguments', async () => {
    const outcome = await run([
      '<tool_call>\n```json\n{"name": "skill_view", "parameters": {"name": "a"}}\n```\n</tool_call>',
      '<tool_call>{"name": "skill_view", "arguments": "{\\"name\\": \\"b\\"}"}</tool_call>',
      '<tool_call>{"name": "skills_list"}</tool_call>',
    ]);
    expect(outcome.calls.map((call) => [call.name, call.arguments, call.parseError])).toEqual([
      ['skill_view', '{"name":"a"}', undefined],
      ['skill_view', '{"name":"b"}', undefined],
      ['skills_list', '{}', undefined],
    ]);
  });
});

describe('request to the wrapped provider', () => {
  it('sends no tools, puts the protocol in the system prompt, and reports nativeTools false', async () => {
    const inner = new FakeProvider(['ok']);
    const wrapped = withTextToolProtocol(inner);
    expect(wrapped.nativeTools).toBe(false);
    expect(wrapped.model).toBe('fake-model');
    await collect(wrapped.stream({ messages: [{ role: 'system', content: 'You are Knack.' }, { role: 'user', content: 'hi' }], tools }));
    const sent = inner.requests[0];
    expect(sent.tools).toBeUndefined();
    expect(sent.messages).toHaveLength(2);
    const system = sent.messages[0].content;
    expect(system.startsWith('You are Knack.\n\n# Tools')).toBe(true);
    expect(system).toContain('<tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call>');
    for (const tool of tools) expect(system).toContain(JSON.stringify({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  });

  it('writes earlier tool calls and results as text, merging consecutive results', () => {
    const messages = historyAsText(
      [
        { role: 'user', content: 'show git' },
        {
          role: 'assistant',
          content: 'Looking.',
          toolCalls: [
            { id: 'call_1', name: 'skill_view', arguments: '{"name":"git"}' },
            { id: 'call_2', name: 'memory', arguments: '{broken', parseError: 'bad' },
          ],
        },
        { role: 'tool', content: '{"success":true}', toolCallId: 'call_1', name: 'skill_view' },
        { role: 'tool', content: '{"success":false}', toolCallId: 'call_2', name: 'memory' },
        { role: 'assistant', content: 'Done.' },
      ],
      tools,
    );
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant']);
    expect(messages[2].content).toBe(
      'Looking.\n<tool_call>{"name":"skill_view","arguments":{"name":"git"}}</tool_call>\n<tool_call>{"name":"memory","arguments":"{broken"}</tool_call>',
    );
    expect(messages[3].content).toBe('<tool_result name="skill_view">{"success":true}</tool_result>\n<tool_result name="memory">{"success":false}</tool_result>');
    expect(messages.every((message) => message.toolCalls === undefined && message.toolCallId === undefined)).toBe(true);
  });

  it('without tools adds no prompt', () => {
    expect(historyAsText([{ role: 'user', content: 'hi' }], [])).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('schema check', () => {
  it('accepts fitting arguments and number for integer, rejects the rest', () => {
    const schema = { type: 'object', properties: { n: { type: 'number' }, k: { type: ['integer', 'null'] }, list: { type: 'array' } }, required: ['n'] };
    expect(checkToolArguments({ n: 3, k: null, list: [] }, schema)).toEqual([]);
    expect(checkToolArguments({ n: 1.5, k: 2 }, schema)).toEqual([]);
    expect(checkToolArguments({ n: '3', k: 1.5, list: {} }, schema)).toEqual([
      'Argument "n" must be number, not string.',
      'Argument "k" must be integer or null, not number.',
      'Argument "list" must be array, not object.',
    ]);
    expect(checkToolArguments([], schema)).toEqual(['"arguments" must be a JSON object, not array.']);
  });
});

describe('over HTTP with the OpenAI-compatible provider', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('parses blocks streamed as text in tiny byte writes, and sends no tools', async () => {
    server.script({ text: reply, chunkSize: 3, quirks: { writeSize: 4 } });
    const provider = withTextToolProtocol(new OpenAICompatibleProvider({ baseUrl: server.baseUrl, model: 'scripted-model' }));
    const outcome = await collect(provider.stream({ messages: [{ role: 'user', content: 'hi' }], tools }));
    expect(outcome.text).toBe(expectedText);
    expect(outcome.calls).toEqual(expectedCalls);
    expect(outcome.finish).toBe('tool-calls');
    const body = server.lastChat().body;
    expect(body.tools).toBeUndefined();
    expect(body.messages[0].role).toBe('system');
    expect(body.messages[0].content).toContain('# Tools');
  });
});
