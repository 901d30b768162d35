/**
 * Model traffic the chat must survive (issue 10, item 8): a reply with no text and no tool
 * calls, a stream that ends without a finish reason or `[DONE]`, and replies with 200 tool
 * calls each, against the scripted OpenAI-compatible server configured through Settings.
 */
import { test, expect } from './fixtures';
import { messageItems, openChatApp, sendMessage, useScriptedProvider } from './chatHarness';
import type { Page } from '@playwright/test';

const announced = (page: Page) => page.locator('[aria-live="polite"]');

async function waitForEnd(page: Page, announcement: string): Promise<void> {
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await expect(announced(page)).toHaveText(announcement);
}

test('an empty reply says so, keeps the reasoning viewable, and shows the same after a reload', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ reasoning: 'The user may want a haiku. Or not.' });
  await sendMessage(page, 'Write something about autumn');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('The model returned an empty reply.');
  await waitForEnd(page, 'The model returned an empty reply.');
  const reasoning = reply.locator('details', { hasText: 'Reasoning' });
  await reasoning.locator('summary').click();
  await expect(reasoning).toContainText('The user may want a haiku. Or not.');

  await page.reload();
  await openChatApp(page);
  await page.getByRole('complementary', { name: 'Chat history' }).getByRole('button', { name: /^Write something about autumn/ }).click();
  await expect(messageItems(page).nth(1)).toContainText('The model returned an empty reply.');
  await expect(messageItems(page).nth(1).locator('details', { hasText: 'Reasoning' })).toHaveCount(1);

  // The chat goes on, and the model is never sent an empty assistant message.
  scripted.script({ text: 'Leaves fall, slowly.' });
  await sendMessage(page, 'Anything at all?');
  await expect(messageItems(page).nth(3)).toContainText('Leaves fall, slowly.');
  const roles = (scripted.lastChat().body.messages as { role: string }[]).map((m) => m.role);
  expect(roles).toEqual(['system', 'user', 'user']);
});

test('a stream that ends without a finish reason or [DONE] is marked cut off, and Retry gets the whole reply', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'The first half of the', quirks: { omitFinishReason: true, omitDone: true } }, { text: 'The whole answer, complete.' });
  await sendMessage(page, 'Explain tides');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('The first half of the');
  await expect(reply).toContainText('This reply was cut off');
  await waitForEnd(page, 'Reply cut off.');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(reply.getByRole('button', { name: 'Regenerate reply' })).toHaveCount(0);

  await reply.getByRole('button', { name: 'Retry' }).click();
  await expect(messageItems(page).nth(1)).toContainText('The whole answer, complete.');
  await waitForEnd(page, 'Reply finished.');
  await expect(messageItems(page)).toHaveCount(2);
  await expect(messageItems(page).nth(1)).not.toContainText('cut off');
  // The retry asked again from the user's message, without the cut-off text.
  const sent = (scripted.lastChat().body.messages as { role: string; content: string }[]).slice(1);
  expect(sent).toEqual([{ role: 'user', content: 'Explain tides' }]);
});

test('replies with 200 tool calls each run 16 per reply, and Stop ends the turn with no request after it', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  const manyCalls = {
    text: 'Listing.',
    toolCalls: Array.from({ length: 200 }, () => ({ name: 'skills_list', arguments: {} })),
    quirks: { toolCallStyle: 'whole-batch' as const },
  };
  scripted.setFallback(manyCalls);
  await sendMessage(page, 'List everything, many times');

  // 16 calls ran and the rest were refused. The 200 results do not fit a 4,096-token window, so
  // the second request leaves out the reply's last calls with their results and says so: every
  // call it sends has its result, and the results of the calls that ran come first.
  const [, second] = await scripted.waitForChatRequests(2);
  const sent = second!.body.messages as { role: string; content: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  const reply = sent.find((m) => m.tool_calls?.length)!;
  const results = sent.filter((m) => m.role === 'tool');
  expect(results.map((m) => m.tool_call_id)).toEqual(reply.tool_calls!.map((call) => call.id));
  expect(reply.tool_calls!.length).toBeLessThan(200);
  expect(reply.content).toContain(`The last ${200 - reply.tool_calls!.length} of the 200 tool calls in this reply`);
  const parsed = results.map((m) => JSON.parse(m.content) as { success: boolean; error?: string });
  expect(parsed.every((r, i) => (i < 16 ? r.success === true : r.success === false && /Too many tool calls in one reply: only the first 16 ran/.test(r.error ?? '')))).toBe(true);

  await page.getByRole('button', { name: 'Stop' }).click();
  await waitForEnd(page, 'Reply stopped.');
  const afterStop = scripted.chatRequests().length;

  // Nothing was sent after the turn ended: the next request is the next message's. (The 400 results
  // fill a 4,096-token window many times over, so that turn may first summarise them: docs/context-window.md.)
  const isSummary = (request: { body?: { messages?: { content?: unknown }[] } }) => String(request.body?.messages?.[0]?.content ?? '').startsWith('You keep the memory of a long conversation');
  scripted.setFallback((request) => (isSummary(request) ? { text: 'Goal: list the skills.' } : { text: 'Back to normal.' }));
  await sendMessage(page, 'Just say hi');
  await expect(messageItems(page).last()).toContainText('Back to normal.');
  await waitForEnd(page, 'Reply finished.');
  const sinceStop = scripted.chatRequests().slice(afterStop).filter((request) => !isSummary(request));
  expect(sinceStop).toHaveLength(1);
  const last = sinceStop[0]!.body.messages as { role: string; content: string }[];
  expect(last.at(-1)).toEqual({ role: 'user', content: 'Just say hi' });
});
