import { describe, expect, it, vi } from 'vitest';
import { ProviderError, type ChatProvider, type ChatRequest, type FinishReason, type StreamPart, type ToolCall } from '../../../src/providers/provider';
import {
  isReplayAborted,
  ParamMemory,
  replayArm,
  ReplayAbortedError,
  retryDelayMs,
  TOOL_REFUSAL,
  type ReplayArmOptions,
  type Sleep,
} from '../../../src/gate/replayArm';
import { gateParams, type ReplayRequest } from '../../../src/gate/replayRequest';

/** One scripted reply of the fake provider. */
interface Step {
  text?: string;
  reasoning?: string;
  calls?: ToolCall[];
  finish?: FinishReason;
  error?: Error;
  /** Stream a word, then never end (and ignore the abort signal). */
  hang?: boolean;
}

function scriptedProvider(steps: Step[], model = 'scripted-model') {
  const requests: Omit<ChatRequest, 'signal'>[] = [];
  const provider: ChatProvider = {
    id: 'fake',
    model,
    nativeTools: true,
    async *stream(request): AsyncIterable<StreamPart> {
      const { signal: _signal, ...rest } = request;
      requests.push(structuredClone(rest));
      const step = steps.shift();
      if (!step) throw new Error('The script ran out of steps.');
      if (step.error) throw step.error;
      if (step.reasoning) yield { type: 'reasoning-delta', text: step.reasoning };
      if (step.text) yield { type: 'text-delta', text: step.text };
      if (step.hang) await new Promise<never>(() => undefined);
      for (const call of step.calls ?? []) yield { type: 'tool-call', call };
      yield { type: 'usage', usage: { promptTokens: 10, completionTokens: 3 } };
      yield { type: 'finish', reason: step.finish ?? (step.calls?.length ? 'tool-calls' : 'stop') };
    },
  };
  return { provider, requests, steps };
}

/** Records every wait and returns at once; rejects when the signal has aborted. */
function instantSleep() {
  const waits: number[] = [];
  const sleep: Sleep = async (ms, signal) => {
    waits.push(ms);
    if (signal?.aborted) throw new ReplayAbortedError();
  };
  return { sleep, waits };
}

const request: ReplayRequest = {
  messages: [
    { role: 'system', content: 'gate system' },
    { role: 'user', content: 'Which font?' },
  ],
  params: gateParams(),
};

function options(overrides: Partial<ReplayArmOptions> = {}): ReplayArmOptions & { waits: number[] } {
  const { sleep, waits } = instantSleep();
  return { providerId: 'http://localhost:11434/v1', memory: new ParamMemory(), sleep, random: () => 0.5, waits, ...overrides };
}

const http = (status: number, kind: ProviderError['kind'], details: ConstructorParameters<typeof ProviderError>[4] = {}) =>
  new ProviderError(kind, `failed (${status})`, '', status, details);

describe('replayArm: answers', () => {
  it('collects the text, ignores reasoning, sends temperature 0, seed 7 and max tokens, and no tools', async () => {
    const fake = scriptedProvider([{ reasoning: 'Maybe Arial?', text: 'Use Pretendard.' }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({
      status: 'ok',
      answerText: 'Use Pretendard.',
      rawText: 'Use Pretendard.',
      finishReason: 'stop',
      requests: 1,
      toolCallRefused: false,
      params: { temperature: 0, seed: 7, maxTokens: 1024 },
      sentParams: { temperature: 0, seed: 7, maxTokens: 1024 },
      usage: { promptTokens: 10, completionTokens: 3 },
    });
    expect(fake.requests).toEqual([{ messages: request.messages, temperature: 0, seed: 7, maxTokens: 1024 }]);
  });

  it('scores the cleaned answer from the answerText function, keeping the raw text', async () => {
    const fake = scriptedProvider([{ text: '<think>Arial?</think>Use Pretendard.' }]);
    const result = await replayArm(fake.provider, request, options({ answerText: (raw) => raw.replace(/<think>[\s\S]*?<\/think>/g, '') }));
    expect(result.answerText).toBe('Use Pretendard.');
    expect(result.rawText).toBe('<think>Arial?</think>Use Pretendard.');
  });

  it('no text and finish length is truncated, without a retry', async () => {
    const fake = scriptedProvider([{ reasoning: 'thinking for a long time', finish: 'length' }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({ status: 'truncated', answerText: '', requests: 1, finishReason: 'length' });
  });

  it('an empty answer is asked for once more, and taken when the second one has text', async () => {
    const fake = scriptedProvider([{ text: '' }, { text: 'Pretendard.' }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({ status: 'ok', answerText: 'Pretendard.', requests: 2 });
    expect(fake.requests[1]).toEqual(fake.requests[0]);
  });

  it('two empty answers are empty; an answer that is only reasoning counts as empty', async () => {
    const fake = scriptedProvider([{ text: '   ' }, { text: '<think>only thoughts</think>' }]);
    const result = await replayArm(fake.provider, request, options({ answerText: (raw) => raw.replace(/<think>[\s\S]*?<\/think>/g, '') }));
    expect(result).toMatchObject({ status: 'empty', requests: 2 });
  });
});

describe('replayArm: tool calls', () => {
  const call: ToolCall = { id: 'call_1', name: 'web_search', arguments: '{"q":"fonts"}' };

  it('answers a native tool call once with the refusal, then takes the next answer', async () => {
    const fake = scriptedProvider([{ text: 'Let me search.', calls: [call] }, { text: 'Use Pretendard.' }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({ status: 'ok', answerText: 'Use Pretendard.', requests: 2, toolCallRefused: true });
    expect(fake.requests[1]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: 'Let me search.', toolCalls: [call] },
      { role: 'tool', content: TOOL_REFUSAL, toolCallId: 'call_1', name: 'web_search' },
    ]);
    expect(JSON.parse(TOOL_REFUSAL)).toEqual({ success: false, error: 'Tools are unavailable during verification; answer directly.' });
  });

  it('refuses only once: a second tool call is not answered, its text is taken', async () => {
    const fake = scriptedProvider([{ calls: [call] }, { text: 'Pretendard, I think.', calls: [{ ...call, id: 'call_2' }] }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({ status: 'ok', answerText: 'Pretendard, I think.', requests: 2 });
  });

  it('answers a text-protocol <tool_call> block with a <tool_result> refusal', async () => {
    const block = '<tool_call>{"name": "web_search", "arguments": {"q": "fonts"}}</tool_call>';
    const fake = scriptedProvider([{ text: block }, { text: 'Pretendard.' }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result.status).toBe('ok');
    expect(fake.requests[1]!.messages.slice(2)).toEqual([
      { role: 'assistant', content: block },
      { role: 'user', content: `<tool_result name="web_search">${TOOL_REFUSAL}</tool_result>` },
    ]);
  });
});

describe('replayArm: retries', () => {
  it('retries a 5xx twice with backoff 1 s then 2 s', async () => {
    const fake = scriptedProvider([{ error: http(503, 'server') }, { error: http(502, 'server') }, { text: 'ok' }]);
    const opts = options();
    const result = await replayArm(fake.provider, request, opts);
    expect(result).toMatchObject({ status: 'ok', requests: 3 });
    expect(opts.waits).toEqual([1000, 2000]);
  });

  it('gives up after two retries with the last error', async () => {
    const fake = scriptedProvider([{ error: http(500, 'server') }, { error: new ProviderError('network', 'Could not reach it.') }, { error: http(429, 'rate-limit') }]);
    const opts = options();
    const result = await replayArm(fake.provider, request, opts);
    expect(result).toMatchObject({ status: 'error', requests: 3, error: 'failed (429)', answerText: '' });
    expect(opts.waits).toHaveLength(2);
  });

  it('honours Retry-After, at most 30 s', async () => {
    const fake = scriptedProvider([
      { error: http(429, 'rate-limit', { retryAfterMs: 5000 }) },
      { error: http(503, 'server', { retryAfterMs: 90_000 }) },
      { text: 'ok' },
    ]);
    const opts = options();
    expect((await replayArm(fake.provider, request, opts)).status).toBe('ok');
    expect(opts.waits).toEqual([5000, 30_000]);
  });

  it('does not retry what retrying cannot fix (auth, CORS, a plain bad request)', async () => {
    for (const error of [http(401, 'auth'), new ProviderError('cors', 'blocked'), http(400, 'bad-request')]) {
      const fake = scriptedProvider([{ error }]);
      const opts = options();
      expect(await replayArm(fake.provider, request, opts)).toMatchObject({ status: 'error', requests: 1 });
      expect(opts.waits).toEqual([]);
    }
  });

  it('a stream that ends with an error is retried like a transport failure', async () => {
    const fake = scriptedProvider([{ text: 'par', finish: 'error' }, { text: 'whole' }]);
    expect(await replayArm(fake.provider, request, options())).toMatchObject({ status: 'ok', answerText: 'whole', requests: 2 });
  });

  it('a stream cut off before its finish is retried, never scored as an answer', async () => {
    const fake = scriptedProvider([{ text: 'Use Preten', finish: 'cut-off' }, { text: 'Use Pretendard.' }]);
    expect(await replayArm(fake.provider, request, options())).toMatchObject({ status: 'ok', answerText: 'Use Pretendard.', requests: 2 });
    const always = scriptedProvider([{ text: 'Use', finish: 'cut-off' }, { text: 'Use', finish: 'cut-off' }, { text: 'Use', finish: 'cut-off' }]);
    expect(await replayArm(always.provider, request, options())).toMatchObject({ status: 'error' });
  });

  it('jitters the backoff by at most ±20 %', () => {
    expect(retryDelayMs(0, undefined, () => 0)).toBe(800);
    expect(retryDelayMs(0, undefined, () => 0.999999)).toBe(1200);
    expect(retryDelayMs(1, undefined, () => 0)).toBe(1600);
    expect(retryDelayMs(1, undefined, () => 0.5)).toBe(2000);
    expect(retryDelayMs(1, 100, () => 0)).toBe(100);
  });

  it('a request that gives no answer in time is retried, then reported as an error', async () => {
    const fake = scriptedProvider([{ hang: true }, { hang: true }, { hang: true }]);
    const opts = options({ timeoutMs: 60_000 });
    const result = await replayArm(fake.provider, request, opts);
    expect(result).toMatchObject({ status: 'error', requests: 3 });
    expect(result.error).toMatch(/no answer within 60 s/);
  });
});

describe('replayArm: context too long', () => {
  it('a context-length 400 is too-long, not retried', async () => {
    const fake = scriptedProvider([{ error: new ProviderError('bad-request', 'maximum context length is 4096 tokens', '', 400, { contextTooLong: true }) }]);
    const result = await replayArm(fake.provider, request, options());
    expect(result).toMatchObject({ status: 'too-long', requests: 1, error: 'maximum context length is 4096 tokens' });
  });
});

describe('replayArm: rejected sampling parameters', () => {
  const rejects = (param: 'temperature' | 'seed') =>
    new ProviderError('bad-request', `Unsupported parameter: '${param}'`, '', 400, { rejectedParam: param });

  it('resends once without a refused temperature, records provider-default, and remembers it per provider and model', async () => {
    const memory = new ParamMemory();
    const fake = scriptedProvider([{ error: rejects('temperature') }, { text: 'ok' }, { text: 'again' }], 'o3-mini');
    const first = await replayArm(fake.provider, request, options({ memory }));
    expect(first).toMatchObject({ status: 'ok', requests: 2, params: { temperature: 'provider-default', seed: 7, maxTokens: 1024 } });
    expect(first.sentParams).toEqual({ seed: 7, maxTokens: 1024 });
    expect(fake.requests.map((sent) => sent.temperature)).toEqual([0, undefined]);
    expect('temperature' in fake.requests[1]!).toBe(false);
    expect(memory.rejected('http://localhost:11434/v1', 'o3-mini')).toEqual(['temperature']);
    // The next request to the same pair leaves it out from the start.
    const second = await replayArm(fake.provider, request, options({ memory }));
    expect(second).toMatchObject({ status: 'ok', requests: 1, params: { temperature: 'provider-default' } });
    expect('temperature' in fake.requests[2]!).toBe(false);
    // Another model, or the same model elsewhere, is not affected.
    expect(memory.apply('http://localhost:11434/v1', 'gpt-4.1', gateParams())).toEqual(gateParams());
    expect(memory.apply('https://api.openai.com/v1', 'o3-mini', gateParams())).toEqual(gateParams());
  });

  it('drops seed, then temperature, each once, without using up the retries', async () => {
    const fake = scriptedProvider([{ error: http(503, 'server') }, { error: rejects('seed') }, { error: rejects('temperature') }, { error: http(503, 'server') }, { text: 'ok' }]);
    const opts = options();
    const result = await replayArm(fake.provider, request, opts);
    expect(result).toMatchObject({ status: 'ok', requests: 5, params: { temperature: 'provider-default', seed: null } });
    expect(opts.waits).toEqual([1000, 2000]);
    expect(fake.requests.at(-1)).toEqual({ messages: request.messages, maxTokens: 1024 });
  });

  it('a rejection of a parameter already left out is an error', async () => {
    const fake = scriptedProvider([{ error: rejects('seed') }, { error: rejects('seed') }]);
    expect(await replayArm(fake.provider, request, options())).toMatchObject({ status: 'error', requests: 2, params: { seed: null } });
  });
});

describe('replayArm: cancellation', () => {
  it('an already-aborted signal sends nothing and rejects with ReplayAbortedError', async () => {
    const fake = scriptedProvider([{ text: 'never' }]);
    const controller = new AbortController();
    controller.abort();
    await expect(replayArm(fake.provider, request, options({ signal: controller.signal }))).rejects.toBeInstanceOf(ReplayAbortedError);
    expect(fake.requests).toHaveLength(0);
  });

  it('aborting mid-stream rejects promptly even when the provider ignores its signal', async () => {
    const fake = scriptedProvider([{ text: 'partial', hang: true }]);
    const controller = new AbortController();
    const pending = replayArm(fake.provider, request, options({ signal: controller.signal }));
    await vi.waitFor(() => expect(fake.requests).toHaveLength(1));
    controller.abort();
    const error = await pending.catch((reason: unknown) => reason);
    expect(isReplayAborted(error)).toBe(true);
  });

  it('aborting during a backoff wait rejects with ReplayAbortedError and sends no retry', async () => {
    const fake = scriptedProvider([{ error: http(503, 'server') }, { text: 'never' }]);
    const controller = new AbortController();
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    const sleep: Sleep = (_ms, signal) =>
      new Promise<void>((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new Error('timer cancelled')), { once: true });
        waiting();
      });
    const pending = replayArm(fake.provider, request, options({ signal: controller.signal, sleep }));
    await started;
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(ReplayAbortedError);
    expect(fake.requests).toHaveLength(1);
  });
});
