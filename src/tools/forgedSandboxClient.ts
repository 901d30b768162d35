/**
 * The page's (or review worker's) side of the forged-tool sandbox (docs/forged-tools.md, "The
 * sandbox"): one dedicated worker at a time, one call at a time, each under a watchdog. QuickJS's
 * interrupt handler stops a runaway call from inside; the watchdog is for the case where that
 * fails (a hang in native code, a crashed worker): it terminates the worker, answers the call
 * with a clear error, and the next call starts a fresh worker.
 *
 * The watchdog talks to a `SandboxPort`, so it runs the same over a browser Worker
 * (app/forgedToolRunner.ts) and over a fake port in unit tests.
 */
import { SANDBOX_LIMITS, type SandboxLimits, type SandboxRequest, type SandboxResult } from './forgedSandbox';

export type SandboxWorkerRequest = SandboxRequest & { id: number };
export type SandboxWorkerReply = { ready: true } | { ready: false; error: string } | { id: number; result: SandboxResult };

export interface SandboxPort {
  post(request: SandboxWorkerRequest): void;
  /** Registers the handlers; called once, right after the port is spawned. */
  listen(onReply: (reply: SandboxWorkerReply) => void, onError: (reason: string) => void): void;
  terminate(): void;
}

export type SandboxPortFactory = () => SandboxPort | Promise<SandboxPort>;

export interface SandboxClientOptions {
  /** Past the call's own time limit, how long the worker may take to answer before it is replaced. */
  graceMs?: number;
  /** For a new worker to load QuickJS and say it is ready (loading is not the tool's fault). */
  startTimeoutMs?: number;
}

interface LiveWorker {
  port: SandboxPort;
  ready: Promise<void>;
  pending: Map<number, (result: SandboxResult) => void>;
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`;

export class SandboxClient {
  #worker: LiveWorker | null = null;
  #nextId = 1;
  #queue: Promise<unknown> = Promise.resolve();
  /** Workers replaced after a hang or a crash (shown in tests and the bench). */
  replaced = 0;
  readonly #graceMs: number;
  readonly #startTimeoutMs: number;

  constructor(
    private readonly spawn: SandboxPortFactory,
    options: SandboxClientOptions = {},
  ) {
    this.#graceMs = options.graceMs ?? 2_000;
    this.#startTimeoutMs = options.startTimeoutMs ?? 20_000;
  }

  /** Runs `run(input)` of `code`; every outcome, a hang included, is a result. */
  run(code: string, input: unknown, limits: Partial<SandboxLimits> = {}): Promise<SandboxResult> {
    let inputJson: string;
    try {
      inputJson = JSON.stringify(input ?? {});
    } catch (error) {
      return Promise.resolve({ ok: false, failure: 'input', error: `the input is not JSON: ${(error as Error).message}`, ms: 0 });
    }
    // The watchdog never waits longer than the default limit allows, whatever the call asks:
    // a limit can be lowered, never raised past the point where a hung worker is replaced.
    const watchdogMs = Math.min(limits.timeMs ?? SANDBOX_LIMITS.timeMs, SANDBOX_LIMITS.timeMs) + this.#graceMs;
    return this.#enqueue({ kind: 'run', code, inputJson, limits }, watchdogMs);
  }

  /** Compiles without running: the syntax error with its line, or null. */
  async compile(code: string, label: string): Promise<string | null> {
    const result = await this.#enqueue({ kind: 'compile', code, label }, SANDBOX_LIMITS.timeMs + this.#graceMs);
    return result.ok ? null : result.error;
  }

  /**
   * Starts the worker ahead of the first call (the engine compiled, the worker running), so a
   * chat's first tool call does not pay the cold start. Failures are left for that call to report.
   */
  warm(): void {
    void this.#live().catch(() => this.#drop());
  }

  /** Ends the worker (tests, and a page that no longer needs it). */
  dispose(): void {
    this.#drop();
  }

  #enqueue(request: SandboxRequest, watchdogMs: number): Promise<SandboxResult> {
    const next = this.#queue.then(() => this.#call(request, watchdogMs));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #call(request: SandboxRequest, watchdogMs: number): Promise<SandboxResult> {
    const started = performance.now();
    let worker: LiveWorker;
    try {
      worker = await this.#live();
    } catch (error) {
      this.#drop();
      return { ok: false, failure: 'crashed', error: `the sandbox could not start: ${(error as Error).message}`, ms: performance.now() - started };
    }
    const id = this.#nextId++;
    return new Promise<SandboxResult>((resolve) => {
      const timer = setTimeout(() => {
        worker.pending.delete(id);
        this.#drop();
        this.replaced++;
        const limit = request.kind === 'run' ? Math.min(request.limits?.timeMs ?? SANDBOX_LIMITS.timeMs, SANDBOX_LIMITS.timeMs) : SANDBOX_LIMITS.timeMs;
        resolve({ ok: false, failure: 'timeout', error: `stopped after ${seconds(limit)}: the tool did not finish (the sandbox was replaced).`, ms: performance.now() - started });
      }, watchdogMs);
      worker.pending.set(id, (result) => {
        clearTimeout(timer);
        // A call that broke the engine's own stack or crashed it may leave the module in a bad state: start afresh.
        if (!result.ok && (result.failure === 'crashed' || result.failure === 'stack')) this.#drop();
        resolve(result);
      });
      worker.port.post({ ...request, id });
    });
  }

  #live(): Promise<LiveWorker> {
    if (this.#worker) return this.#worker.ready.then(() => this.#worker!);
    const pending = new Map<number, (result: SandboxResult) => void>();
    const failAll = (reason: string) => {
      for (const [id, settle] of pending) {
        pending.delete(id);
        settle({ ok: false, failure: 'crashed', error: `the sandbox stopped: ${reason}`, ms: 0 });
      }
      if (this.#worker === live) this.#drop();
    };
    const live: LiveWorker = { port: null as unknown as SandboxPort, pending, ready: Promise.resolve() };
    live.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the sandbox did not start within ${seconds(this.#startTimeoutMs)}`)), this.#startTimeoutMs);
      Promise.resolve(this.spawn())
        .then((port) => {
          live.port = port;
          port.listen(
            (reply) => {
              if ('id' in reply) {
                const settle = pending.get(reply.id);
                pending.delete(reply.id);
                return settle?.(reply.result);
              }
              clearTimeout(timer);
              if (reply.ready) resolve();
              else reject(new Error(reply.error));
            },
            (reason) => {
              clearTimeout(timer);
              reject(new Error(reason));
              failAll(reason);
            },
          );
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
    this.#worker = live;
    return live.ready.then(() => live);
  }

  #drop(): void {
    const worker = this.#worker;
    this.#worker = null;
    try {
      worker?.port?.terminate();
    } catch {
      // Already gone.
    }
  }
}

/** The first message a new sandbox worker gets: the compiled QuickJS module, so it never fetches anything itself. */
export interface SandboxWorkerInit {
  kind: 'init';
  wasmModule: WebAssembly.Module;
}
