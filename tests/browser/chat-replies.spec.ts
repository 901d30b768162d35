/**
 * Readable replies (issue 11, item 5) and long replies (issue 10, item 8), against the scripted
 * OpenAI-compatible server: code blocks highlighted by a lazily loaded highlighter, math left as
 * written, tool calls labelled in words with the raw call one click away, a skill chip that
 * opens the skill, and model replies of 200 tool calls that render whole and stop on Stop.
 */
import { test, expect } from './fixtures';
import { messageItems, openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';

const TEA_SKILL = `---
name: tea-brewing
description: Use when brewing loose-leaf tea.
---

# Tea brewing

Step 1: Boil water.
`;

test('a fenced code block is highlighted once the highlighter has loaded, and only then is it fetched', async ({ page, scripted }) => {
  const highlighterRequests: string[] = [];
  page.on('request', (request) => {
    if (/\/assets\/codeHighlight-[\w-]+\.js$/.test(request.url())) highlighterRequests.push(request.url());
  });
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'No code here, just **words**.' });
  await sendMessage(page, 'Say something plain');
  await expect(messageItems(page).nth(1)).toContainText('No code here, just words.');
  await waitForReplyEnd(page);
  expect(highlighterRequests).toEqual([]);

  scripted.script({ text: 'Here:\n\n```ts\nconst answer: number = 42; // "</code><img src=x onerror=window.__xss=1>"\n```\n\nDone.' });
  await sendMessage(page, 'Show me some TypeScript');
  const reply = messageItems(page).nth(3);
  await expect(reply).toContainText('Done.');
  await waitForReplyEnd(page);
  const code = reply.locator('pre code');
  await expect(code.locator('span.hljs-keyword').first()).toHaveText('const');
  await expect(code.locator('span.hljs-number')).toHaveText('42');
  // The hostile text in the code stays text, inside the one code block.
  await expect(code).toContainText('<img src=x onerror=window.__xss=1>');
  await expect(reply.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss ?? null)).toBeNull();
  expect(highlighterRequests).toHaveLength(1);
  // Copy still copies the code as text.
  await expect(reply.getByRole('button', { name: 'Copy code' })).toBeVisible();
});

test('math stays as the model wrote it, as code (no math renderer: see docs/chat.md)', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'The area is $\\pi r_1^2$, for $5 and $10 alike.\n\n$$\n\\int_0^1 x\\,dx = \\tfrac12\n$$\n\nThat is all.' });
  await sendMessage(page, 'Some maths');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('That is all.');
  await waitForReplyEnd(page);
  // TeX kept character for character (Markdown would have eaten the backslashes and underscores).
  await expect(reply.locator('p code')).toHaveText(['\\pi r_1^2']);
  await expect(reply.locator('pre code.language-math')).toHaveText('\\int_0^1 x\\,dx = \\tfrac12');
  // Prices are not math.
  await expect(reply).toContainText('for $5 and $10 alike.');
  await expect(reply.locator('math, svg, [style]')).toHaveCount(0);
});

test('tool calls read as sentences, the raw call is one click away, and a skill chip opens the skill', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script(
    { toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name: 'tea-brewing', content: TEA_SKILL } }] },
    { toolCalls: [{ name: 'skill_view', arguments: { name: 'tea-brewing' } }, { name: 'session_search', arguments: { query: 'kettle' } }] },
    { toolCalls: [{ name: 'skill_view', arguments: { name: 'no-such-skill' } }] },
    { text: 'All done.' },
  );
  await sendMessage(page, 'Save and look things up');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('All done.');
  await waitForReplyEnd(page);
  const summaries = reply.locator('details.tool > summary');
  await expect(summaries).toHaveCount(4);
  await expect(summaries.nth(0)).toContainText('Saved skill tea-brewing');
  await expect(summaries.nth(1)).toContainText('Read skill tea-brewing');
  await expect(summaries.nth(2)).toContainText('Searched past chats for “kettle”');
  await expect(summaries.nth(3)).toContainText('Could not read skill no-such-skill');
  await expect(summaries.nth(3)).toContainText('failed');
  // The raw call: the tool's name in the line, its arguments and result when opened.
  await expect(summaries.nth(0)).toContainText('skill_manage');
  const first = reply.locator('details.tool').nth(0);
  await expect(first).not.toContainText('Arguments');
  await summaries.nth(0).click();
  await expect(first).toContainText('Arguments');
  await expect(first).toContainText('"action": "create"');
  await expect(first).toContainText('"success": true');

  await reply.locator('[data-skill="tea-brewing"]').click();
  await expect(page).toHaveURL(/#\/skills$/);
  await expect(page.getByRole('heading', { level: 2, name: 'tea-brewing' })).toBeVisible();
});

test('model replies of 200 tool calls each render whole, folded per reply, and Stop ends dispatch', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  // A model with a window large enough for every result, so each request can carry them all (the
  // budget for small windows is context-budget.spec.ts).
  await page.evaluate(async () => {
    const app = globalThis.knack!.app!;
    await (await app.modelWindows()).set({ providerId: app.settings.get('app').defaultProviderId, model: 'scripted-model' }, 4_000_000);
  });
  scripted.setFallback({
    text: 'Listing.',
    toolCalls: Array.from({ length: 200 }, () => ({ name: 'skills_list', arguments: {} })),
    quirks: { toolCallStyle: 'whole-batch' as const },
  });
  await sendMessage(page, 'List everything, many times');
  await scripted.waitForChatRequests(4);
  const reply = messageItems(page).nth(1);
  const groups = reply.locator('[data-tool-group]');
  // Three model replies answered in full by the fourth request: each is one group of 200.
  await expect.poll(() => groups.count()).toBeGreaterThanOrEqual(3);
  for (const at of [0, 1, 2]) await expect(groups.nth(at)).toHaveAttribute('data-calls', '200');
  await expect(groups.nth(0).locator('summary')).toHaveText('200 tool calls — 16 done, 184 failed');
  await groups.nth(0).locator('summary').click();
  await expect(groups.nth(0).locator('details.tool')).toHaveCount(200);
  await expect(groups.nth(0).locator('details.tool[data-status="done"]')).toHaveCount(16);

  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled();
  await expect(reply).toContainText('Stopped');
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply stopped.');
  const atEnd = scripted.chatRequests().length;
  const shown = await page.evaluate(() => {
    const lines = globalThis.knackUi!.chat.lines;
    return { calls: lines.reduce((sum, line) => sum + (line.toolCalls?.length ?? 0), 0), results: lines.filter((line) => line.role === 'tool').length };
  });
  // Every call the model's replies asked for is shown (a reply cut short by Stop mid-stream shows
  // none), and no call was answered twice.
  await expect.poll(async () => {
    const counts = await groups.evaluateAll((nodes) => nodes.map((node) => Number((node as HTMLElement).dataset.calls)));
    return counts.reduce((sum, count) => sum + count, 0);
  }).toBe(shown.calls);
  expect(shown.calls % 200).toBe(0);
  expect(shown.calls).toBeGreaterThanOrEqual(600);
  expect(shown.calls).toBeLessThanOrEqual(atEnd * 200);
  expect(shown.results).toBeLessThanOrEqual(shown.calls);
  // Each request after the first answered every call of the replies before it.
  const lastRequest = scripted.chatRequests().at(-1)!.body.messages as { role: string }[];
  expect(lastRequest.filter((m) => m.role === 'tool')).toHaveLength((atEnd - 1) * 200);

  // Nothing more was asked after Stop: the next request is the next message's.
  scripted.setFallback(undefined);
  scripted.script({ text: 'Back to normal.' });
  await sendMessage(page, 'Just say hi');
  await expect(messageItems(page).last()).toContainText('Back to normal.');
  await waitForReplyEnd(page);
  expect(scripted.chatRequests()).toHaveLength(atEnd + 1);
});
