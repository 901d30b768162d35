/**
 * The forged-tool sandbox against hostile code (docs/forged-tools.md, "The sandbox"): each input
 * ends with a clear error, no request leaves the page (the browser's own request log, the privacy
 * counter and the scripted server agree), and the page stays responsive while a tool spins.
 */
import { test, expect } from './fixtures';
import type { Page } from '@playwright/test';
import type { SandboxLimits, SandboxResult } from '../../src/tools/forgedSandbox';
import { openLearningApp } from './learningSupport';

const runInSandbox = (page: Page, code: string, input: unknown = {}, limits: Partial<SandboxLimits> = {}) =>
  page.evaluate(([c, i, l]) => globalThis.knackUi!.sandbox.run(c as string, i, l as Partial<SandboxLimits>), [code, input, limits] as const);

/** Each hostile tool, and how its call must end. */
const CORPUS: { name: string; code: string; failure: SandboxResult extends infer R ? (R extends { ok: false; failure: infer F } ? F : never) : never; error: RegExp }[] = [
  { name: 'endless loop', code: 'function run() { for (;;) {} }', failure: 'timeout', error: /^stopped after 1 s: the tool did not finish\.$/ },
  { name: 'loop that swallows the interrupt', code: 'function run() { for (;;) { try { for (;;) {} } catch (e) {} } }', failure: 'timeout', error: /stopped after 1 s/ },
  { name: 'catastrophic regex', code: 'function run() { return /(a+)+$/.test("a".repeat(40) + "b"); }', failure: 'timeout', error: /stopped after 1 s/ },
  { name: 'one huge string', code: 'function run() { return "x".repeat(1e8); }', failure: 'memory', error: /^stopped: the tool used more than 16 MB of memory\.$/ },
  { name: 'deep recursion', code: 'function f(n) { return f(n + 1) + 1; } function run() { return f(0); }', failure: 'stack', error: /recursed too deeply/ },
  { name: 'fetch', code: 'function run() { return fetch("http://127.0.0.1:9/leak"); }', failure: 'thrown', error: /ReferenceError.*fetch/ },
  { name: 'XMLHttpRequest', code: 'function run() { const x = new XMLHttpRequest(); x.open("GET", "http://127.0.0.1:9/leak"); x.send(); }', failure: 'thrown', error: /ReferenceError.*XMLHttpRequest/ },
  { name: 'importScripts', code: 'function run() { importScripts("http://127.0.0.1:9/leak.js"); }', failure: 'thrown', error: /ReferenceError.*importScripts/ },
  { name: 'WebSocket', code: 'function run() { return new WebSocket("ws://127.0.0.1:9/"); }', failure: 'thrown', error: /ReferenceError.*WebSocket/ },
  { name: 'postMessage to the page', code: 'function run() { postMessage({ id: 1, result: { ok: true, outputJson: "1" } }); return 0; }', failure: 'thrown', error: /ReferenceError.*postMessage/ },
  { name: 'global object tricks', code: 'function run() { const g = Function("return this")(); return g.self.postMessage("x"); }', failure: 'thrown', error: /TypeError|ReferenceError/ },
  { name: 'constructor escape', code: 'function run() { return run.constructor("return process")().exit(); }', failure: 'thrown', error: /ReferenceError.*process/ },
  { name: 'enormous output', code: 'function run() { return "x".repeat(200000); }', failure: 'output', error: /output is 200002 characters; the limit is 100000/ },
  { name: 'thrown number', code: 'function run() { throw 42; }', failure: 'thrown', error: /^the tool threw a value that is not an Error: 42$/ },
  { name: 'thrown object with a hostile toString', code: 'function run() { throw { toString() { for (;;) {} } }; }', failure: 'thrown', error: /not an Error/ },
  { name: 'promise instead of a value', code: 'function run() { return new Promise(() => {}); }', failure: 'not_json', error: /promise/ },
];

test('hostile tools each end with a clear error, nothing leaves the page, and the page stays responsive', async ({ page, scripted }) => {
  test.setTimeout(120_000);
  await openLearningApp(page, scripted);
  const appOrigin = new URL(page.url()).origin;
  const providerHost = new URL(scripted.baseUrl).host;
  const hostCounts = () => page.evaluate(() => Object.fromEntries(globalThis.knackUi!.network.byHost.map(({ host, count }) => [host, count])));
  // Choosing the provider asks it for its models and window; the counter sees each request when its
  // response ends, so wait until it has counted every request the server logged (preflights are the
  // browser's own and never counted) before taking the baseline.
  // The window's last probe for a custom server is LM Studio's model list (windowDiscovery.ts
  // `probesFor`); Save asks for the models first, so under load the probes can start late.
  const fetchedByApp = () => scripted.requests.filter((request) => request.method !== 'OPTIONS').length;
  await expect.poll(() => scripted.requests.some((request) => request.path.startsWith('/api/v0/models'))).toBe(true);
  await expect.poll(async () => ((await hostCounts())[providerHost] ?? 0) - fetchedByApp()).toBe(0);
  const outside: string[] = [];
  page.context().on('request', (request) => {
    if (new URL(request.url()).origin !== appOrigin) outside.push(request.url());
  });
  const before = scripted.requests.length;
  const providerBefore = (await hostCounts())[providerHost] ?? 0;

  // Warm up: the engine loads on first use (the .wasm and the worker come from the app's own origin).
  expect(await runInSandbox(page, 'function run(i) { return i.a * 2; }', { a: 21 })).toMatchObject({ ok: true, outputJson: '42' });

  // While a tool spins, the page answers.
  await page.evaluate(() => {
    (globalThis as { spinning?: Promise<unknown> }).spinning = globalThis.knackUi!.sandbox.run('function run() { for (;;) {} }', {});
  });
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(page.getByRole('combobox', { name: 'Provider' })).toBeVisible();
  expect(await page.evaluate(() => (globalThis as { spinning?: Promise<SandboxResult> }).spinning)).toMatchObject({ ok: false, failure: 'timeout' });

  for (const hostile of CORPUS) {
    const result = await runInSandbox(page, hostile.code);
    expect(result, hostile.name).toMatchObject({ ok: false, failure: hostile.failure });
    expect((result as { error: string }).error, hostile.name).toMatch(hostile.error);
  }

  // A growing heap ends at whichever limit it reaches first, memory or time, each with its sentence.
  const bomb = await runInSandbox(page, 'function run() { const a = []; for (;;) a.push("xxxxxxxxxxxx" + a.length); }');
  expect(bomb).toMatchObject({ ok: false });
  expect((bomb as { error: string }).error).toMatch(/^(stopped: the tool used more than 16 MB of memory\.|stopped after 1 s: the tool did not finish\.)$/);

  // The prototypes of the host's objects are out of reach: the tool changed its own only.
  const tricked = await runInSandbox(page, 'function run() { Object.prototype.polluted = 1; Array.prototype.push = null; JSON.parse = null; return 1; }');
  expect(tricked).toMatchObject({ ok: true, outputJson: '1' });
  expect(await page.evaluate(() => ({} as { polluted?: number }).polluted)).toBeUndefined();

  // After all that, the sandbox still works.
  expect(await runInSandbox(page, 'function run(i) { return i.s.toUpperCase(); }', { s: 'ok' })).toMatchObject({ ok: true, outputJson: '"OK"' });

  // No request left the page: the browser's log, the scripted server and the privacy counter agree.
  expect(outside).toEqual([]);
  expect(scripted.requests.length).toBe(before);
  // The privacy counter saw the app's own files (the engine, the worker's modules) and nothing new to any other host.
  const counts = await hostCounts();
  expect(Object.keys(counts).filter((host) => host !== new URL(appOrigin).host && host !== providerHost)).toEqual([]);
  expect(counts[providerHost] ?? 0).toBe(providerBefore);
});

test('a tool that hangs the worker gets the watchdog: the worker is replaced and the next call runs', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  // A time limit far beyond the watchdog's grace: only the watchdog can end this call.
  const hung = await runInSandbox(page, 'function run() { for (;;) {} }', {}, { timeMs: 60_000 });
  expect(hung).toMatchObject({ ok: false, failure: 'timeout', error: expect.stringContaining('the sandbox was replaced') });
  expect(await page.evaluate(() => globalThis.knackUi!.sandbox.replaced())).toBe(1);
  expect(await runInSandbox(page, 'function run() { return [1, 2]; }')).toMatchObject({ ok: true, outputJson: '[1,2]' });
});

test('the sandbox worker is served with a content security policy that allows no requests', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  const policy = page.waitForResponse((response) => /forgedTool\.worker[-.]/.test(response.url()));
  await runInSandbox(page, 'function run() { return 1; }');
  const response = await policy;
  expect(response.headers()['content-security-policy']).toBe("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'");
});

test.describe('with the service worker', () => {
  test.use({ serviceWorkers: 'allow' });

  test('the service worker serves the sandbox worker with the same policy', async ({ page }) => {
    await page.goto('/');
    await page.waitForFunction(() => globalThis.knackUi !== undefined);
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => globalThis.knackUi !== undefined && navigator.serviceWorker.controller !== null);
    const served = page.waitForResponse((response) => /forgedTool\.worker-[^/]*\.js$/.test(new URL(response.url()).pathname));
    expect(await runInSandbox(page, 'function run() { return 2; }')).toMatchObject({ ok: true, outputJson: '2' });
    const response = await served;
    expect(response.fromServiceWorker()).toBe(true);
    expect(response.headers()['content-security-policy']).toBe("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'");
  });
});
