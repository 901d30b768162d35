import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleForPage } from '../fixtures/pageBundle.mjs';
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { HarnessResult, HarnessRun } from './providerHarness';
import type { StreamPart, ToolCall } from '../../src/providers/provider';

// The OpenAI-compatible provider running in Chromium, from the app's origin, against the
// scripted server: streamed text, tool calls, a real CORS refusal and Stop. The provider
// code is bundled from src/providers (tests/browser/providerHarness.ts) and evaluated in the
// page, as bench/run.mjs does for benches, so the app itself exposes nothing new.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let bundle: string;

test.beforeAll(async () => {
  bundle = await bundleForPage({ root, entry: path.join(root, 'tests/browser/providerHarness.ts'), name: 'knackProviderHarnessBundle' });
});

test.beforeEach(async ({ page }) => {
  await page.goto('/');
  // Evaluated through the DevTools protocol, so the app's CSP (script-src 'self') allows it.
  await page.evaluate(bundle);
});

function runInPage(page: Page, options: HarnessRun): Promise<HarnessResult> {
  return page.evaluate(
    (runOptions) => (globalThis as unknown as { knackProviderHarness: { run(o: HarnessRun): Promise<HarnessResult> } }).knackProviderHarness.run(runOptions),
    options,
  );
}

const textOf = (parts: StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
const callsOf = (parts: StreamPart[]): ToolCall[] => parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
const finishOf = (parts: StreamPart[]) => parts.flatMap((part) => (part.type === 'finish' ? [part.reason] : []));

test('streams text cross-origin with the API key, after a preflight', async ({ page, scripted }) => {
  scripted.script({ text: 'Grüße from the scripted model 👋', chunkDelayMs: 5, quirks: { writeSize: 3 } });
  const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'scripted-model', apiKey: 'sk-page' } });
  expect(result.error).toBeUndefined();
  expect(textOf(result.parts)).toBe('Grüße from the scripted model 👋');
  expect(finishOf(result.parts)).toEqual(['stop']);
  expect(result.parts.some((part) => part.type === 'usage')).toBe(true);
  const post = scripted.lastChat();
  expect(post.headers.origin).toBe(new URL(page.url()).origin);
  expect(post.headers.authorization).toBe('Bearer sk-page');
  expect(scripted.requests.some((request) => request.served === 'preflight')).toBe(true);
});

test('assembles streamed tool calls (fragments, and an Ollama parallel batch at index 0)', async ({ page, scripted }) => {
  const calls = [
    { name: 'skill_view', arguments: { name: 'git' } },
    { name: 'memory', arguments: { action: 'add', target: 'user', content: 'ünïcode' } },
  ];
  scripted.script(
    { text: 'Looking.', toolCalls: calls, quirks: { argumentsChunkSize: 2, interleaveToolCalls: true } },
    { toolCalls: calls, quirks: { parallelIndexZero: true, toolCallStyle: 'whole', comments: { between: true } } },
  );
  const expected = calls.map((call, i) => ({ id: `call_${i + 1}`, name: call.name, arguments: JSON.stringify(call.arguments) }));
  for (const label of ['fragments', 'parallel batch']) {
    const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'scripted-model' } });
    expect(result.error, label).toBeUndefined();
    expect(callsOf(result.parts), label).toEqual(expected);
    expect(finishOf(result.parts), label).toEqual(['tool-calls']);
  }
});

test('the text tool protocol parses blocks in the page', async ({ page, scripted }) => {
  scripted.script({ text: 'Sure.\n<tool_call>{"name": "skills_list", "arguments": {}}</tool_call>', chunkSize: 2 });
  const result = await runInPage(page, {
    provider: { baseUrl: scripted.baseUrl, model: 'scripted-model' },
    textTools: true,
    tools: [{ name: 'skills_list', description: 'List skills', parameters: { type: 'object', properties: {} } }],
  });
  expect(result.error).toBeUndefined();
  expect(textOf(result.parts)).toBe('Sure.\n');
  expect(callsOf(result.parts)).toEqual([{ id: 'call_1', name: 'skills_list', arguments: '{}' }]);
  expect(scripted.lastChat().body.tools).toBeUndefined();
});

test('Stop aborts the fetch: the stream ends with finish abort and the server sees it', async ({ page, scripted }) => {
  scripted.script({ text: 'start ', quirks: { endless: { text: 'more ', intervalMs: 10 } } });
  const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'scripted-model' }, abortAfterParts: 3 });
  expect(result.error).toBeUndefined();
  expect(result.parts.slice(0, 3).every((part) => part.type === 'text-delta')).toBe(true);
  expect(result.parts.at(-1)).toEqual({ type: 'finish', reason: 'abort' });
  const aborted = await scripted.waitForAbort();
  expect(aborted.path).toBe('/v1/chat/completions');
});

test.describe('with CORS refused (LM Studio with CORS off)', () => {
  test.use({ scriptedOptions: { cors: 'refuse' } });

  test('the error says the server answered but CORS blocked it, and how to enable CORS', async ({ page, scripted }) => {
    const origin = new URL(page.url()).origin;
    const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'scripted-model', presetId: 'lm-studio' } });
    expect(result.parts).toEqual([]);
    expect(result.error?.name).toBe('ProviderError');
    expect(result.error?.kind).toBe('cors');
    expect(result.error?.message).toContain(`does not allow requests from ${origin} (CORS)`);
    expect(result.error?.hint).toContain('lms server start --cors');
    // The refused request, then the no-cors probe that told "blocked" from "down".
    expect(scripted.requests.some((request) => request.path === '/v1/models' && request.headers['sec-fetch-mode'] === 'no-cors')).toBe(true);
  });

  test('a custom server gets the Access-Control-Allow-Origin advice for this origin', async ({ page, scripted }) => {
    const origin = new URL(page.url()).origin;
    const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'scripted-model' } });
    expect(result.error?.kind).toBe('cors');
    expect(result.error?.hint).toContain(`Access-Control-Allow-Origin: ${origin}`);
  });
});

test.describe('with only another origin allowed (Ollama without OLLAMA_ORIGINS)', () => {
  test.use({ scriptedOptions: { cors: 'https://somewhere-else.example' } });

  test('the error gives the exact OLLAMA_ORIGINS value for this page', async ({ page, scripted }) => {
    const origin = new URL(page.url()).origin;
    const result = await runInPage(page, { provider: { baseUrl: scripted.baseUrl, model: 'qwen3:8b', presetId: 'ollama' } });
    expect(result.error?.kind).toBe('cors');
    expect(result.error?.hint).toContain(`OLLAMA_ORIGINS=${origin}`);
  });
});

test('a server that is not running is told apart from CORS', async ({ page, scripted }) => {
  const baseUrl = scripted.baseUrl;
  await scripted.close();
  const result = await runInPage(page, { provider: { baseUrl, model: 'm', presetId: 'ollama' } });
  expect(result.error?.kind).toBe('network');
  expect(result.error?.message).toContain(`Could not reach ${baseUrl}`);
  expect(result.error?.hint).toMatch(/ollama serve/);
});
