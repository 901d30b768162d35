/**
 * Shared pieces of the learning-loop browser tests (learning*.spec.ts): the in-page chat
 * driver (learningHarness.ts, bundled with Vite and evaluated in the page), the provider
 * settings through the Settings form, and readers for the activity and message stores.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { expect, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedServer, Turn } from '../fixtures/scriptedServer';
import type { ActivityRecord } from '../../src/review/activity';
import { openApp } from './storageHarness';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function buildLearningHarness(): Promise<string> {
  const output = await build({
    root,
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    build: {
      write: false,
      minify: false,
      target: 'es2022',
      lib: {
        entry: path.join(root, 'tests/browser/learningHarness.ts'),
        formats: ['iife'],
        name: 'knackLearningHarnessBundle',
        fileName: () => 'learning-harness.js',
      },
    },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []));
  const entry = chunks.find((chunk) => chunk.type === 'chunk' && chunk.isEntry);
  if (!entry || entry.type !== 'chunk') throw new Error('Vite produced no learning harness bundle');
  return entry.code;
}

export const MODEL = 'scripted-model';

/** Settings → Provider OpenAI-compatible, Base URL = the scripted server, Save (SPEC §19). */
export async function useScriptedProvider(page: Page, server: ScriptedServer): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Provider').selectOption({ label: 'OpenAI-compatible' });
  await page.getByLabel('Base URL').fill(server.baseUrl);
  await page.getByLabel('Model').fill(MODEL);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
}

/** Opens the app with its services and the harness, the provider pointed at the server. */
export async function openLearningApp(page: Page, server: ScriptedServer, harness: string): Promise<void> {
  await openApp(page);
  await page.waitForFunction(() => globalThis.knack?.skills !== undefined && globalThis.knack?.memory !== undefined && globalThis.knack?.sessions !== undefined);
  await useScriptedProvider(page, server);
  // Evaluated through the DevTools protocol, so the app's CSP (script-src 'self') allows it.
  await page.evaluate(harness);
}

interface HarnessApi {
  newChat(options: { baseUrl: string; model: string }): string;
  send(id: string, text: string): Promise<{ sentAt: number; sessionId: string | null; doneAt: number }>;
  startSend(id: string, text: string): { sentAt: number };
  settle(id: string): Promise<{ sessionId: string | null }>;
}

type HarnessMethod = keyof HarnessApi;

export function harnessCall<M extends HarnessMethod>(page: Page, method: M, ...args: Parameters<HarnessApi[M]>): Promise<Awaited<ReturnType<HarnessApi[M]>>> {
  return page.evaluate(
    ({ method, args }) => {
      const api = (globalThis as unknown as { knackLearningHarness: Record<string, (...a: unknown[]) => unknown> }).knackLearningHarness;
      return api[method]!(...args);
    },
    { method, args: args as unknown[] },
  ) as Promise<Awaited<ReturnType<HarnessApi[M]>>>;
}

export async function newChat(page: Page, server: ScriptedServer): Promise<string> {
  return harnessCall(page, 'newChat', { baseUrl: server.baseUrl, model: MODEL });
}

/** The review prompt's tell-tale sentence (src/review/reviewPrompts.ts). */
export const REVIEW_MARK = 'You are running in the background after the conversation';

type ChatBody = { messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: unknown[] }[] };

export function isReviewRequest(request: RecordedRequest): boolean {
  const messages = (request.body as ChatBody | undefined)?.messages ?? [];
  return messages.some((m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(REVIEW_MARK));
}

export function chatMessagesOf(request: RecordedRequest): ChatBody['messages'] {
  return (request.body as ChatBody).messages;
}

/**
 * A user turn of `calls` model calls: `calls - 1` calls of a read-only tool (skills_list, which
 * does not reset the skill counter), then a text answer. Ten calls make the skill counter due.
 */
export function busyTurn(calls: number, answer = 'Here is the cleaned CSV, with the header fixed.'): Turn[] {
  const turns: Turn[] = [];
  for (let i = 1; i < calls; i++) turns.push({ toolCalls: [{ id: `chat_call_${i}`, name: 'skills_list', arguments: {} }] });
  turns.push({ text: answer });
  return turns;
}

export async function activity(page: Page): Promise<ActivityRecord[]> {
  return page.evaluate(async () => (await globalThis.knack!.db!.getAll('activity')) as never);
}

/** Waits for a finished run (status other than running) matching `predicate`. */
export async function finishedActivity(page: Page, predicate: (record: ActivityRecord) => boolean = () => true, timeout = 20_000): Promise<ActivityRecord> {
  let found: ActivityRecord | undefined;
  await expect
    .poll(
      async () => {
        found = (await activity(page)).find((record) => record.status !== 'running' && predicate(record));
        return found !== undefined;
      },
      { timeout },
    )
    .toBe(true);
  return found!;
}

export async function storedMessages(page: Page, sessionId: string): Promise<{ role: string; content: string; toolCalls?: { name: string; arguments: string }[] }[]> {
  return page.evaluate(async (id) => {
    const all = (await globalThis.knack!.db!.getAll('messages')) as unknown as { sessionId: string; seq: number; role: string; content: string; toolCalls?: { name: string; arguments: string }[] }[];
    return all
      .filter((m) => m.sessionId === id)
      .sort((a, b) => a.seq - b.seq)
      .map(({ role, content, toolCalls }) => ({ role, content, ...(toolCalls ? { toolCalls } : {}) }));
  }, sessionId);
}

export const skillMd = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n\n${body}\n`;
