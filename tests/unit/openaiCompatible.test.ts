import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer, type StreamQuirks } from '../fixtures/scriptedServer';
import { OpenAICompatibleProvider, type OpenAICompatibleOptions } from '../../src/providers/openaiCompatible';
import { ProviderError, type ChatRequest, type StreamPart, type ToolCall, type ToolSpec } from '../../src/providers/provider';

// The provider against a real HTTP server (tests/fixtures/scriptedServer.ts) that reproduces
// each wire quirk of reference/browser-platform.md §3. Error-message wording for CORS (which
// Node's fetch can't produce) is tested in providerErrors.test.ts and in the browser spec.

let server: ScriptedServer;

beforeAll(async () => {
  server = await startScriptedServer();
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.clearLog();
});

afterEach(async () => {
  // Every scripted turn was used: a test that scripts more than it sends is wrong.
  expect(server.pending()).toBe(0);
  await server.waitForIdle();
});

function provider(options: Partial<OpenAICompatibleOptions> = {}): OpenAICompatibleProvider {
  return new OpenAICompatibleProvider({ baseUrl: server.baseUrl, model: 'scripted-model', origin: 'https://knack.example', ...options });
}

const userMessage: ChatRequest = { messages: [{ role: 'user', content: 'hi' }] };

interface Outcome {
  parts: StreamPart[];
  text: string;
  reasoning: string;
  calls: ToolCall[];
  finish?: string;
  error?: ProviderError;
}

async function run(target: OpenAICompatibleProvider, request: ChatRequest = userMessage): Promise<Outcome> {
  const outcome: Outcome = { parts: [], text: '', reasoning: '', calls: [] };
  try {
    for await (const part of target.stream(request)) {
      outcome.parts.push(part);
      if (part.type === 'text-delta') outcome.text += part.text;
      if (part.type === 'reasoning-delta') outcome.reasoning += part.text;
      if (part.type === 'tool-call') outcome.calls.push(part.call);
      if (part.type === 'finish') outcome.finish = part.reason;
    }
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    outcome.error = error;
  }
  return outcome;
}

const viewGit = { name: 'skill_view', arguments: { name: 'git', file_path: 'references/rebase.md' } };
const listAll = { name: 'skills_list', arguments: {} };
const addMemory = { name: 'memory', arguments: { action: 'add', target: 'user', content: 'Likes "quotes" & ünïcode' } };
const expectedCalls = (ids: string[]) => [
  { id: ids[0], name: 'skill_view', arguments: JSON.stringify(viewGit.arguments) },
  { id: ids[1], name: 'skills_list', arguments: '{}' },
  { id: ids[2], name: 'memory', arguments: JSON.stringify(addMemory.arguments) },
];

describe('streamed text', () => {
  it('streams text deltas, then usage, then finish stop, and sends a streaming request', async () => {
    server.script({ text: 'Hello there, friend', usage: { prompt_tokens: 11, completion_tokens: 4 } });
    const outcome = await run(provider());
    expect(outcome.error).toBeUndefined();
    expect(outcome.parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThan(1);
    expect(outcome.text).toBe('Hello there, friend');
    expect(outcome.parts.slice(-2)).toEqual([
      { type: 'usage', usage: { promptTokens: 11, completionTokens: 4 } },
      { type: 'finish', reason: 'stop' },
    ]);
    const request = server.lastChat();
    expect(request.body).toMatchObject({
      model: 'scripted-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(request.body.tools).toBeUndefined();
  });

  it('streams reasoning from `reasoning` and from `reasoning_content`', async () => {
    server.script(
      { reasoning: 'Think first.', text: 'Answer.' },
      { reasoning: 'Other field.', text: 'Done.', quirks: { reasoningField: 'reasoning_content' } },
    );
    const first = await run(provider());
    expect([first.reasoning, first.text]).toEqual(['Think first.', 'Answer.']);
    const second = await run(provider());
    expect([second.reasoning, second.text]).toEqual(['Other field.', 'Done.']);
  });

  it('maps finish_reason length', async () => {
    server.script({ text: 'cut short', finishReason: 'length' });
    expect((await run(provider())).finish).toBe('length');
  });

  it('sends temperature and max_tokens when given', async () => {
    server.script({ text: 'ok' });
    await run(provider(), { ...userMessage, temperature: 0.2, maxTokens: 64 });
    expect(server.lastChat().body).toMatchObject({ temperature: 0.2, max_tokens: 64 });
  });

  it('sends seed when given, and no seed otherwise', async () => {
    server.script({ text: 'ok' }, { text: 'ok' });
    await run(provider(), { ...userMessage, temperature: 0, seed: 7 });
    expect(server.lastChat().body).toMatchObject({ temperature: 0, seed: 7 });
    await run(provider());
    expect(server.lastChat().body.seed).toBeUndefined();
  });

  it.each<[string, StreamQuirks]>([
    ['UTF-8 cut into 1-byte writes', { writeSize: 1 }],
    ['UTF-8 cut into 5-byte writes', { writeSize: 5 }],
    ['CRLF framing cut into 3-byte writes', { lineEnding: '\r\n', writeSize: 3 }],
    ['OpenRouter comments before and between events', { comments: { before: 2, between: true } }],
  ])('reads text intact with %s', async (_label, quirks) => {
    const text = 'Grüße 👋 aus Köln — 日本語 too';
    server.script({ text, quirks });
    const outcome = await run(provider());
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe(text);
    expect(outcome.finish).toBe('stop');
  });
});

describe('tool calls (each quirk of browser-platform.md §3)', () => {
  const tools: ToolSpec[] = [
    { name: 'skill_view', description: 'View a skill', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  ];

  it('offers tools in the OpenAI function shape when nativeTools', async () => {
    server.script({ text: 'ok' });
    await run(provider(), { ...userMessage, tools });
    expect(server.lastChat().body.tools).toEqual([{ type: 'function', function: tools[0] }]);
  });

  it('sends no tools when nativeTools is false', async () => {
    server.script({ text: 'ok' });
    const plain = provider({ nativeTools: false });
    expect(plain.nativeTools).toBe(false);
    await run(plain, { ...userMessage, tools });
    expect(server.lastChat().body.tools).toBeUndefined();
  });

  it('converts assistant tool calls and tool results in the history', async () => {
    server.script({ text: 'ok' });
    await run(provider(), {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'show git' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'skill_view', arguments: '{"name":"git"}' }, { id: 'c2', name: 'memory', arguments: '{broken' }] },
        { role: 'tool', content: '{"success":true}', toolCallId: 'c1', name: 'skill_view' },
        { role: 'tool', content: '{"success":false}', toolCallId: 'c2', name: 'memory' },
      ],
    });
    expect(server.lastChat().body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'show git' },
      {
        role: 'assistant',
        content: '',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'skill_view', arguments: '{"name":"git"}' } },
          // Broken arguments would make template-rendering servers reject the whole request.
          { id: 'c2', type: 'function', function: { name: 'memory', arguments: '{}' } },
        ],
      },
      { role: 'tool', content: '{"success":true}', tool_call_id: 'c1' },
      { role: 'tool', content: '{"success":false}', tool_call_id: 'c2' },
    ]);
  });

  it.each<[string, StreamQuirks, string[]]>([
    ['fragments (OpenAI, llama.cpp), 3-character pieces', { argumentsChunkSize: 3 }, ['call_1', 'call_2', 'call_3']],
    ['1-character pieces interleaved across calls', { argumentsChunkSize: 1, interleaveToolCalls: true }, ['call_1', 'call_2', 'call_3']],
    ['each call whole in one chunk (Ollama)', { toolCallStyle: 'whole' }, ['call_1', 'call_2', 'call_3']],
    ['every call in one chunk', { toolCallStyle: 'whole-batch' }, ['call_1', 'call_2', 'call_3']],
    ['name and id resent with every fragment', { repeatNames: true, argumentsChunkSize: 4 }, ['call_1', 'call_2', 'call_3']],
    ['no ids at all', { toolCallIds: 'missing' }, ['call_1', 'call_2', 'call_3']],
    ['integer ids', { toolCallIds: 'integer' }, ['call_1', 'call_2', 'call_3']],
    ['a parallel batch all at index 0, told apart by id (Ollama)', { parallelIndexZero: true, toolCallStyle: 'whole' }, ['call_1', 'call_2', 'call_3']],
    ['index 0 fragments told apart by id', { parallelIndexZero: true, argumentsChunkSize: 5 }, ['call_1', 'call_2', 'call_3']],
    ['index 0, integer ids, whole calls', { parallelIndexZero: true, toolCallIds: 'integer', toolCallStyle: 'whole' }, ['call_1', 'call_2', 'call_3']],
    ['index 0, no ids, whole calls', { parallelIndexZero: true, toolCallIds: 'missing', toolCallStyle: 'whole' }, ['call_1', 'call_2', 'call_3']],
    ['comments between events, bytes in 7-byte writes', { comments: { before: 1, between: true }, writeSize: 7 }, ['call_1', 'call_2', 'call_3']],
    ['CRLF framing', { lineEnding: '\r\n' }, ['call_1', 'call_2', 'call_3']],
  ])('assembles three calls: %s', async (_label, quirks, ids) => {
    server.script({ text: 'Let me look.', toolCalls: [viewGit, listAll, addMemory], quirks });
    const outcome = await run(provider());
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Let me look.');
    expect(outcome.calls).toEqual(expectedCalls(ids));
    expect(outcome.finish).toBe('tool-calls');
  });

  it('keeps the server ids when it sends them', async () => {
    server.script({ toolCalls: [{ ...viewGit, id: 'fc_9a' }, { ...listAll, id: 'fc_9b' }] });
    expect((await run(provider())).calls.map((call) => call.id)).toEqual(['fc_9a', 'fc_9b']);
  });

  it('without finish_reason, keeps complete calls and drops a half-written one', async () => {
    server.script({
      toolCalls: [viewGit, { name: 'memory', arguments: '{"action": "add", "content": "unfinish' }],
      quirks: { omitFinishReason: true },
    });
    const outcome = await run(provider());
    expect(outcome.calls.map((call) => call.name)).toEqual(['skill_view']);
    expect(outcome.finish).toBe('tool-calls');
  });

  it('with finish_reason tool_calls, passes broken arguments on for the loop to report', async () => {
    server.script({ toolCalls: [{ name: 'memory', arguments: '{"action": add}' }] });
    const outcome = await run(provider());
    expect(outcome.calls).toEqual([{ id: 'call_1', name: 'memory', arguments: '{"action": add}' }]);
  });

  it('treats "stop" after tool calls as tool-calls (older Ollama)', async () => {
    server.script({ toolCalls: [viewGit], finishReason: 'stop', quirks: { toolCallStyle: 'whole' } });
    expect((await run(provider())).finish).toBe('tool-calls');
  });
});

describe('stream endings', () => {
  it('without [DONE], still ends with the finish_reason given', async () => {
    server.script({ text: 'no done marker', quirks: { omitDone: true } });
    const outcome = await run(provider());
    expect([outcome.text, outcome.finish, outcome.error]).toEqual(['no done marker', 'stop', undefined]);
  });

  it('without finish_reason but with [DONE], finishes stop', async () => {
    server.script({ text: 'no reason', quirks: { omitFinishReason: true } });
    expect((await run(provider())).finish).toBe('stop');
  });

  it('with neither finish_reason nor [DONE], the reply ends cut-off with the text so far', async () => {
    server.script({ text: 'half a thought', quirks: { omitFinishReason: true, omitDone: true } });
    const outcome = await run(provider());
    expect([outcome.text, outcome.finish, outcome.error]).toEqual(['half a thought', 'cut-off', undefined]);
  });

  it('a cut-off stream still hands over the calls that were complete, and ends cut-off', async () => {
    server.script({ toolCalls: [listAll, { name: 'memory', arguments: '{"action": "add", "con' }], quirks: { omitFinishReason: true, omitDone: true } });
    const outcome = await run(provider());
    expect(outcome.calls.map((call) => call.name)).toEqual(['skills_list']);
    expect(outcome.finish).toBe('cut-off');
  });

  it('a reply of reasoning only, properly finished, ends stop with no text', async () => {
    server.script({ reasoning: 'Let me think about it.' });
    const outcome = await run(provider());
    expect([outcome.text, outcome.reasoning, outcome.finish]).toEqual(['', 'Let me think about it.', 'stop']);
  });

  it('a mid-stream error event (OpenRouter) throws ProviderError(stream) after the text so far', async () => {
    server.script({ text: 'one two three four', quirks: { errorEvent: { afterEvents: 3, error: { code: 502, message: 'Upstream overloaded' } } } });
    const outcome = await run(provider());
    expect(outcome.text).toBe('one two ');
    expect(outcome.error?.kind).toBe('stream');
    expect(outcome.error?.message).toContain('Upstream overloaded');
    expect(outcome.finish).toBeUndefined();
  });

  it('a stream cut off mid-JSON throws ProviderError(stream) saying so', async () => {
    server.script({ text: 'alpha beta gamma', quirks: { cutOff: { afterEvents: 2 } } });
    const outcome = await run(provider());
    expect(outcome.text).toBe('alpha ');
    expect(outcome.error?.kind).toBe('stream');
    expect(outcome.error?.message).toMatch(/cut off/);
  });

  it('a connection reset mid-stream throws ProviderError(network)', async () => {
    server.script({ text: 'alpha beta gamma', quirks: { cutOff: { afterEvents: 2, mode: 'destroy' } } });
    const outcome = await run(provider());
    expect(outcome.error?.kind).toBe('network');
    expect(outcome.error?.message).toMatch(/dropped/);
  });

  it('a body that is not SSE (an HTML page) says the Base URL is probably wrong', async () => {
    server.script({ rawStream: ['<!doctype html><html><body>Welcome</body></html>'], headers: { 'Content-Type': 'text/html' } });
    const outcome = await run(provider());
    expect(outcome.error?.kind).toBe('stream');
    expect(outcome.error?.hint).toMatch(/Base URL.*\/v1/);
  });

  it('plain text without any event is reported as not an OpenAI-compatible answer', async () => {
    server.script({ rawStream: ['hello, I am not an API\n'], headers: { 'Content-Type': 'text/plain' } });
    const outcome = await run(provider());
    expect(outcome.error?.kind).toBe('stream');
    expect(outcome.error?.message).toMatch(/OpenAI-compatible/);
  });

  it('a server that ignores stream:true and answers one JSON completion still works', async () => {
    // The scripted server answers JSON when `stream` is not true; a function turn can't change
    // the request, so replay its JSON through rawStream with a JSON content type.
    const completion = {
      id: 'x',
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'whole', tool_calls: [{ id: 'w1', type: 'function', function: { name: 'skills_list', arguments: '{}' } }] },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2 },
    };
    server.script({ rawStream: [JSON.stringify(completion)], headers: { 'Content-Type': 'application/json' } });
    const outcome = await run(provider());
    expect(outcome.parts).toEqual([
      { type: 'text-delta', text: 'whole' },
      { type: 'tool-call', call: { id: 'w1', name: 'skills_list', arguments: '{}' } },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
      { type: 'finish', reason: 'tool-calls' },
    ]);
  });
});

describe('Stop (abort)', () => {
  it('aborting mid-stream ends with finish abort, no throw, and the server sees the abort', async () => {
    server.script({ text: 'start ', quirks: { endless: { text: 'more ', intervalMs: 5 } } });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of provider().stream({ ...userMessage, signal: controller.signal })) {
      parts.push(part);
      if (parts.length === 4) controller.abort();
    }
    expect(parts.slice(0, 4).every((part) => part.type === 'text-delta')).toBe(true);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'abort' });
    expect(parts.filter((part) => part.type === 'finish')).toHaveLength(1);
    const aborted = await server.waitForAbort();
    expect(aborted.path).toBe('/v1/chat/completions');
  });

  it('aborting a stalled stream ends with finish abort', async () => {
    server.script({ text: 'waiting', quirks: { stall: true } });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of provider().stream({ ...userMessage, signal: controller.signal })) {
      parts.push(part);
      if (part.type === 'text-delta') controller.abort();
    }
    expect(parts).toEqual([
      { type: 'text-delta', text: 'waiting' },
      { type: 'finish', reason: 'abort' },
    ]);
    expect((await server.waitForAbort()).aborted).toBe(true);
  });

  it('aborting before the first byte ends with finish abort', async () => {
    server.script({ text: 'late', firstByteDelayMs: 5_000 });
    const controller = new AbortController();
    const iterator = provider().stream({ ...userMessage, signal: controller.signal })[Symbol.asyncIterator]();
    const first = iterator.next();
    await server.waitForChatRequests(1);
    controller.abort();
    expect((await first).value).toEqual({ type: 'finish', reason: 'abort' });
    expect((await iterator.next()).done).toBe(true);
    expect((await server.waitForAbort()).aborted).toBe(true);
  });

  it('an already-aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await run(provider(), { ...userMessage, signal: controller.signal });
    expect(outcome.parts).toEqual([{ type: 'finish', reason: 'abort' }]);
    expect(server.requests).toHaveLength(0);
  });

  it('a consumer that stops reading closes the connection', async () => {
    server.script({ text: 'start ', quirks: { endless: { text: 'more ', intervalMs: 5 } } });
    let count = 0;
    for await (const part of provider().stream(userMessage)) {
      if (part.type === 'text-delta' && ++count === 3) break;
    }
    expect((await server.waitForAbort()).aborted).toBe(true);
  });
});

describe('HTTP errors', () => {
  it.each<[number, string, RegExp, RegExp]>([
    [401, 'auth', /refused.*401.*API key/, /API key/],
    [403, 'auth', /403/, /API key/],
    [429, 'rate-limit', /rate-limiting/, /try again/],
    [500, 'server', /failed to answer \(500\)/, /server side/],
    [503, 'server', /503/, /try again/],
  ])('status %i → ProviderError(%s) with what to do', async (status, kind, message, hint) => {
    server.script({ error: { status, message: 'upstream said no' } });
    const outcome = await run(provider());
    expect(outcome.error?.kind).toBe(kind);
    expect(outcome.error?.status).toBe(status);
    expect(outcome.error?.message).toMatch(message);
    expect(outcome.error?.message).toContain('upstream said no');
    expect(outcome.error?.hint).toMatch(hint);
  });

  it('429 with Retry-After says how long to wait', async () => {
    server.script({ error: { status: 429, message: 'slow down', headers: { 'Retry-After': '7' } } });
    expect((await run(provider())).error?.hint).toMatch(/Wait 7 s/);
  });

  it('404 about the model says to check the model name (and ollama pull for Ollama)', async () => {
    server.script({ error: { status: 404, message: "model 'qwen3:8b' not found" } });
    const outcome = await run(provider({ model: 'qwen3:8b', presetId: 'ollama' }));
    expect(outcome.error?.kind).toBe('bad-request');
    expect(outcome.error?.message).toMatch(/does not have the model "qwen3:8b"/);
    expect(outcome.error?.hint).toMatch(/model name/);
    expect(outcome.error?.hint).toContain('ollama pull qwen3:8b');
  });

  it('404 for a wrong path says to check the Base URL', async () => {
    // What Ollama answers for a path it does not serve (e.g. a Base URL without /v1).
    server.script({ error: { status: 404, body: '404 page not found' } });
    const outcome = await run(provider());
    expect(outcome.error?.status).toBe(404);
    expect(outcome.error?.message).toMatch(/no such address/);
    expect(outcome.error?.hint).toMatch(/Base URL.*\/v1/);
  });

  it('a 502 with a text body quotes it; an HTML error page is not quoted', async () => {
    server.script({ error: { status: 502, body: 'Bad Gateway' } }, { error: { status: 502, body: '<html><body>nginx</body></html>' } });
    expect((await run(provider())).error?.message).toContain('The server said: Bad Gateway');
    expect((await run(provider())).error?.message).not.toContain('nginx');
  });

  it('400 context length says to start a new chat', async () => {
    server.script({ error: { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } } });
    const outcome = await run(provider());
    expect(outcome.error?.kind).toBe('bad-request');
    expect(outcome.error?.hint).toMatch(/new chat/);
  });

  it.each<[string, 'temperature' | 'seed']>([
    ["Unsupported parameter: 'temperature' is not supported with this model.", 'temperature'],
    ["Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", 'temperature'],
    ["Unsupported parameter: 'seed' is not supported with this model.", 'seed'],
  ])('a 400 "%s" names the rejected parameter', async (message, param) => {
    server.script({ error: { status: 400, body: { error: { message, type: 'invalid_request_error' } } } });
    const outcome = await run(provider(), { ...userMessage, temperature: 0, seed: 7 });
    expect(outcome.error?.kind).toBe('bad-request');
    expect(outcome.error?.rejectedParam).toBe(param);
    expect(outcome.error?.contextTooLong).toBeUndefined();
  });

  it('a context-length 400 is marked contextTooLong, with no rejected parameter', async () => {
    server.script({ error: { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } } });
    const error = (await run(provider())).error;
    expect(error?.contextTooLong).toBe(true);
    expect(error?.rejectedParam).toBeUndefined();
  });

  it('Retry-After of a 429 and of a 503 is read into retryAfterMs; a 500 has none', async () => {
    server.script(
      { error: { status: 429, message: 'slow down', headers: { 'Retry-After': '7' } } },
      { error: { status: 503, message: 'overloaded', headers: { 'Retry-After': '2' } } },
      { error: { status: 500, message: 'boom', headers: { 'Retry-After': '2' } } },
    );
    expect((await run(provider())).error?.retryAfterMs).toBe(7000);
    expect((await run(provider())).error?.retryAfterMs).toBe(2000);
    expect((await run(provider())).error?.retryAfterMs).toBeUndefined();
  });

  it('a server that is down → ProviderError(network) that says to start it', async () => {
    const closed = await startScriptedServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const outcome = await run(new OpenAICompatibleProvider({ baseUrl, model: 'm', presetId: 'ollama', origin: 'https://knack.example' }));
    expect(outcome.error?.kind).toBe('network');
    expect(outcome.error?.message).toContain(`Could not reach ${baseUrl}`);
    expect(outcome.error?.hint).toMatch(/ollama serve/);
    expect(outcome.error?.hint).toContain('OLLAMA_ORIGINS=https://knack.example');
  });

  it('a base URL that is not a web address says so', async () => {
    const outcome = await run(new OpenAICompatibleProvider({ baseUrl: 'localhost:11434/v1', model: 'm' }));
    expect(outcome.error?.kind).toBe('bad-request');
    expect(outcome.error?.hint).toMatch(/http:\/\//);
  });
});

describe('models', () => {
  it('lists models from GET {base}/models', async () => {
    server.setModels(['qwen3:8b', { id: 'llama3.2:3b', owned_by: 'library' }]);
    expect(await provider().listModels()).toEqual([{ id: 'qwen3:8b' }, { id: 'llama3.2:3b' }]);
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/models' });
    server.setModels(['scripted-model']);
  });

  it('maps a failed model list to the same errors', async () => {
    server.setModels({ error: { status: 401, message: 'bad key' } });
    const error = await provider().listModels().catch((caught: unknown) => caught);
    server.setModels(['scripted-model']);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).kind).toBe('auth');
  });
});

describe('API key', () => {
  it('is sent as a Bearer token to its own base URL, for chat and models', async () => {
    server.script({ text: 'ok' });
    const keyed = provider({ apiKey: 'sk-own' });
    await run(keyed);
    await keyed.listModels();
    expect(server.requests.map((request) => request.headers.authorization)).toEqual(['Bearer sk-own', 'Bearer sk-own']);
  });

  it('is not sent at all without a key, and another provider never gets this one', async () => {
    const other = await startScriptedServer({ turns: [{ text: 'other' }] });
    try {
      server.script({ text: 'mine' });
      await run(provider({ apiKey: 'sk-mine' }));
      await run(new OpenAICompatibleProvider({ baseUrl: other.baseUrl, model: 'm' }));
      expect(server.lastChat().headers.authorization).toBe('Bearer sk-mine');
      expect(other.lastChat().headers.authorization).toBeUndefined();
      expect(JSON.stringify(other.requests.map((request) => request.headers))).not.toContain('sk-mine');
    } finally {
      await other.close();
    }
  });

  it('is never carried through a redirect to another address', async () => {
    // A server that redirects every request to the scripted server (another origin).
    const redirector = http.createServer((req, res) => {
      res.writeHead(307, { Location: `${server.baseUrl}${req.url?.replace(/^\/v1/, '') ?? ''}` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    const redirectBase = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/v1`;
    try {
      const outcome = await run(new OpenAICompatibleProvider({ baseUrl: redirectBase, model: 'm', apiKey: 'sk-secret' }));
      expect(outcome.error?.kind).toBe('bad-request');
      expect(outcome.error?.message).toContain('redirected');
      expect(outcome.error?.message).toContain(server.baseUrl);
      expect(server.requests).toHaveLength(0);

      // Without a key there is nothing to leak, so the redirect is followed.
      server.script({ text: 'followed' });
      expect((await run(new OpenAICompatibleProvider({ baseUrl: redirectBase, model: 'm' }))).text).toBe('followed');
    } finally {
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
    }
  });
});
