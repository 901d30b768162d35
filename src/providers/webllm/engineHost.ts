/**
 * The one web-llm engine of this tab, owned by the UI thread.
 *
 * Shared-engine design (docs/providers.md):
 * - `workers/llm.worker.ts` runs web-llm's own `WebWorkerMLCEngineHandler` (web-llm's message
 *   protocol, not comlink). It holds the GPU device and the weights.
 * - This host owns the only `WebWorkerMLCEngine` client for that worker. Every caller goes
 *   through it: the chat on the UI thread via `acquire()`, and other workers (the review
 *   worker) via `connectPort()`, which returns a MessagePort whose far end is served here and
 *   whose near end `remoteEngine.ts` turns back into the same `CompletionEngine` shape.
 * - Why not let each worker talk to the llm worker directly? web-llm's handler answers on the
 *   worker's global `postMessage` and silently reloads whatever model a client last asked for
 *   (`reloadIfUnmatched`), so two clients would fight over the model; and `interruptGenerate`
 *   is engine-wide. A single client with a turn queue avoids both: loads and generations take
 *   turns, and a caller's Stop only interrupts that caller's own generation.
 * - A SharedWorker would share one engine across tabs too, but Chrome for Android has no
 *   SharedWorker, and web-llm's handler still assumes one client per worker, so the turn
 *   queue would have to live in the shared worker anyway. One engine per tab is enough.
 * - Turns have a priority: a foreground caller (the chat) waiting for the engine goes before
 *   every waiting background caller (verification replays), so a gate run never makes the
 *   user wait behind its queue; a generation already running is never cut short.
 * Relaying tokens through the UI thread costs a postMessage per chunk, which is negligible
 * next to generating the token.
 *
 * Cancel of a load terminates the worker (web-llm's own `unload()` makes a pending `reload()`
 * resolve as if it had succeeded); the next use starts a fresh worker, and the shards already
 * downloaded stay in web-llm's cache.
 */
import type { WebWorkerMLCEngine } from '@mlc-ai/web-llm';
import { ProviderError } from '../provider';
import type { AcquireOptions, ChatCompletionChunk, ChatCompletionRequestStreaming, CompletionEngine, EngineAccess, LoadProgress } from './engine';
import type { RemoteRequest, RemoteResponse } from './engineProtocol';
import { toProviderError } from './errors';
import { loadModelCatalog } from './models';
import { workerName } from '../requestCounter';

type WebLlmModule = typeof import('@mlc-ai/web-llm');

export type HostPhase = 'idle' | 'loading' | 'ready' | 'error';

export interface HostStatus {
  phase: HostPhase;
  /** The model loaded (ready) or being loaded (loading). */
  modelId?: string;
  progress: number;
  text: string;
  error?: ProviderError;
}

/** Who is waiting for the engine: the person in the chat, or background work. */
export type EnginePriority = 'foreground' | 'background';

export interface HostAcquireOptions extends AcquireOptions {
  /** Default foreground. */
  priority?: EnginePriority;
}

interface WaitingTurn {
  priority: EnginePriority;
  grant(): void;
}

/** What a model is loaded with beyond its record: the user's window (docs/context-window.md). */
export interface EngineChatOptions {
  context_window_size?: number;
}

export interface EngineHostOptions {
  createWorker?: () => Worker;
  loadWebLlm?: () => Promise<WebLlmModule>;
  /** The options to load a model with (web-llm's `ChatOptions` overrides), if any. */
  chatOptions?: (modelId: string) => Promise<EngineChatOptions | undefined>;
}

function createLlmWorker(): Worker {
  return new Worker(new URL('../../../workers/llm.worker.ts', import.meta.url), { type: 'module', name: workerName('knack-llm') });
}

function isOnline(): boolean | undefined {
  return typeof navigator === 'undefined' ? undefined : navigator.onLine;
}

const EMPTY_STREAM: AsyncIterable<ChatCompletionChunk> = { async *[Symbol.asyncIterator]() {} };

interface LoadInFlight {
  modelId: string;
  promise: Promise<void>;
  progressListeners: Set<(progress: LoadProgress) => void>;
}

/** The live worker and its client; replaced as a whole when the worker dies or is cancelled. */
interface EngineInstance {
  worker: Worker;
  engine: WebWorkerMLCEngine;
  /** Rejects when the worker fails or is terminated; every engine call races it. */
  gone: Promise<never>;
  end(reason: ProviderError): void;
}

export class EngineHost implements EngineAccess {
  readonly #createWorker: () => Worker;
  readonly #loadWebLlm: () => Promise<WebLlmModule>;
  #chatOptions: EngineHostOptions['chatOptions'];
  #instance: Promise<EngineInstance> | null = null;
  #loadedModel: string | undefined;
  #loading: LoadInFlight | null = null;
  #busy = false;
  readonly #waiting: WaitingTurn[] = [];
  #status: HostStatus = { phase: 'idle', progress: 0, text: '' };
  readonly #statusListeners = new Set<(status: HostStatus) => void>();

  constructor(options: EngineHostOptions = {}) {
    this.#createWorker = options.createWorker ?? createLlmWorker;
    this.#loadWebLlm = options.loadWebLlm ?? (() => import('@mlc-ai/web-llm'));
    this.#chatOptions = options.chatOptions;
  }

  /** Where the next loads take their options from (the window book, in the tab). */
  useChatOptions(chatOptions: EngineHostOptions['chatOptions']): void {
    this.#chatOptions = chatOptions;
  }

  get status(): HostStatus {
    return this.#status;
  }

  get loadedModel(): string | undefined {
    return this.#loadedModel;
  }

  /** Callers waiting for the engine (a load or a generation is holding it). */
  get waitingTurns(): number {
    return this.#waiting.length;
  }

  /** Calls `listener` now and on every status change; returns the unsubscribe function. */
  subscribe(listener: (status: HostStatus) => void): () => void {
    this.#statusListeners.add(listener);
    listener(this.#status);
    return () => this.#statusListeners.delete(listener);
  }

  #setStatus(status: HostStatus): void {
    this.#status = status;
    for (const listener of this.#statusListeners) listener(status);
  }

  /** The web-llm client, creating the worker on first use. No model is loaded by this. */
  async getEngine(): Promise<WebWorkerMLCEngine> {
    return (await this.#ensureInstance()).engine;
  }

  #ensureInstance(): Promise<EngineInstance> {
    this.#instance ??= this.#startInstance().catch((error: unknown) => {
      this.#instance = null;
      throw toProviderError(error, { stage: 'load' });
    });
    return this.#instance;
  }

  async #startInstance(): Promise<EngineInstance> {
    const [webllm, catalog] = await Promise.all([this.#loadWebLlm(), loadModelCatalog()]);
    const worker = this.#createWorker();
    let end!: (reason: ProviderError) => void;
    const gone = new Promise<never>((_resolve, reject) => {
      end = reject;
    });
    gone.catch(() => {}); // observed by whoever races it; never an unhandled rejection
    const instance: EngineInstance = {
      worker,
      gone,
      end: (reason) => {
        end(reason);
        worker.terminate();
      },
      engine: new webllm.WebWorkerMLCEngine(worker, {
        appConfig: catalog.appConfig,
        logLevel: 'WARN',
        initProgressCallback: (report) => this.#reportProgress({ progress: report.progress, text: report.text }),
      }),
    };
    // A worker that fails to start or throws outside web-llm's task wrapper would leave every
    // pending call waiting forever; end the instance so callers get an error instead.
    const fail = (event: Event) => {
      // ErrorEvent for script errors; a plain Event for messageerror (and no ErrorEvent in Node tests).
      const detail = String((event as { message?: unknown }).message || 'the worker failed');
      this.#forget(instance, new ProviderError('model', `The in-browser engine stopped: ${detail}`, 'Try again; a fresh engine starts automatically.'));
    };
    worker.addEventListener('error', fail);
    worker.addEventListener('messageerror', fail);
    return instance;
  }

  /** Drops a dead instance so the next call starts a new worker. */
  #forget(instance: EngineInstance, reason: ProviderError): void {
    instance.end(reason);
    void this.#instance?.then((current) => {
      if (current === instance) {
        this.#instance = null;
        this.#loadedModel = undefined;
      }
    });
  }

  #reportProgress(progress: LoadProgress): void {
    if (!this.#loading) return;
    for (const listener of this.#loading.progressListeners) listener(progress);
    this.#setStatus({ phase: 'loading', modelId: this.#loading.modelId, progress: progress.progress, text: progress.text });
  }

  /**
   * Waits for the engine to be free; resolves to the function that frees it again. Waiting
   * foreground turns are granted before waiting background ones, each in arrival order.
   */
  #takeTurn(priority: EnginePriority = 'foreground'): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#busy = true;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#passTurn();
        });
      };
      if (this.#busy) this.#waiting.push({ priority, grant });
      else grant();
    });
  }

  #passTurn(): void {
    this.#busy = false;
    const foreground = this.#waiting.findIndex((turn) => turn.priority === 'foreground');
    const [next] = this.#waiting.splice(foreground >= 0 ? foreground : 0, 1);
    next?.grant();
  }

  /** Loads `modelId` (downloading it if needed); resolves at once when it is already loaded. */
  async load(modelId: string, options: HostAcquireOptions = {}): Promise<void> {
    if (this.#loadedModel === modelId && !this.#loading) return;
    if (this.#loading?.modelId === modelId) return this.#joinLoad(this.#loading, options);
    const release = await this.#takeTurn(options.priority);
    try {
      if (this.#loadedModel === modelId) return;
      await this.#loadHoldingTurn(modelId, options);
    } finally {
      release();
    }
  }

  #joinLoad(loading: LoadInFlight, options: AcquireOptions): Promise<void> {
    const { onProgress, signal } = options;
    if (onProgress) loading.progressListeners.add(onProgress);
    signal?.addEventListener('abort', () => this.cancelLoad(), { once: true });
    return loading.promise.finally(() => onProgress && loading.progressListeners.delete(onProgress));
  }

  async #loadHoldingTurn(modelId: string, options: AcquireOptions): Promise<void> {
    const listeners = new Set<(p: LoadProgress) => void>();
    const loading: LoadInFlight = { modelId, progressListeners: listeners, promise: Promise.resolve() };
    loading.promise = this.#reload(modelId);
    this.#loading = loading;
    this.#setStatus({ phase: 'loading', modelId, progress: 0, text: 'Starting the in-browser engine…' });
    try {
      await this.#joinLoad(loading, options);
      this.#setStatus({ phase: 'ready', modelId, progress: 1, text: `${modelId} is loaded.` });
    } catch (error) {
      const failure = toProviderError(error, { stage: 'load', modelId, online: isOnline() });
      this.#setStatus(
        failure.kind === 'aborted'
          ? { phase: 'idle', progress: 0, text: 'Loading was cancelled.' }
          : { phase: 'error', modelId, progress: 0, text: failure.message, error: failure },
      );
      throw failure;
    } finally {
      if (this.#loading === loading) this.#loading = null;
    }
  }

  async #reload(modelId: string): Promise<void> {
    const catalog = await loadModelCatalog();
    if (!catalog.models.some((model) => model.id === modelId)) {
      throw new ProviderError('model', `"${modelId}" is not one of the in-browser models.`, 'Pick a model from the list in Settings.');
    }
    if (isOnline() === false) {
      // web-llm would try the network first and fail with a bare fetch error.
      const webllm = await this.#loadWebLlm();
      if (!(await webllm.hasModelInCache(modelId, catalog.appConfig))) {
        throw toProviderError(new TypeError('Failed to fetch'), { stage: 'load', modelId, online: false });
      }
    }
    // The user's window, when set: web-llm sizes the KV cache for it at load time.
    const chatOptions = await this.#chatOptions?.(modelId).catch(() => undefined);
    const instance = await this.#ensureInstance();
    this.#loadedModel = undefined;
    try {
      await Promise.race([chatOptions ? instance.engine.reload(modelId, chatOptions) : instance.engine.reload(modelId), instance.gone]);
    } catch (error) {
      throw toProviderError(error, { stage: 'load', modelId, online: isOnline() });
    }
    this.#loadedModel = modelId;
  }

  /** Stops a download/load in progress by ending the worker; a no-op when nothing loads. */
  cancelLoad(): void {
    const loading = this.#loading;
    if (!loading || !this.#instance) return;
    const aborted = new ProviderError('aborted', `Loading ${loading.modelId} was cancelled.`);
    void this.#instance.then((instance) => this.#forget(instance, aborted));
  }

  /** Frees the GPU memory of the loaded model (the worker stays for the next load). */
  async unload(): Promise<void> {
    const release = await this.#takeTurn();
    try {
      if (this.#instance) await (await this.#instance).engine.unload();
      this.#loadedModel = undefined;
      this.#setStatus({ phase: 'idle', progress: 0, text: '' });
    } finally {
      release();
    }
  }

  /** Ends the worker and everything in flight, e.g. when leaving the in-browser provider. */
  dispose(): void {
    const instance = this.#instance;
    this.#instance = null;
    this.#loadedModel = undefined;
    void instance?.then((live) => live.end(new ProviderError('aborted', 'The in-browser engine was shut down.')), () => {});
    this.#setStatus({ phase: 'idle', progress: 0, text: '' });
  }

  async acquire(modelId: string, options: HostAcquireOptions = {}): Promise<CompletionEngine> {
    await this.load(modelId, options);
    return this.#session(modelId, options.priority ?? 'foreground');
  }

  /**
   * One caller's view of the engine: its generations wait for their turn, and its Stop
   * interrupts only its own generation (or just leaves the queue).
   */
  #session(modelId: string, priority: EnginePriority): CompletionEngine {
    let generating = false;
    let interrupted = false;
    let onInterrupt: () => void = () => {};
    const interruptedWhileWaiting = new Promise<null>((resolve) => {
      onInterrupt = () => resolve(null);
    });
    const host = this;
    return {
      interruptGenerate() {
        interrupted = true;
        onInterrupt();
        if (generating) void host.#instance?.then((instance) => instance.engine.interruptGenerate());
      },
      chat: {
        completions: {
          async create(request: ChatCompletionRequestStreaming) {
            const turn = host.#takeTurn(priority);
            const release = await Promise.race([turn, interruptedWhileWaiting]);
            if (release === null || interrupted) {
              void turn.then((free) => free());
              return EMPTY_STREAM;
            }
            try {
              if (host.#loadedModel !== modelId) await host.#loadHoldingTurn(modelId, {});
              const instance = await host.#ensureInstance();
              const stream = await Promise.race([instance.engine.chat.completions.create(request), instance.gone]);
              generating = true;
              return host.#guardStream(stream, instance, () => {
                generating = false;
                release();
              });
            } catch (error) {
              release();
              throw toProviderError(error, { stage: 'generate', modelId, online: isOnline() });
            }
          },
        },
      },
    };
  }

  /** Re-yields a web-llm stream, failing instead of hanging if the worker dies mid-stream. */
  async *#guardStream(
    stream: AsyncIterable<ChatCompletionChunk>,
    instance: EngineInstance,
    done: () => void,
  ): AsyncGenerator<ChatCompletionChunk, void, undefined> {
    const iterator = stream[Symbol.asyncIterator]();
    try {
      while (true) {
        const next = await Promise.race([iterator.next(), instance.gone]);
        if (next.done) return;
        yield next.value;
      }
    } finally {
      done();
    }
  }

  /**
   * A port another context (the review worker) can use to stream completions through this
   * same engine: transfer it, then wrap it with `connectRemoteEngine()` there. Every
   * generation through the port waits with `priority` (background for verification replays).
   */
  connectPort(priority: EnginePriority = 'foreground'): MessagePort {
    const channel = new MessageChannel();
    this.#serve(channel.port1, priority);
    return channel.port2;
  }

  #serve(port: MessagePort, priority: EnginePriority): void {
    const sessions = new Map<number, CompletionEngine>();
    // Stop can arrive while the model is still loading, before a session exists.
    const stoppedEarly = new Set<number>();
    const send = (message: RemoteResponse) => port.postMessage(message);
    port.onmessage = async (event: MessageEvent<RemoteRequest>) => {
      const message = event.data;
      if (message.type === 'interrupt') {
        const session = sessions.get(message.id);
        if (session) session.interruptGenerate();
        else stoppedEarly.add(message.id);
        return;
      }
      if (message.type !== 'generate') return;
      const { id } = message;
      try {
        const session = await this.acquire(message.modelId, { priority });
        sessions.set(id, session);
        if (stoppedEarly.delete(id)) session.interruptGenerate();
        const stream = await session.chat.completions.create(message.request);
        send({ type: 'started', id });
        for await (const chunk of stream) send({ type: 'chunk', id, chunk });
        send({ type: 'end', id });
      } catch (error) {
        const failure = toProviderError(error, { stage: 'generate', modelId: message.modelId, online: isOnline() });
        send({ type: 'error', id, error: { kind: failure.kind, message: failure.message, hint: failure.hint, details: failure.details } });
      } finally {
        sessions.delete(id);
      }
    };
  }
}

/** The tab's engine host; created lazily so nothing starts until the provider is used. */
let sharedHost: EngineHost | null = null;

export function engineHost(): EngineHost {
  sharedHost ??= new EngineHost();
  return sharedHost;
}
