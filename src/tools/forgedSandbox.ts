/**
 * The forged-tool sandbox's engine (docs/forged-tools.md, "The sandbox"): runs one call of a
 * tool's `run(input)` in QuickJS compiled to WebAssembly, JSON in and JSON out, under limits on
 * time, memory, stack and output. Plain TypeScript over a loaded QuickJS module, so the worker
 * (workers/forgedTool.worker.ts) and the Node unit tests run the same code.
 *
 * Every call gets a fresh runtime and context (about half a millisecond): a tool cannot keep
 * state between calls, and nothing one call did can affect the next. QuickJS itself has no
 * network, DOM, storage or timers; the worker around it is the second wall.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten-core';

export interface SandboxLimits {
  /** Wall time of one call, checked by QuickJS's interrupt handler. */
  timeMs: number;
  /** Heap of the call's runtime. */
  memoryBytes: number;
  /** Native stack of the call's runtime (recursion depth). */
  stackBytes: number;
  /** Input and output JSON, in characters. */
  inputChars: number;
  outputChars: number;
}

export const SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  timeMs: 1_000,
  // A procedure on a JSON input needs little; a small heap also makes a memory bomb end quickly.
  memoryBytes: 16 * 1024 * 1024,
  // Below the host's own stack (about 1 MB in V8): QuickJS must stop a recursion before the engine running it does.
  stackBytes: 256 * 1024,
  inputChars: 100_000,
  outputChars: 100_000,
});

/** One request to the sandbox: run a tool on an input, or only compile it (the syntax check of skill_manage). */
export type SandboxRequest = { kind: 'run'; code: string; inputJson: string; limits?: Partial<SandboxLimits> } | { kind: 'compile'; code: string; label: string };

/** Why a call ended without an output; the sentence in `error` is for people and models alike. */
export type SandboxFailure = 'timeout' | 'memory' | 'stack' | 'output' | 'input' | 'thrown' | 'syntax' | 'no_run' | 'not_json' | 'crashed';

export type SandboxResult = { ok: true; outputJson: string; ms: number } | { ok: false; failure: SandboxFailure; error: string; ms: number };

const CALL_WRAPPER = `(function (inputText) {
  if (typeof run !== 'function') throw { __knack: 'no_run' };
  const output = run(JSON.parse(inputText));
  if (output === undefined) throw { __knack: 'not_json', detail: 'run returned undefined' };
  if (output !== null && typeof output === 'object' && typeof output.then === 'function') throw { __knack: 'not_json', detail: 'run returned a promise; a tool is synchronous' };
  const text = JSON.stringify(output);
  if (typeof text !== 'string') throw { __knack: 'not_json', detail: 'run returned ' + typeof output };
  return text;
})`;

const STACK_ERROR = 'stopped: the tool recursed too deeply (stack limit). Use a loop instead of deep recursion.';

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(2))} s`;

function preview(text: string, limit = 200): string {
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Reads a thrown value without trusting it: it may be an Error, a primitive or a hostile object. */
function describeThrown(context: QuickJSContext, handle: QuickJSHandle): { name: string; message: string; tag?: string; detail?: string; line?: number } {
  try {
    const dumped: unknown = context.dump(handle);
    if (dumped && typeof dumped === 'object') {
      const record = dumped as Record<string, unknown>;
      if (typeof record.__knack === 'string') return { name: 'knack', message: '', tag: record.__knack, detail: typeof record.detail === 'string' ? record.detail : undefined };
      const line = typeof record.lineNumber === 'number' ? record.lineNumber : /tool\.js:(\d+)/.exec(String(record.stack ?? ''))?.[1];
      if (typeof record.name === 'string' || typeof record.message === 'string') {
        return { name: String(record.name ?? 'Error'), message: preview(String(record.message ?? '')), line: line === undefined ? undefined : Number(line) };
      }
    }
    let shown: string;
    try {
      shown = JSON.stringify(dumped) ?? String(dumped);
    } catch {
      shown = String(dumped);
    }
    return { name: 'non-error', message: preview(shown) };
  } catch {
    return { name: 'non-error', message: 'a value that could not be read' };
  }
}

function failureOf(thrown: ReturnType<typeof describeThrown>, interrupted: boolean, limits: SandboxLimits): { failure: SandboxFailure; error: string } {
  if (interrupted || (thrown.name === 'InternalError' && thrown.message === 'interrupted')) {
    return { failure: 'timeout', error: `stopped after ${seconds(limits.timeMs)}: the tool did not finish.` };
  }
  if (thrown.name === 'InternalError' && /out of memory/.test(thrown.message)) {
    return { failure: 'memory', error: `stopped: the tool used more than ${Math.round(limits.memoryBytes / 1024 / 1024)} MB of memory.` };
  }
  if (/stack overflow|call stack/i.test(thrown.message)) {
    return { failure: 'stack', error: STACK_ERROR };
  }
  if (thrown.tag === 'no_run') return { failure: 'no_run', error: 'the tool does not define a function run(input).' };
  if (thrown.tag === 'not_json') return { failure: 'not_json', error: `the tool's output is not JSON: ${thrown.detail ?? 'unknown'}. run must return a JSON value.` };
  if (thrown.name === 'SyntaxError' && thrown.line !== undefined) {
    return { failure: 'syntax', error: `SyntaxError at line ${thrown.line}: ${thrown.message}` };
  }
  if (thrown.name === 'non-error') return { failure: 'thrown', error: `the tool threw a value that is not an Error: ${thrown.message}` };
  const at = thrown.line !== undefined ? ` (line ${thrown.line})` : '';
  return { failure: 'thrown', error: `the tool threw ${thrown.name}${at}: ${thrown.message}` };
}

/** Compiles a tool without running it; the syntax error with its line, or null. */
export function compileTool(module: QuickJSWASMModule, code: string, label: string): string | null {
  const context = module.newContext();
  try {
    const result = context.evalCode(code, 'tool.js', { compileOnly: true, type: 'global' });
    if (!result.error) {
      result.value.dispose();
      return null;
    }
    const thrown = describeThrown(context, result.error);
    result.error.dispose();
    return `${label} does not compile: ${thrown.name}${thrown.line !== undefined ? ` at line ${thrown.line}` : ''}: ${thrown.message}. Fix it and write the file again.`;
  } finally {
    context.dispose();
  }
}

/** Runs `run(input)` once under the limits. Never throws: every way a call can end is a result. */
export function runTool(module: QuickJSWASMModule, code: string, inputJson: string, overrides: Partial<SandboxLimits> = {}): SandboxResult {
  const limits: SandboxLimits = { ...SANDBOX_LIMITS, ...overrides };
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  if (inputJson.length > limits.inputChars) {
    return { ok: false, failure: 'input', error: `the input is ${inputJson.length} characters; the limit is ${limits.inputChars}.`, ms: elapsed() };
  }
  const runtime = module.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const deadline = Date.now() + limits.timeMs;
  let interrupted = false;
  runtime.setInterruptHandler(() => (interrupted ||= Date.now() > deadline));
  const context = runtime.newContext();
  try {
    const loaded = context.evalCode(code, 'tool.js', { type: 'global' });
    if (loaded.error) {
      const failure = failureOf(describeThrown(context, loaded.error), interrupted, limits);
      loaded.error.dispose();
      return { ok: false, ...failure, ms: elapsed() };
    }
    loaded.value.dispose();
    const wrapper = context.unwrapResult(context.evalCode(CALL_WRAPPER, 'knack-call.js'));
    const input = context.newString(inputJson);
    const called = context.callFunction(wrapper, context.undefined, input);
    input.dispose();
    wrapper.dispose();
    if (called.error) {
      const failure = failureOf(describeThrown(context, called.error), interrupted, limits);
      called.error.dispose();
      return { ok: false, ...failure, ms: elapsed() };
    }
    const outputJson = context.typeof(called.value) === 'string' ? context.getString(called.value) : '';
    called.value.dispose();
    if (outputJson.length > limits.outputChars) {
      return { ok: false, failure: 'output', error: `the tool's output is ${outputJson.length} characters; the limit is ${limits.outputChars}.`, ms: elapsed() };
    }
    return { ok: true, outputJson, ms: elapsed() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The host's stack ran out before QuickJS's own limit: the same fault in the tool, so the same words.
    if (/call stack/i.test(message)) return { ok: false, failure: 'stack', error: STACK_ERROR, ms: elapsed() };
    return { ok: false, failure: 'crashed', error: `the sandbox failed: ${message}`, ms: elapsed() };
  } finally {
    disposeQuietly(context, runtime);
  }
}

/** A runtime stopped by a limit may still hold objects; failing to free them must not turn a result into a throw. */
function disposeQuietly(...items: { dispose(): void }[]): void {
  for (const item of items) {
    try {
      item.dispose();
    } catch {
      // The worker is replaced when it misbehaves (forgedSandboxClient.ts); nothing to report here.
    }
  }
}

/** Answers one request (the worker's whole job). */
export function answerSandboxRequest(module: QuickJSWASMModule, request: SandboxRequest): SandboxResult {
  if (request.kind === 'compile') {
    const started = performance.now();
    const error = compileTool(module, request.code, request.label);
    return error ? { ok: false, failure: 'syntax', error, ms: performance.now() - started } : { ok: true, outputJson: 'null', ms: performance.now() - started };
  }
  return runTool(module, request.code, request.inputJson, request.limits);
}
