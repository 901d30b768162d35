/**
 * Shared pieces of the learning-loop browser tests (learning*.spec.ts): the provider through
 * the Settings form, sending from the chat composer, and readers for the activity and
 * message stores.
 */
import { expect, type Page } from '@playwright/test';
import type { RecordedRequest, ScriptedServer, Turn } from '../fixtures/scriptedServer';
import type { ActivityRecord } from '../../src/review/activity';
import { openApp } from './storageHarness';

export const MODEL = 'scripted-model';

/** Settings → Provider OpenAI-compatible, Base URL = the scripted server (or `baseUrl`, a name that resolves to it), Save (SPEC §19); back to Chat. */
export async function useScriptedProvider(page: Page, server: ScriptedServer, baseUrl = server.baseUrl): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'OpenAI-compatible' });
  await page.getByLabel('Base URL').fill(baseUrl);
  await page.getByLabel('Model').fill(MODEL);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
}

/** Opens the app with its services, the provider pointed at the server, on the Chat view. */
export async function openLearningApp(page: Page, server: ScriptedServer): Promise<void> {
  await openApp(page);
  await page.waitForFunction(() => globalThis.knack?.skills !== undefined && globalThis.knack?.memory !== undefined && globalThis.knack?.sessions !== undefined);
  await useScriptedProvider(page, server);
}

/** Types into the composer and presses Enter; returns the epoch time just before the key press. */
export async function sendMessage(page: Page, text: string): Promise<number> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  const sentAt = Date.now();
  await box.press('Enter');
  return sentAt;
}

/** Waits until the chat's reply has ended; returns the session it belongs to. */
export async function waitForReply(page: Page): Promise<string> {
  await page.waitForFunction(() => globalThis.knackUi!.chat.isGenerating === false && globalThis.knackUi!.chat.sessionId !== null);
  return page.evaluate(() => globalThis.knackUi!.chat.sessionId!);
}

export function conversation(page: Page) {
  return page.getByRole('list', { name: 'Messages' });
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

/**
 * The stored activity records. The UI writes them without awaiting (a queued IndexedDB put), so
 * a run can have returned, or shown its result, before its record is stored: wait for the
 * queue (`learning.settled()`) first, or a loaded machine reads the store too early.
 */
export async function activity(page: Page): Promise<ActivityRecord[]> {
  return page.evaluate(async () => {
    await globalThis.knackUi!.learning.settled();
    return (await globalThis.knack!.db!.getAll('activity')) as never;
  });
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
