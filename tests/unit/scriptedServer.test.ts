import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedServer, splitText, type ScriptedServer } from '../fixtures/scriptedServer';

// These tests read the wire exactly as a browser client would: real fetch, raw bytes, and
// an SSE split done here by hand so a framing mistake in the server cannot hide behind a
// forgiving parser.

let server: ScriptedServer;

beforeEach(async () => {
  server = await startScriptedServer();
});

afterEach(async () => {
  await server.close();
});

interface StreamResult {
  raw: string;
  /** Each event block (text between blank lines), without the trailing blank line. */
  blocks: string[];
  /** Parsed `data:` payloads except `[DONE]`. */
  chunks: any[];
  comments: string[];
  done: boolean;
  /** Text of a trailing block that never got its blank line. */
  leftover: string;
}

function parseSse(raw: string): StreamResult {
  const normalized = raw.replace(/\r\n/g, '\n');
  const parts = normalized.split('\n\n');
  const leftover = parts.pop() ?? '';
  const result: StreamResult = { raw, blocks: parts, chunks: [], comments: [], done: false, leftover };
  for (const block of parts) {
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) result.comments.push(line);
      else if (line === 'data: [DONE]') result.done = true;
      else if (line.startsWith('data: ')) result.chunks.push(JSON.parse(line.slice(6)));
      else throw new Error(`unexpected SSE line: ${JSON.stringify(line)}`);
    }
  }
  return result;
}

async function readAll(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function chat(body: Record<string, unknown>, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(init.headers ?? {}) },
    body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }], ...body }),
    signal: init.signal,
  });
}

async function stream(body: Record<string, unknown> = {}): Promise<StreamResult> {
  const response = await chat({ stream: true, ...body });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return parseSse(await readAll(response));
}

function contentOf(result: StreamResult): string {
  return result.chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join('');
}

function toolFragments(result: StreamResult): any[] {
  return result.chunks.flatMap((chunk) => chunk.choices?.[0]?.delta?.tool_calls ?? []);
}

function finishReasons(result: StreamResult): unknown[] {
  return result.chunks.map((chunk) => chunk.choices?.[0]?.finish_reason).filter((reason) => reason != null);
}

/** A Node-side reference accumulator: concatenate arguments per index, as §3 says. */
function accumulate(fragments: any[]): Map<number, { id?: unknown; name?: string; args: string }> {
  const calls = new Map<number, { id?: unknown; name?: string; args: string }>();
  for (const fragment of fragments) {
    const slot = calls.get(fragment.index) ?? { args: '' };
    if (fragment.id !== undefined) slot.id = fragment.id;
    if (fragment.function?.name) slot.name = fragment.function.name;
    slot.args += fragment.function?.arguments ?? '';
    calls.set(fragment.index, slot);
  }
  return calls;
}

describe('models endpoint', () => {
  it('lists the default model', async () => {
    const response = await fetch(`${server.baseUrl}/models`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.object).toBe('list');
    expect(body.data.map((model: { id: string }) => model.id)).toEqual(['scripted-model']);
  });

  it('lists scripted models and can answer with an error', async () => {
    server.setModels(['qwen3:8b', { id: 'llama3.2', owned_by: 'meta' }]);
    const body = await (await fetch(`${server.baseUrl}/models`)).json();
    expect(body.data).toEqual([
      expect.objectContaining({ id: 'qwen3:8b', object: 'model' }),
      expect.objectContaining({ id: 'llama3.2', owned_by: 'meta' }),
    ]);
    server.setModels({ error: { status: 401, message: 'bad key' } });
    const failed = await fetch(`${server.baseUrl}/models`);
    expect(failed.status).toBe(401);
    expect((await failed.json()).error.message).toBe('bad key');
  });

  it('answers 404 for unknown routes', async () => {
    const response = await fetch(`${server.origin}/v1/embeddings`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(404);
  });
});

describe('text replies', () => {
  it('returns a chat.completion JSON when stream is not set', async () => {
    server.script({ text: 'Hello there.' });
    const response = await chat({});
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('scripted-model');
    expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'Hello there.' });
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('streams word-sized chunks framed as data events and ends with [DONE]', async () => {
    server.script({ text: 'The quick brown fox.' });
    const result = await stream();
    expect(result.leftover).toBe('');
    expect(result.done).toBe(true);
    expect(result.raw.endsWith('data: [DONE]\n\n')).toBe(true);
    for (const block of result.blocks) expect(block).toMatch(/^data: /);
    expect(result.chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    const pieces = result.chunks.slice(1).map((chunk) => chunk.choices[0].delta.content).filter(Boolean);
    expect(pieces).toEqual(['The ', 'quick ', 'brown ', 'fox.']);
    expect(contentOf(result)).toBe('The quick brown fox.');
    expect(finishReasons(result)).toEqual(['stop']);
    for (const chunk of result.chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.id).toBe(result.chunks[0].id);
    }
    expect(result.chunks.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('honours chunkSize and explicit chunk arrays', async () => {
    expect(splitText('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    server.script({ text: ['Hel', 'lo', ' wor', 'ld'] }, { text: 'abcdefg', chunkSize: 3 });
    const first = await stream();
    expect(first.chunks.slice(1, 5).map((chunk) => chunk.choices[0].delta.content)).toEqual(['Hel', 'lo', ' wor', 'ld']);
    const second = await stream();
    expect(second.chunks.slice(1, 4).map((chunk) => chunk.choices[0].delta.content)).toEqual(['abc', 'def', 'g']);
  });

  it('sends a final usage chunk with empty choices when include_usage is asked for', async () => {
    server.script({ text: 'ok', usage: { prompt_tokens: 11, completion_tokens: 2 } });
    const result = await stream({ stream_options: { include_usage: true } });
    const last = result.chunks[result.chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 11, completion_tokens: 2, total_tokens: 13 });
    expect(result.done).toBe(true);
  });

  it('streams reasoning before content', async () => {
    server.script({ reasoning: 'think think', text: 'answer' });
    const result = await stream();
    const reasoning = result.chunks.map((chunk) => chunk.choices[0].delta.reasoning ?? '').join('');
    expect(reasoning).toBe('think think');
    const firstContent = result.chunks.findIndex((chunk) => chunk.choices[0].delta.content);
    const lastReasoning = result.chunks.findLastIndex((chunk) => chunk.choices[0].delta.reasoning);
    expect(lastReasoning).toBeLessThan(firstContent);
  });

  it('uses CRLF line endings when asked', async () => {
    server.script({ text: 'a b', quirks: { lineEnding: '\r\n' } });
    const result = await stream();
    expect(result.raw).toContain('\r\n\r\n');
    expect(result.raw.replace(/\r\n/g, '')).not.toContain('\n');
    expect(contentOf(result)).toBe('a b');
  });

  it('re-slices the byte stream without corrupting multi-byte text', async () => {
    const text = 'naïve café — 日本語 🎉 done';
    server.script({ text, quirks: { writeSize: 5 }, chunkDelayMs: 1 });
    const result = await stream();
    expect(contentOf(result)).toBe(text);
    expect(result.done).toBe(true);
  });

  it('writes a raw stream verbatim', async () => {
    server.script({ rawStream: ['data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\n', 'data: [DONE]\n\n'] });
    const response = await chat({ stream: true });
    expect(await readAll(response)).toBe('data: {"choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n');
  });
});

describe('tool calls', () => {
  const weather = { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } };
  const search = { name: 'session_search', arguments: { query: 'git rebase', limit: 5 } };

  it('streams OpenAI-style fragments: a head with id/type/name, then argument pieces', async () => {
    server.script({ text: 'Checking.', toolCalls: [weather, search], quirks: { argumentsChunkSize: 5 } });
    const result = await stream();
    const fragments = toolFragments(result);
    const heads = fragments.filter((fragment) => fragment.function.name);
    expect(heads).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'call_2', type: 'function', function: { name: 'session_search', arguments: '' } },
    ]);
    const tails = fragments.filter((fragment) => !fragment.function.name);
    expect(tails.length).toBeGreaterThan(4);
    for (const tail of tails) {
      expect(Object.keys(tail).sort()).toEqual(['function', 'index']);
      expect(tail.function.arguments.length).toBeLessThanOrEqual(5);
    }
    const calls = accumulate(fragments);
    expect(JSON.parse(calls.get(0)!.args)).toEqual(weather.arguments);
    expect(JSON.parse(calls.get(1)!.args)).toEqual(search.arguments);
    expect(finishReasons(result)).toEqual(['tool_calls']);
    expect(contentOf(result)).toBe('Checking.');
  });

  it('can interleave fragments of parallel calls', async () => {
    server.script({ toolCalls: [weather, search], quirks: { interleaveToolCalls: true, argumentsChunkSize: 4 } });
    const fragments = toolFragments(await stream());
    expect(fragments.slice(0, 4).map((fragment) => fragment.index)).toEqual([0, 1, 0, 1]);
    const calls = accumulate(fragments);
    expect(JSON.parse(calls.get(0)!.args)).toEqual(weather.arguments);
    expect(JSON.parse(calls.get(1)!.args)).toEqual(search.arguments);
  });

  it('sends whole calls in one chunk each (Ollama) or all in one chunk', async () => {
    server.script({ toolCalls: [weather, search], quirks: { toolCallStyle: 'whole' } });
    const whole = await stream();
    const perChunk = whole.chunks.map((chunk) => chunk.choices[0].delta.tool_calls).filter(Boolean);
    expect(perChunk).toHaveLength(2);
    expect(perChunk[0]).toEqual([
      { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } },
    ]);

    server.script({ toolCalls: [weather, search], quirks: { toolCallStyle: 'whole-batch' } });
    const batch = await stream();
    const batches = batch.chunks.map((chunk) => chunk.choices[0].delta.tool_calls).filter(Boolean);
    expect(batches).toHaveLength(1);
    expect(batches[0].map((call: any) => call.function.name)).toEqual(['get_weather', 'session_search']);
  });

  it('repeats the full name in every fragment when asked', async () => {
    server.script({ toolCalls: [weather], quirks: { repeatNames: true, argumentsChunkSize: 6 } });
    const fragments = toolFragments(await stream());
    expect(fragments.length).toBeGreaterThan(3);
    for (const fragment of fragments) expect(fragment.function.name).toBe('get_weather');
    expect(fragments.map((fragment) => fragment.function.arguments).join('')).toBe(JSON.stringify(weather.arguments));
  });

  it('drops ids, sends integer ids, or honours explicit ids', async () => {
    server.script(
      { toolCalls: [weather, search], quirks: { toolCallIds: 'missing' } },
      { toolCalls: [weather, search], quirks: { toolCallIds: 'integer' } },
      { toolCalls: [{ ...weather, id: 'abc' }, { ...search, id: null }] },
    );
    const missing = toolFragments(await stream());
    expect(missing.every((fragment) => !('id' in fragment))).toBe(true);
    const integer = toolFragments(await stream()).filter((fragment) => 'id' in fragment);
    expect(integer.map((fragment) => fragment.id)).toEqual([0, 1]);
    const explicit = toolFragments(await stream()).filter((fragment) => fragment.function.name);
    expect(explicit[0].id).toBe('abc');
    expect('id' in explicit[1]).toBe(false);
  });

  it('reuses index 0 with distinct ids for an Ollama parallel batch', async () => {
    server.script({ toolCalls: [weather, search], quirks: { toolCallStyle: 'whole', parallelIndexZero: true } });
    const fragments = toolFragments(await stream());
    expect(fragments.map((fragment) => [fragment.index, fragment.id])).toEqual([
      [0, 'call_1'],
      [0, 'call_2'],
    ]);
  });

  it('sends string arguments as-is, so tests can script invalid JSON', async () => {
    server.script({ toolCalls: [{ name: 'skill_view', arguments: '{"name": "git' }], quirks: { toolCallStyle: 'whole' } });
    const fragments = toolFragments(await stream());
    expect(fragments[0].function.arguments).toBe('{"name": "git');
  });

  it('returns tool_calls in a non-streamed reply', async () => {
    server.script({ toolCalls: [weather] });
    const body = await (await chat({})).json();
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(weather.arguments) } },
    ]);
  });
});

describe('stream quirks', () => {
  it('interleaves SSE comment lines', async () => {
    server.script({ text: 'a b c', quirks: { comments: { before: 2, between: true } } });
    const result = await stream();
    expect(result.raw.startsWith(': OPENROUTER PROCESSING\n\n: OPENROUTER PROCESSING\n\ndata: ')).toBe(true);
    // 2 before, then one between each pair of events.
    const events = result.blocks.filter((block) => block.startsWith('data: ')).length;
    expect(result.comments).toHaveLength(2 + events - 1);
    expect(contentOf(result)).toBe('a b c');
  });

  it('sends an OpenRouter-style error event mid-stream and stops', async () => {
    server.script({ text: 'one two three four', quirks: { errorEvent: { afterEvents: 3, error: { code: 502, message: 'upstream died' } } } });
    const result = await stream();
    const last = result.chunks[result.chunks.length - 1];
    expect(last.error).toEqual({ code: 502, message: 'upstream died' });
    expect(last.choices[0].finish_reason).toBe('error');
    expect(result.chunks).toHaveLength(4);
    expect(contentOf(result)).toBe('one two ');
    expect(result.done).toBe(false);
  });

  it('can end without finish_reason, and without [DONE]', async () => {
    server.script({ toolCalls: [{ name: 'x', arguments: {} }], quirks: { omitFinishReason: true } }, { text: 'hi', quirks: { omitDone: true } });
    const first = await stream();
    expect(finishReasons(first)).toEqual([]);
    expect(first.done).toBe(true);
    const second = await stream();
    expect(finishReasons(second)).toEqual(['stop']);
    expect(second.done).toBe(false);
    expect(second.leftover).toBe('');
  });

  it('cuts a stream off in the middle of a JSON event', async () => {
    server.script({ text: 'alpha beta gamma', quirks: { cutOff: { afterEvents: 2 } } });
    const result = await stream();
    expect(result.chunks).toHaveLength(2);
    expect(result.leftover.startsWith('data: {')).toBe(true);
    expect(() => JSON.parse(result.leftover.slice(6))).toThrow();
    expect(result.done).toBe(false);
  });

  it('can cut off by resetting the connection, which the reader sees as an error', async () => {
    server.script({ text: 'alpha beta gamma', quirks: { cutOff: { afterEvents: 2, mode: 'destroy' } } });
    const response = await chat({ stream: true });
    await expect(readAll(response)).rejects.toThrow();
    await server.waitForIdle();
    expect(server.lastChat().aborted).toBe(false);
  });

  it('delays the first byte until the client gives up, and logs the abort', async () => {
    server.script({ text: 'never seen', firstByteDelayMs: 60_000 });
    const controller = new AbortController();
    const pending = chat({ stream: true }, { signal: controller.signal });
    await server.waitForChatRequests(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    const aborted = await server.waitForAbort();
    expect(aborted.path).toBe('/v1/chat/completions');
    expect(aborted.firstByteAt).toBeUndefined();
  });

  it('sends headers then waits before the first event', async () => {
    server.script({ text: 'late', firstEventDelayMs: 60_000 });
    const controller = new AbortController();
    const response = await chat({ stream: true }, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(server.lastChat().firstByteAt).toBeGreaterThanOrEqual(server.lastChat().receivedAt);
    expect(server.lastChat().firstEventAt).toBeUndefined();
    controller.abort();
    expect((await server.waitForAbort()).aborted).toBe(true);
  });

  it('streams forever until the client aborts', async () => {
    server.script({ text: 'start ', quirks: { endless: { text: 'tick ', intervalMs: 2 } } });
    const controller = new AbortController();
    const response = await chat({ stream: true }, { signal: controller.signal });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/tick/g) ?? []).length < 20) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      text += decoder.decode(value, { stream: true });
    }
    expect(text).not.toContain('[DONE]');
    controller.abort();
    const aborted = await server.waitForAbort();
    expect(aborted.aborted).toBe(true);
    expect(aborted.endedAt).toBeDefined();
  });

  it('stalls after the content until the client aborts', async () => {
    server.script({ text: 'partial', quirks: { stall: true } });
    const controller = new AbortController();
    const response = await chat({ stream: true }, { signal: controller.signal });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('data: ');
    controller.abort();
    await server.waitForAbort();
    expect(server.lastChat().aborted).toBe(true);
  });

  it('close() ends open endless streams', async () => {
    server.script({ quirks: { endless: true } });
    const response = await chat({ stream: true });
    const reading = readAll(response).catch((error: unknown) => error);
    await server.close();
    expect(await reading).toBeInstanceOf(Error);
  });
});

describe('errors and scripting', () => {
  it('answers a scripted HTTP error with an OpenAI-style body, a custom body, or text', async () => {
    server.script(
      { error: { status: 429, message: 'Rate limit reached', headers: { 'Retry-After': '3' } } },
      { error: { status: 400, body: { error: { message: 'context length exceeded', code: 'context_length_exceeded' } } } },
      { error: { status: 502, body: 'Bad Gateway' } },
    );
    const limited = await chat({ stream: true });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect((await limited.json()).error.message).toBe('Rate limit reached');
    const tooLong = await chat({});
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error.code).toBe('context_length_exceeded');
    const gateway = await chat({});
    expect(gateway.status).toBe(502);
    expect(await gateway.text()).toBe('Bad Gateway');
  });

  it('drops the connection for a disconnect turn, which is not a client abort', async () => {
    server.script({ disconnect: true });
    await expect(chat({})).rejects.toThrow();
    await server.waitForIdle();
    expect(server.lastChat().served).toBe('disconnect');
    expect(server.lastChat().aborted).toBe(false);
  });

  it('serves turns in order, then the fallback, then a loud 500', async () => {
    server.script({ text: 'one' }, (request) => ({ text: `you said ${request.body.messages.at(-1).content}` }));
    expect(server.pending()).toBe(2);
    expect((await (await chat({})).json()).choices[0].message.content).toBe('one');
    expect((await (await chat({})).json()).choices[0].message.content).toBe('you said hi');
    const unscripted = await chat({});
    expect(unscripted.status).toBe(500);
    expect((await unscripted.json()).error.message).toMatch(/no turn scripted/);
    server.setFallback(async (request) => ({ text: `model ${request.body.model}` }));
    expect((await (await chat({ model: 'm2' })).json()).choices[0].message.content).toBe('model m2');
    expect(server.pending()).toBe(0);
  });

  it('accepts turns at start-up and a function fallback', async () => {
    const other = await startScriptedServer({ turns: [{ text: 'first' }], fallback: () => ({ text: 'again' }) });
    try {
      const ask = async () =>
        (
          await (
            await fetch(`${other.baseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'x', messages: [] }) })
          ).json()
        ).choices[0].message.content;
      expect(await ask()).toBe('first');
      expect(await ask()).toBe('again');
      expect(await ask()).toBe('again');
    } finally {
      await other.close();
    }
  });

  it('answers a 500 naming the exception when a step function throws', async () => {
    server.script(() => {
      throw new Error('bad script');
    });
    const response = await chat({});
    expect(response.status).toBe(500);
    expect(await response.text()).toContain('bad script');
  });

  it('rejects requests without the required API key', async () => {
    const keyed = await startScriptedServer({ requireApiKey: 'sk-test', turns: [{ text: 'ok' }] });
    try {
      const denied = await fetch(`${keyed.baseUrl}/models`);
      expect(denied.status).toBe(401);
      const allowed = await fetch(`${keyed.baseUrl}/models`, { headers: { Authorization: 'Bearer sk-test' } });
      expect(allowed.status).toBe(200);
      expect(keyed.requests.map((request) => request.served)).toEqual(['unauthorized', 'models']);
    } finally {
      await keyed.close();
    }
  });
});

describe('request log', () => {
  it('records method, path, headers, parsed body and times', async () => {
    server.script({ text: 'ok' });
    await readAll(await chat({ stream: true, tools: [{ type: 'function', function: { name: 't' } }] }, { headers: { Authorization: 'Bearer k1' } }));
    await server.waitForIdle();
    await fetch(`${server.baseUrl}/models`);
    await server.waitForIdle();
    expect(server.requests.map((request) => [request.seq, request.method, request.path])).toEqual([
      [1, 'POST', '/v1/chat/completions'],
      [2, 'GET', '/v1/models'],
    ]);
    const request = server.lastChat();
    expect(request.headers.authorization).toBe('Bearer k1');
    expect(request.body.stream).toBe(true);
    expect(request.body.tools[0].function.name).toBe('t');
    expect(JSON.parse(request.rawBody)).toEqual(request.body);
    expect(request.status).toBe(200);
    expect(request.aborted).toBe(false);
    expect(request.firstByteAt).toBeGreaterThanOrEqual(request.receivedAt);
    expect(request.firstEventAt).toBeGreaterThanOrEqual(request.firstByteAt!);
    expect(request.endedAt).toBeGreaterThanOrEqual(request.firstEventAt!);
    // Epoch milliseconds, so a page's performance.timeOrigin + now() can be compared with it.
    expect(Math.abs(request.receivedAt - Date.now())).toBeLessThan(60_000);
    expect(server.chatRequests()).toHaveLength(1);
    server.clearLog();
    expect(server.requests).toHaveLength(0);
    expect(() => server.lastChat()).toThrow(/no chat-completion request/);
  });

  it('keeps a non-JSON body raw', async () => {
    server.script({ text: 'ok' });
    await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', body: 'not json' });
    const request = await server.waitForRequest((entry) => entry.method === 'POST');
    expect(request.rawBody).toBe('not json');
    expect(request.body).toBeUndefined();
  });

  it('waits for future requests and times out with a clear message', async () => {
    const waiting = server.waitForRequest((request) => request.body?.model === 'later');
    server.script({ text: 'ok' });
    await chat({ model: 'later' });
    expect((await waiting).body.model).toBe('later');
    await expect(server.waitForChatRequests(5, 50)).rejects.toThrow(/timed out after 50 ms waiting for 5 chat-completion/);
  });
});

describe('CORS', () => {
  function preflight(origin: string): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
    // Node's fetch won't send a real preflight, so send one by hand as a browser would.
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${server.baseUrl}/chat/completions`,
        {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'authorization,content-type',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('answers preflight and requests with a wildcard by default', async () => {
    const answer = await preflight('http://127.0.0.1:4173');
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe('*');
    expect(answer.headers['access-control-allow-methods']).toContain('POST');
    expect(answer.headers['access-control-allow-headers']).toBe('authorization,content-type');
    const models = await fetch(`${server.baseUrl}/models`, { headers: { Origin: 'http://127.0.0.1:4173' } });
    expect(models.headers.get('access-control-allow-origin')).toBe('*');
    expect(server.requests[0].served).toBe('preflight');
  });

  it('refuses CORS entirely in refuse mode', async () => {
    server.setCors('refuse');
    const answer = await preflight('http://127.0.0.1:4173');
    expect(answer.status).toBe(403);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    server.script({ text: 'ok' });
    const reply = await chat({}, { headers: { Origin: 'http://127.0.0.1:4173' } });
    expect(reply.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows only listed origins, or echoes the origin', async () => {
    server.setCors(['http://localhost:4173']);
    expect((await preflight('http://localhost:4173')).headers['access-control-allow-origin']).toBe('http://localhost:4173');
    const other = await preflight('https://knack.example');
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    server.setCors('echo');
    const echoed = await preflight('https://knack.example');
    expect(echoed.headers['access-control-allow-origin']).toBe('https://knack.example');
    expect(echoed.headers.vary).toBe('Origin');
  });

  it('exposes the generation id header', async () => {
    server.script({ text: 'ok', headers: { 'X-Generation-Id': 'gen-42' } });
    const response = await chat({ stream: true });
    expect(response.headers.get('x-generation-id')).toBe('gen-42');
    expect(response.headers.get('access-control-expose-headers')).toContain('X-Generation-Id');
    await readAll(response);
  });
});
