import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../fixtures/scriptedServer';
import { QwenCounter, renderQwenPrompt } from '../fixtures/qwenPrompt';

// The context modes of the scripted server: real Qwen3 token counts, llama.cpp's refusal and
// Ollama's silent drop (tests/fixtures/scriptedContext.ts).

let counter: QwenCounter;
let server: ScriptedServer | undefined;

beforeAll(async () => {
  counter = await QwenCounter.create();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [
  {
    type: 'function',
    function: { name: 'memory', description: 'Save a note.', parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] } },
  },
];

function chat(base: string, body: Record<string, unknown>) {
  return fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'qwen3', ...body }) });
}

const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(' ');

describe('the Qwen3 prompt', () => {
  it("renders Qwen3's ChatML: tools in the system turn, tool calls, tool responses in one user turn, the generation prompt", () => {
    const text = renderQwenPrompt({
      messages: [
        { role: 'system', content: 'You are Knack.' },
        { role: 'user', content: 'Note that.' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'memory', arguments: '{"content": "x"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: '{"success": true}' },
        { role: 'tool', tool_call_id: 'c2', content: '{"success": false}' },
        { role: 'assistant', content: 'Done.' },
      ],
      tools,
    });
    expect(text).toBe(
      '<|im_start|>system\nYou are Knack.\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
        'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
        '{"type": "function", "function": {"name": "memory", "description": "Save a note.", "parameters": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]}}}' +
        '\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n' +
        '<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\nNote that.<|im_end|>\n' +
        '<|im_start|>assistant\n<tool_call>\n{"name": "memory", "arguments": {"content": "x"}}\n</tool_call><|im_end|>\n' +
        '<|im_start|>user\n<tool_response>\n{"success": true}\n</tool_response>\n<tool_response>\n{"success": false}\n</tool_response><|im_end|>\n' +
        '<|im_start|>assistant\nDone.<|im_end|>\n' +
        '<|im_start|>assistant\n',
    );
  });

  it('counts block by block exactly as the whole prompt counts', () => {
    const body = { messages: [{ role: 'system', content: 'Be brief. 你好！' }, { role: 'user', content: 'What is 12345 + 678?\n\n  Indented.' }], tools };
    expect(counter.countRequest(body)).toBe(counter.tokenizer.encode(renderQwenPrompt(body)).length);
    // <|im_start|> and <|im_end|> are one token each.
    expect(counter.count('<|im_start|>user\nhi<|im_end|>\n')).toBe(counter.count('user\nhi') + 3);
  });
});

describe("context: 'llamacpp'", () => {
  it('answers a prompt that fits with its real prompt_tokens, and logs the counts', async () => {
    server = await startScriptedServer({ context: { nCtx: 4096, mode: 'llamacpp' }, turns: [{ text: 'Hello there.' }] });
    const messages = [{ role: 'user', content: 'Hi' }];
    const reply = await (await chat(server.baseUrl, { messages, max_tokens: 256 })).json();
    const expected = counter.countRequest({ messages });
    expect(reply.usage.prompt_tokens).toBe(expected);
    expect(reply.usage.completion_tokens).toBe(counter.count('Hello there.'));
    expect(server.lastChat().context).toMatchObject({ promptTokens: expected, window: 4096, maxTokens: 256, overWindow: false, refused: false, dropped: 0 });
  });

  it("refuses a prompt of n_ctx tokens or more with llama.cpp's 400, and keeps the scripted turn for the retry", async () => {
    server = await startScriptedServer({ context: { nCtx: 256, mode: 'llamacpp' }, turns: [{ text: 'Fits now.' }] });
    const long = [{ role: 'user', content: words(400) }];
    const refused = await chat(server.baseUrl, { messages: long });
    expect(refused.status).toBe(400);
    const body = await refused.json();
    const promptTokens = counter.countRequest({ messages: long });
    expect(body).toEqual({
      error: {
        code: 400,
        message: 'the request exceeds the available context size, try increasing it',
        type: 'exceed_context_size_error',
        n_prompt_tokens: promptTokens,
        n_ctx: 256,
      },
    });
    expect(server.lastChat().context).toMatchObject({ refused: true, overWindow: true });
    const retry = await (await chat(server.baseUrl, { messages: [{ role: 'user', content: 'short' }] })).json();
    expect(retry.choices[0].message.content).toBe('Fits now.');
  });

  it("cuts the reply where prompt + reply would pass n_ctx (finish_reason 'length'), as llama.cpp does instead of refusing", async () => {
    server = await startScriptedServer({ context: { nCtx: 64, mode: 'llamacpp' }, turns: [{ text: words(200) }] });
    const messages = [{ role: 'user', content: 'Count.' }];
    const reply = await (await chat(server.baseUrl, { messages, max_tokens: 1000 })).json();
    const prompt = counter.countRequest({ messages });
    expect(reply.choices[0].finish_reason).toBe('length');
    expect(reply.usage.prompt_tokens + reply.usage.completion_tokens).toBeLessThanOrEqual(64);
    expect(reply.usage.completion_tokens).toBeGreaterThan(64 - prompt - 3);
    expect(server.lastChat().context).toMatchObject({ replyCut: true, refused: false });
  });

  it("stops at max_tokens with finish_reason 'length', in a stream too", async () => {
    server = await startScriptedServer({ context: { nCtx: 4096, mode: 'llamacpp' }, turns: [{ text: words(100), toolCalls: [{ name: 'memory', arguments: { content: 'x' } }] }] });
    const raw = await (await chat(server.baseUrl, { messages: [{ role: 'user', content: 'Go' }], max_tokens: 10, stream: true, stream_options: { include_usage: true } })).text();
    const chunks = raw
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice(6)));
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason === 'length')).toBe(true);
    expect(chunks.some((chunk) => chunk.choices[0]?.delta?.tool_calls)).toBe(false);
    expect(chunks.at(-1).usage.completion_tokens).toBeLessThanOrEqual(10);
  });

  it('serves GET /props with n_ctx', async () => {
    server = await startScriptedServer({ context: { nCtx: 2048, mode: 'llamacpp' } });
    const props = await (await fetch(`${server.origin}/props`)).json();
    expect(props.default_generation_settings.n_ctx).toBe(2048);
    expect(props.n_ctx).toBe(2048);
    expect((await fetch(`${server.origin}/api/show`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('counts a 40-turn chat quickly enough to serve it (each request re-counts only its new messages)', async () => {
    server = await startScriptedServer({ context: { nCtx: 1_000_000, mode: 'llamacpp' }, fallback: { text: 'ok' } });
    const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: words(1500) }];
    for (let turn = 0; turn < 40; turn++) {
      messages.push({ role: 'user', content: `Turn ${turn}: ${words(60)}` });
      const reply = await (await chat(server.baseUrl, { messages, tools })).json();
      messages.push({ role: 'assistant', content: `${reply.choices[0].message.content} ${words(200)}` });
    }
    const last = server.lastChat().context!;
    expect(last.promptTokens).toBe(counter.countRequest({ messages: server.lastChat().body.messages, tools }));
    expect(server.chatRequests().every((request) => request.context?.overWindow === false)).toBe(true);
  });
});

describe("context: 'ollama'", () => {
  it('drops the oldest non-system messages silently until the prompt fits, and says so in the log', async () => {
    server = await startScriptedServer({ context: { nCtx: 200, mode: 'ollama' }, turns: [{ text: 'Sure.' }] });
    const messages = [
      { role: 'system', content: 'You are Knack.' },
      { role: 'user', content: `My project is Bluebird. ${words(80)}` },
      { role: 'assistant', content: words(80) },
      { role: 'user', content: 'What is my project called?' },
    ];
    const response = await chat(server.baseUrl, { messages });
    expect(response.status).toBe(200);
    const reply = await response.json();
    const log = server.lastChat().context!;
    expect(log.overWindow).toBe(true);
    expect(log.refused).toBe(false);
    expect(log.dropped).toBe(2);
    expect(log.keptTokens).toBe(counter.countRequest({ messages: [messages[0], messages[3]] }));
    expect(reply.usage.prompt_tokens).toBe(log.keptTokens);
  });

  it('serves POST /api/show (num_ctx in parameters, the trained length in model_info) and GET /api/ps', async () => {
    server = await startScriptedServer({ context: { nCtx: 8192, mode: 'ollama' }, models: ['qwen3:0.6b'] });
    const show = await (await fetch(`${server.origin}/api/show`, { method: 'POST', body: JSON.stringify({ model: 'qwen3:0.6b' }) })).json();
    expect(show.parameters).toMatch(/num_ctx\s+8192/);
    expect(show.model_info['qwen3.context_length']).toBe(40960);
    const ps = await (await fetch(`${server.origin}/api/ps`)).json();
    expect(ps.models[0]).toMatchObject({ name: 'qwen3:0.6b', context_length: 8192 });
    expect((await fetch(`${server.origin}/props`)).status).toBe(404);
  });
});
