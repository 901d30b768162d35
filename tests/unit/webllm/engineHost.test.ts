/**
 * The shared-engine host with a fake web-llm client and a fake worker: one engine for the UI
 * caller and a remote (port) caller, turn-taking, per-caller Stop, cancel and worker death.
 */
import { describe, expect, it, vi } from 'vitest';
import { ProviderError } from '../../../src/providers/provider';
import type { ChatCompletionChunk } from '../../../src/providers/webllm/engine';
import { EngineHost, type HostStatus } from '../../../src/providers/webllm/engineHost';
import { connectRemoteEngine } from '../../../src/providers/webllm/remoteEngine';

const MODEL = 'Qwen3-0.6B-q4f32_1-MLC';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

function chunk(content: string | null, finish: string | null = null): ChatCompletionChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: MODEL,
    choices: [{ index: 0, delta: content === null ? {} : { content }, finish_reason: finish as never, logprobs: null }],
  };
}

class FakeWorker extends EventTarget {
  terminated = false;
  terminate() {
    this.terminated = true;
  }
}

interface Harness {
  host: EngineHost;
  workers: FakeWorker[];
  engines: FakeClient[];
  /** While set, every reload waits for it. */
  reloadGate: ReturnType<typeof deferred> | null;
  /** Resolves when a fake engine's reload has begun (replace it to wait for the next one). */
  reloadStarted: ReturnType<typeof deferred<void>>;
}

/** Stands in for WebWorkerMLCEngine: scripted reloads and streams that wait for `gate`. */
class FakeClient {
  reloads: string[] = [];
  /** The chat options each reload was given (undefined: none). */
  reloadOptions: unknown[] = [];
  /** The label of each generation, in the order the engine started them. */
  created: string[] = [];
  interrupts = 0;
  streamGate = deferred();
  /** Resolves when a stream has yielded its first chunk and waits at `streamGate`. */
  streamWaiting = deferred();
  #interrupted = false;
  readonly progress: (report: { progress: number; text: string; timeElapsed: number }) => void;
  constructor(
    readonly harness: Pick<Harness, 'reloadGate' | 'reloadStarted'>,
    readonly worker: FakeWorker,
    config: { initProgressCallback: (report: { progress: number; text: string; timeElapsed: number }) => void },
  ) {
    this.progress = config.initProgressCallback;
  }
  async reload(modelId: string, chatOptions?: unknown) {
    this.reloads.push(modelId);
    this.reloadOptions.push(chatOptions);
    this.harness.reloadStarted.resolve();
    this.progress({ progress: 0.5, text: 'Fetching param cache[1/2]', timeElapsed: 1 });
    if (this.harness.reloadGate) await this.harness.reloadGate.promise;
  }
  interruptGenerate() {
    this.interrupts++;
    this.#interrupted = true;
    this.streamGate.resolve();
  }
  async unload() {}
  chat = {
    completions: {
      create: async (request: { messages: { content: string }[] }) => {
        const client = this;
        const label = request.messages[0].content;
        this.created.push(label);
        if (label === 'too-long') throw new Error('ContextWindowSizeExceededError: Prompt tokens exceed context window size');
        this.#interrupted = false;
        return (async function* () {
          yield chunk(`${label}:1`);
          client.streamWaiting.resolve();
          await client.streamGate.promise;
          if (client.#interrupted) {
            yield chunk(null, 'abort');
            return;
          }
          yield chunk(`${label}:2`, 'stop');
        })();
      },
    },
  };
}

function makeHost(): Harness {
  const workers: FakeWorker[] = [];
  const engines: FakeClient[] = [];
  const harness = { reloadGate: null, reloadStarted: deferred() } as Harness;
  const webllm = {
    WebWorkerMLCEngine: class {
      constructor(worker: FakeWorker, config: ConstructorParameters<typeof FakeClient>[2]) {
        const client = new FakeClient(harness, worker, config);
        engines.push(client);
        return client;
      }
    },
    hasModelInCache: async () => true,
  };
  const host = new EngineHost({
    createWorker: () => {
      const worker = new FakeWorker();
      workers.push(worker);
      return worker as unknown as Worker;
    },
    loadWebLlm: async () => webllm as never,
  });
  return Object.assign(harness, { host, workers, engines });
}

async function texts(stream: AsyncIterable<ChatCompletionChunk>): Promise<string[]> {
  const out: string[] = [];
  for await (const item of stream) out.push(item.choices[0]?.delta.content ?? `<${item.choices[0]?.finish_reason}>`);
  return out;
}

const request = (label: string) => ({ messages: [{ role: 'user' as const, content: label }], stream: true as const });

describe('EngineHost', () => {
  it('creates the worker lazily and loads a model once for every caller, reporting progress', async () => {
    const { host, workers, engines } = makeHost();
    expect(workers).toHaveLength(0);
    const statuses: HostStatus[] = [];
    host.subscribe((status) => statuses.push(status));
    const progress: number[] = [];
    await Promise.all([host.acquire(MODEL, { onProgress: (p) => progress.push(p.progress) }), host.acquire(MODEL)]);
    await host.acquire(MODEL);
    expect(workers).toHaveLength(1);
    expect(engines[0].reloads).toEqual([MODEL]);
    expect(progress).toEqual([0.5]);
    expect(statuses.map((status) => status.phase)).toEqual(['idle', 'loading', 'loading', 'ready']);
    expect(host.loadedModel).toBe(MODEL);
  });

  it("loads a model with the user's window as web-llm's context_window_size, and without options when none is set", async () => {
    const { host, engines } = makeHost();
    await host.load(MODEL);
    expect(engines[0].reloadOptions).toEqual([undefined]);
    await host.unload();
    host.useChatOptions(async (modelId) => (modelId === MODEL ? { context_window_size: 8192 } : undefined));
    await host.load(MODEL);
    expect(engines[0].reloadOptions).toEqual([undefined, { context_window_size: 8192 }]);
  });

  it('serves a remote caller through a MessagePort on the same engine', async () => {
    const { host, workers, engines } = makeHost();
    const remote = connectRemoteEngine(host.connectPort());
    const engine = await remote.acquire(MODEL);
    const stream = await engine.chat.completions.create(request('review'));
    const collected = texts(stream);
    engines[0].streamGate.resolve();
    expect(await collected).toEqual(['review:1', 'review:2']);
    // The UI then uses the same worker and model: no second load.
    await host.acquire(MODEL);
    expect(workers).toHaveLength(1);
    expect(engines[0].reloads).toEqual([MODEL]);
  });

  it('gives generations turns, and one caller\'s Stop does not stop another\'s generation', async () => {
    const { host, engines } = makeHost();
    const chat = await host.acquire(MODEL);
    const review = await host.acquire(MODEL);
    const first = await chat.chat.completions.create(request('chat'));
    const firstTexts = texts(first);
    // The review's call waits for its turn; its Stop only takes it out of the queue.
    const second = review.chat.completions.create(request('review'));
    review.interruptGenerate();
    expect(await texts(await second)).toEqual([]);
    expect(engines[0].interrupts).toBe(0);
    engines[0].streamGate.resolve();
    expect(await firstTexts).toEqual(['chat:1', 'chat:2']);
    // The chat's own Stop interrupts the engine and ends its stream with "abort".
    engines[0].streamGate = deferred();
    engines[0].streamWaiting = deferred();
    const third = await chat.chat.completions.create(request('again'));
    const thirdTexts = texts(third);
    await engines[0].streamWaiting.promise; // the engine is mid-generation
    chat.interruptGenerate();
    expect(await thirdTexts).toEqual(['again:1', '<abort>']);
    expect(engines[0].interrupts).toBe(1);
  });

  it('a waiting foreground (chat) generation goes before queued background (gate) ones', async () => {
    const { host, engines } = makeHost();
    const chat = await host.acquire(MODEL);
    const gate = await host.acquire(MODEL, { priority: 'background' });
    const holding = await gate.chat.completions.create(request('gate-1'));
    const waiting = [
      gate.chat.completions.create(request('gate-2')),
      gate.chat.completions.create(request('gate-3')),
      chat.chat.completions.create(request('chat-1')),
    ];
    expect(host.waitingTurns).toBe(3);
    // The running gate generation is not cut short: it finishes, then the chat goes first.
    engines[0].streamGate.resolve();
    expect(await texts(holding)).toEqual(['gate-1:1', 'gate-1:2']);
    const all = await Promise.all(waiting.map(async (stream) => texts(await stream)));
    expect(all).toEqual([
      ['gate-2:1', 'gate-2:2'],
      ['gate-3:1', 'gate-3:2'],
      ['chat-1:1', 'chat-1:2'],
    ]);
    expect(engines[0].created).toEqual(['gate-1', 'chat-1', 'gate-2', 'gate-3']);
    expect(engines[0].interrupts).toBe(0);
  });

  it('a background port waits behind the chat for the engine', async () => {
    const { host, engines } = makeHost();
    const chat = await host.acquire(MODEL);
    const holding = await chat.chat.completions.create(request('chat-1'));
    const remote = await connectRemoteEngine(host.connectPort('background')).acquire(MODEL);
    const fromGate = remote.chat.completions.create(request('gate'));
    // Let the port's request reach the host's queue before the chat asks again.
    await vi.waitFor(() => expect(host.waitingTurns).toBe(1));
    const chat2 = chat.chat.completions.create(request('chat-2'));
    engines[0].streamGate.resolve();
    await texts(holding);
    const [gateTexts, chatTexts] = await Promise.all([fromGate.then(texts), chat2.then(texts)]);
    expect([gateTexts, chatTexts]).toEqual([
      ['gate:1', 'gate:2'],
      ['chat-2:1', 'chat-2:2'],
    ]);
    expect(engines[0].created).toEqual(['chat-1', 'chat-2', 'gate']);
  });

  it('cancel ends a load with "aborted" and the next load starts a fresh worker', async () => {
    const harness = makeHost();
    const { host, workers, engines } = harness;
    harness.reloadGate = deferred();
    const firstLoad = host.load(MODEL);
    await harness.reloadStarted.promise;
    expect(engines[0].reloads).toEqual([MODEL]);
    const pending = host.load(MODEL); // joins the in-flight load
    host.cancelLoad();
    await expect(firstLoad).rejects.toMatchObject({ kind: 'aborted' });
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    expect(workers[0].terminated).toBe(true);
    expect(host.status.phase).toBe('idle');
    harness.reloadGate = null;
    await host.load(MODEL);
    expect(workers).toHaveLength(2);
    expect(host.loadedModel).toBe(MODEL);
  });

  it('a worker that dies mid-load fails the load instead of hanging', async () => {
    const harness = makeHost();
    const { host, workers, engines } = harness;
    harness.reloadGate = deferred(); // never opened: only the worker's death can end this load
    const loading = host.load(MODEL);
    await harness.reloadStarted.promise;
    expect(engines[0].reloads).toEqual([MODEL]);
    workers[0].dispatchEvent(Object.assign(new Event('error'), { message: 'boom' }));
    const error = await loading.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'model' });
    expect(host.status.phase).toBe('error');
  });

  it('forwards a context-window failure to a remote caller marked contextTooLong', async () => {
    const { host } = makeHost();
    const remote = await connectRemoteEngine(host.connectPort('background')).acquire(MODEL);
    const error = await remote.chat.completions.create(request('too-long')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'bad-request', contextTooLong: true });
  });

  it('forwards a load failure to a remote caller with its kind and hint', async () => {
    const { host } = makeHost();
    const remote = connectRemoteEngine(host.connectPort());
    const engine = await remote.acquire('not-a-model');
    const error = await engine.chat.completions.create(request('x')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: 'model', hint: 'Pick a model from the list in Settings.' });
  });
});
