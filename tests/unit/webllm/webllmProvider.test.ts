import { describe, expect, it } from 'vitest';
import { ProviderError, type StreamPart } from '../../../src/providers/provider';
import type { ChatCompletionChunk, ChatCompletionRequestStreaming, CompletionEngine, EngineAccess } from '../../../src/providers/webllm/engine';
import { toWebLlmMessages, WebLlmProvider } from '../../../src/providers/webllm/webllmProvider';

function chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finish: string | null = null, usage?: ChatCompletionChunk['usage']): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: delta || finish ? [{ index: 0, delta, finish_reason: finish as never, logprobs: null }] : [],
    ...(usage ? { usage } : {}),
  };
}

const usage = (prompt: number, completion: number) =>
  ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, extra: {} }) as unknown as ChatCompletionChunk['usage'];

/** A fake web-llm engine: yields scripted chunks; interruptGenerate ends the stream with "abort". */
class FakeEngine implements CompletionEngine {
  requests: ChatCompletionRequestStreaming[] = [];
  interrupts = 0;
  #interrupted = false;
  #release: (() => void) | null = null;
  constructor(
    private readonly script: ChatCompletionChunk[],
    private readonly options: { failCreate?: unknown; failAfter?: { index: number; error: unknown }; waitAfter?: number } = {},
  ) {}
  interruptGenerate(): void {
    this.interrupts++;
    this.#interrupted = true;
    this.#release?.();
  }
  chat = {
    completions: {
      create: async (request: ChatCompletionRequestStreaming) => {
        this.requests.push(request);
        if (this.options.failCreate) throw this.options.failCreate;
        const engine = this;
        return (async function* () {
          for (const [index, item] of engine.script.entries()) {
            if (engine.#interrupted) break;
            if (engine.options.failAfter?.index === index) throw engine.options.failAfter.error;
            yield item;
            if (engine.options.waitAfter === index && !engine.#interrupted) await new Promise<void>((resolve) => (engine.#release = resolve));
          }
          if (engine.#interrupted) yield chunk({}, 'abort');
        })();
      },
    },
  };
}

function accessTo(engine: CompletionEngine, failure?: unknown): EngineAccess & { acquired: string[] } {
  const acquired: string[] = [];
  return {
    acquired,
    async acquire(modelId) {
      acquired.push(modelId);
      if (failure) throw failure;
      return engine;
    },
  };
}

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const MODEL = 'Qwen3-0.6B-q4f32_1-MLC';

describe('WebLlmProvider stream mapping', () => {
  it('sends a streaming request with usage and maps text, usage and finish', async () => {
    const engine = new FakeEngine([chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), chunk(undefined as never, null, usage(12, 2))]);
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(engine), nativeTools: false });
    const parts = await collect(provider.stream({ messages: [{ role: 'user', content: 'hi' }], temperature: 0.3, maxTokens: 50 }));
    expect(parts).toEqual([
      { type: 'text-delta', text: 'Hel' },
      { type: 'text-delta', text: 'lo' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 2 } },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(engine.requests[0]).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(engine.requests[0].tools).toBeUndefined();
  });

  it('passes an integer seed to web-llm when given, and none otherwise', async () => {
    const engine = new FakeEngine([chunk({ content: 'a' }, 'stop')]);
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(engine), nativeTools: false });
    await collect(provider.stream({ messages: [{ role: 'user', content: 'hi' }], temperature: 0, seed: 7 }));
    expect(engine.requests[0]).toMatchObject({ temperature: 0, seed: 7 });
    await collect(provider.stream({ messages: [{ role: 'user', content: 'hi' }] }));
    expect('seed' in engine.requests[1]!).toBe(false);
  });

  it('splits Qwen3 <think> reasoning from the answer, across chunk boundaries', async () => {
    const engine = new FakeEngine([chunk({ content: '<thi' }), chunk({ content: 'nk>plan it</th' }), chunk({ content: 'ink>\n\nAnswer' }), chunk({}, 'length')]);
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(engine), nativeTools: false });
    const parts = await collect(provider.stream({ messages: [{ role: 'user', content: 'q' }] }));
    expect(parts).toEqual([
      { type: 'reasoning-delta', text: 'plan it' },
      { type: 'text-delta', text: 'Answer' },
      { type: 'finish', reason: 'length' },
    ]);
  });

  it('maps native tool calls from the last chunk, inventing ids web-llm leaves empty', async () => {
    const engine = new FakeEngine([
      chunk({ content: '[{"name": "skill_view"' }),
      chunk(
        {
          tool_calls: [
            { index: 0, id: '', type: 'function', function: { name: 'skill_view', arguments: '{"name":"git"}' } },
            { index: 1, id: 'x1', type: 'function', function: { name: 'skills_list', arguments: '{}' } },
          ],
        } as never,
        'tool_calls',
      ),
    ]);
    const provider = new WebLlmProvider({ model: 'Hermes-3-Llama-3.1-8B-q4f32_1-MLC', access: accessTo(engine), nativeTools: true });
    const tools = [{ name: 'skill_view', description: 'view', parameters: { type: 'object' } }];
    const parts = await collect(
      provider.stream({
        messages: [
          { role: 'system', content: 'You are Knack.' },
          { role: 'user', content: 'open git' },
        ],
        tools,
      }),
    );
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_0', name: 'skill_view', arguments: '{"name":"git"}' } },
      { type: 'tool-call', call: { id: 'x1', name: 'skills_list', arguments: '{}' } },
    ]);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
    // web-llm refuses a system message alongside tools: it is folded into the first user turn.
    expect(engine.requests[0].messages).toEqual([{ role: 'user', content: 'You are Knack.\n\nopen git' }]);
    expect(engine.requests[0].tools).toEqual([{ type: 'function', function: { name: 'skill_view', description: 'view', parameters: { type: 'object' } } }]);
  });

  it('refuses tools for models without native tool calling', async () => {
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(new FakeEngine([])), nativeTools: false });
    await expect(collect(provider.stream({ messages: [], tools: [{ name: 't', description: '', parameters: {} }] }))).rejects.toMatchObject({
      kind: 'bad-request',
    });
  });

  it('Stop interrupts the engine and ends with finish: abort', async () => {
    const engine = new FakeEngine([chunk({ content: 'one' }), chunk({ content: 'two' }), chunk({}, 'stop')], { waitAfter: 0 });
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(engine), nativeTools: false });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of provider.stream({ messages: [{ role: 'user', content: 'go' }], signal: controller.signal })) {
      parts.push(part);
      if (part.type === 'text-delta') controller.abort();
    }
    expect(engine.interrupts).toBe(1);
    expect(parts).toEqual([
      { type: 'text-delta', text: 'one' },
      { type: 'finish', reason: 'abort' },
    ]);
  });

  it('an already aborted signal never touches the engine', async () => {
    const access = accessTo(new FakeEngine([chunk({ content: 'x' })]));
    const provider = new WebLlmProvider({ model: MODEL, access, nativeTools: false });
    const controller = new AbortController();
    controller.abort();
    expect(await collect(provider.stream({ messages: [], signal: controller.signal }))).toEqual([{ type: 'finish', reason: 'abort' }]);
    expect(access.acquired).toEqual([]);
  });

  it('maps load failures and generation failures to ProviderErrors', async () => {
    const noF16 = new WebLlmProvider({
      model: 'Qwen3-0.6B-q4f16_1-MLC',
      access: accessTo(new FakeEngine([]), 'ShaderF16SupportError: This model requires WebGPU extension shader-f16'),
      nativeTools: false,
    });
    const loadError = await collect(noF16.stream({ messages: [] })).catch((error: unknown) => error);
    expect(loadError).toBeInstanceOf(ProviderError);
    expect(loadError).toMatchObject({ kind: 'webgpu' });

    const lost = new FakeEngine([chunk({ content: 'a' }), chunk({ content: 'b' })], {
      failAfter: { index: 1, error: 'DeviceLostError: The WebGPU device was lost' },
    });
    const provider = new WebLlmProvider({ model: MODEL, access: accessTo(lost), nativeTools: false });
    const parts: StreamPart[] = [];
    const error = await (async () => {
      for await (const part of provider.stream({ messages: [{ role: 'user', content: 'x' }] })) parts.push(part);
    })().catch((caught: unknown) => caught);
    expect(parts).toEqual([{ type: 'text-delta', text: 'a' }]);
    expect(error).toMatchObject({ kind: 'webgpu', message: expect.stringMatching(/device lost/) });

    const rejected = new WebLlmProvider({
      model: MODEL,
      access: accessTo(new FakeEngine([], { failCreate: 'ContextWindowSizeExceededError: too long' })),
      nativeTools: false,
    });
    await expect(collect(rejected.stream({ messages: [] }))).rejects.toMatchObject({ kind: 'bad-request' });
  });
});

describe('message mapping', () => {
  it('keeps system messages and turns tool results into user text without native tools', () => {
    expect(
      toWebLlmMessages(
        [
          { role: 'system', content: 'S' },
          { role: 'user', content: 'U' },
          { role: 'assistant', content: '<tool_call>{}</tool_call>', toolCalls: [{ id: '1', name: 'n', arguments: '{}' }] },
          { role: 'tool', content: 'R', name: 'skills_list', toolCallId: '1' },
        ],
        false,
      ),
    ).toEqual([
      { role: 'system', content: 'S' },
      { role: 'user', content: 'U' },
      { role: 'assistant', content: '<tool_call>{}</tool_call>' },
      { role: 'user', content: 'Result of skills_list:\nR' },
    ]);
  });

  it('sends tool_calls and tool messages natively', () => {
    expect(
      toWebLlmMessages(
        [
          { role: 'user', content: 'U' },
          { role: 'assistant', content: '', toolCalls: [{ id: '1', name: 'n', arguments: '{"a":1}' }] },
          { role: 'tool', content: 'R', toolCallId: '1' },
        ],
        true,
      ),
    ).toEqual([
      { role: 'user', content: 'U' },
      { role: 'assistant', content: '', tool_calls: [{ id: '1', type: 'function', function: { name: 'n', arguments: '{"a":1}' } }] },
      { role: 'tool', content: 'R', tool_call_id: '1' },
    ]);
  });
});
