import { beforeAll, describe, expect, it } from 'vitest';
import { type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { loadQuickjsInNode } from './quickjsNode';
import { answerSandboxRequest, compileTool, runTool } from '../../../src/tools/forgedSandbox';
import { SandboxClient, type SandboxPort, type SandboxWorkerReply, type SandboxWorkerRequest } from '../../../src/tools/forgedSandboxClient';

let quickjs: QuickJSWASMModule;
beforeAll(async () => {
  quickjs = await loadQuickjsInNode();
});

const run = (code: string, input: unknown = {}, limits = {}) => runTool(quickjs, code, JSON.stringify(input), { timeMs: 200, ...limits });

describe('the sandbox engine (QuickJS in Node)', () => {
  it('runs run(input) with JSON in and JSON out', () => {
    const result = run('function run(input) { return { total: Math.round(input.net * 1.19 * 100) / 100 }; }', { net: 10 });
    expect(result).toMatchObject({ ok: true, outputJson: '{"total":11.9}' });
  });

  it('starts every call fresh: nothing a call leaves behind reaches the next', () => {
    const code = 'var count = (globalThis.count || 0) + 1; globalThis.count = count; function run() { return count; }';
    expect(run(code)).toMatchObject({ outputJson: '1' });
    expect(run(code)).toMatchObject({ outputJson: '1' });
  });

  it('stops an endless loop at the time limit, even one that catches', () => {
    expect(run('function run() { for (;;) {} }')).toMatchObject({ ok: false, failure: 'timeout', error: 'stopped after 0.2 s: the tool did not finish.' });
    expect(run('function run() { for (;;) { try { for (;;) {} } catch (e) {} } }')).toMatchObject({ failure: 'timeout' });
    expect(run('function run() { return /(a+)+$/.test("a".repeat(40) + "b"); }')).toMatchObject({ failure: 'timeout' });
  });

  it('stops a memory bomb, deep recursion and an enormous output', () => {
    expect(run('function run() { const a = []; for (;;) a.push("xxxxxxxxxxxx" + a.length); }', {}, { timeMs: 5_000, memoryBytes: 8 * 1024 * 1024 })).toMatchObject({ failure: 'memory', error: expect.stringContaining('more than 8 MB') });
    expect(run('function run() { return "x".repeat(1e8); }')).toMatchObject({ failure: 'memory' });
    expect(run('function f(n) { return f(n + 1) + 1; } function run() { return f(0); }')).toMatchObject({ failure: 'stack' });
    expect(run('function run() { return "x".repeat(200000); }')).toMatchObject({ failure: 'output', error: expect.stringContaining('limit is 100000') });
  });

  it('has no network, DOM, storage or timers', () => {
    const probe = ['fetch', 'XMLHttpRequest', 'WebSocket', 'importScripts', 'postMessage', 'setTimeout', 'setInterval', 'document', 'localStorage', 'indexedDB', 'navigator', 'self', 'window', 'require', 'process'];
    const result = run(`function run() { return [${probe.map((name) => `typeof ${name}`).join(', ')}]; }`);
    expect(result.ok).toBe(true);
    expect(JSON.parse((result as { outputJson: string }).outputJson)).toEqual(probe.map(() => 'undefined'));
  });

  it('reports thrown errors and non-errors plainly', () => {
    expect(run('function run() { throw new RangeError("bad rate"); }')).toMatchObject({ failure: 'thrown', error: 'the tool threw RangeError (line 1): bad rate' });
    expect(run('function run() { throw 42; }')).toMatchObject({ failure: 'thrown', error: 'the tool threw a value that is not an Error: 42' });
    expect(run('function run() { throw { toString() { for(;;){} } }; }')).toMatchObject({ ok: false });
  });

  it('refuses outputs that are not JSON and code without run', () => {
    expect(run('function run() {}')).toMatchObject({ failure: 'not_json', error: expect.stringContaining('undefined') });
    expect(run('function run() { return new Promise(() => {}); }')).toMatchObject({ failure: 'not_json', error: expect.stringContaining('promise') });
    expect(run('function walk() {}')).toMatchObject({ failure: 'no_run' });
    expect(run('function run() { return () => 1; }')).toMatchObject({ failure: 'not_json' });
  });

  it('cannot reach the host through prototype tricks', () => {
    const code = 'function run() { Object.prototype.toJSON = function () { return "hacked"; }; JSON.stringify = () => 1; return { a: 1 }; }';
    const result = run(code);
    // Whatever the tool does to its own JSON, the host gets a string and parses it itself.
    expect(result.ok === false || typeof (result as { outputJson: string }).outputJson === 'string').toBe(true);
    expect(({} as Record<string, unknown>).toJSON).toBeUndefined();
  });

  it('compiles without running and names the line of a syntax error', () => {
    expect(compileTool(quickjs, 'function run() { for (;;) {} }', 'tools/x.js')).toBeNull();
    expect(compileTool(quickjs, 'function run() {\n  return 1 +;\n}', 'tools/x.js')).toMatch(/tools\/x.js does not compile: SyntaxError at line 2/);
    expect(answerSandboxRequest(quickjs, { kind: 'compile', code: 'function (', label: 'tools/x.js' })).toMatchObject({ ok: false, failure: 'syntax' });
  });
});

/** A port whose "worker" answers in-process, or never (hang: true). */
function fakePort(options: { hang?: (request: SandboxWorkerRequest) => boolean; log: string[] }): SandboxPort {
  let reply: (message: SandboxWorkerReply) => void = () => {};
  return {
    post(request) {
      options.log.push(`post ${request.kind}`);
      if (options.hang?.(request)) return;
      queueMicrotask(() => reply({ id: request.id, result: answerSandboxRequest(quickjs, request) }));
    },
    listen(onReply) {
      reply = onReply;
      queueMicrotask(() => onReply({ ready: true }));
    },
    terminate() {
      options.log.push('terminate');
    },
  };
}

describe('the sandbox client', () => {
  it('runs calls one at a time in one worker', async () => {
    const log: string[] = [];
    let spawned = 0;
    const client = new SandboxClient(() => (spawned++, fakePort({ log })));
    const [a, b] = await Promise.all([client.run('function run(i) { return i.x; }', { x: 1 }), client.run('function run(i) { return i.x; }', { x: 2 })]);
    expect([a, b]).toMatchObject([{ outputJson: '1' }, { outputJson: '2' }]);
    expect(spawned).toBe(1);
  });

  it('replaces a worker that does not answer, and the next call gets a fresh one', async () => {
    const log: string[] = [];
    let spawned = 0;
    const client = new SandboxClient(() => (spawned++, fakePort({ log, hang: (request) => request.kind === 'run' && request.code.includes('hang') })), { graceMs: 20 });
    const hung = await client.run('function run() { return "hang"; }', {}, { timeMs: 10 });
    expect(hung).toMatchObject({ ok: false, failure: 'timeout', error: 'stopped after 0.01 s: the tool did not finish (the sandbox was replaced).' });
    expect(log).toContain('terminate');
    expect(client.replaced).toBe(1);
    expect(await client.run('function run() { return 7; }', {})).toMatchObject({ ok: true, outputJson: '7' });
    expect(spawned).toBe(2);
  });

  it('reports a worker that cannot start', async () => {
    const client = new SandboxClient(() => Promise.reject(new Error('no wasm')));
    expect(await client.run('function run() { return 1; }', {})).toMatchObject({ ok: false, failure: 'crashed', error: expect.stringContaining('no wasm') });
  });

  it('refuses input that is not JSON without starting anything', async () => {
    const client = new SandboxClient(() => Promise.reject(new Error('unused')));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await client.run('function run() {}', cyclic)).toMatchObject({ ok: false, failure: 'input' });
  });
});

describe('warming the sandbox', () => {
  it('starts the worker before the first call, once', async () => {
    const log: string[] = [];
    let spawned = 0;
    const client = new SandboxClient(() => (spawned++, fakePort({ log })));
    client.warm();
    client.warm();
    expect(await client.run('function run() { return 3; }', {})).toMatchObject({ ok: true, outputJson: '3' });
    expect(spawned).toBe(1);
  });
});
