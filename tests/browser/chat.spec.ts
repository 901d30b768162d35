/**
 * The chat against the scripted OpenAI-compatible server, configured through Settings:
 * streaming, tool conversations that write skills, Stop, reload, session search, inert model
 * HTML, and what the system prompt carries.
 */
import { test, expect } from './fixtures';
import { MODEL, messageItems, openChatApp, sendMessage, useScriptedProvider, waitForReplyEnd } from './chatHarness';

const TEA_SKILL = `---
name: tea-brewing
description: Use when brewing loose-leaf tea.
---

# Tea brewing

Step 1: Boil water.
`;

test('a streamed reply renders progressively, then completes and is announced', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Alpha beta gamma **delta** done.', chunkDelayMs: 120 });
  // Record every text the reply showed on the way.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seenReplies: string[] }).seenReplies = seen;
    new MutationObserver(() => {
      const items = document.querySelectorAll('ol[aria-label="Messages"] > li.assistant');
      const last = items[items.length - 1];
      if (last) seen.push(last.textContent ?? '');
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await sendMessage(page, 'Say the Greek letters');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('Alpha beta gamma delta done.');
  await waitForReplyEnd(page);
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply finished.');
  // Markdown rendered: the bold word is a <strong>.
  await expect(reply.locator('strong')).toHaveText('delta');
  const seen = await page.evaluate(() => (window as unknown as { seenReplies: string[] }).seenReplies);
  expect(seen.some((text) => text.includes('Alpha') && !text.includes('gamma'))).toBe(true);
  // The request carried the model, streaming, and the tools natively.
  const request = scripted.lastChat();
  expect(request.body.model).toBe(MODEL);
  expect(request.body.stream).toBe(true);
  expect(request.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(
    expect.arrayContaining(['memory', 'skills_list', 'skill_view', 'skill_manage', 'session_search']),
  );
});

test('a multi-step tool conversation creates, views and patches a skill', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script(
    { text: 'I will save this.', toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name: 'tea-brewing', content: TEA_SKILL } }] },
    { toolCalls: [{ name: 'skill_view', arguments: { name: 'tea-brewing' } }] },
    { toolCalls: [{ name: 'skill_manage', arguments: { action: 'patch', name: 'tea-brewing', old_string: 'Step 1: Boil water.', new_string: 'Step 1: Heat water to 80 °C.' } }] },
    { text: 'Saved and corrected the **tea-brewing** skill.' },
  );
  await sendMessage(page, 'Remember how I brew tea: water at 80 °C.');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('Saved and corrected the tea-brewing skill.');
  await waitForReplyEnd(page);
  await expect(messageItems(page)).toHaveCount(2);

  const file = await page.evaluate(() => globalThis.knack!.files!.readText('skills/tea-brewing/SKILL.md'));
  expect(file).toContain('Step 1: Heat water to 80 °C.');
  expect(file).not.toContain('Boil water');

  // Three tool calls, shown collapsed, each with its result; the skill_view load as a chip.
  const details = reply.locator('details');
  await expect(details).toHaveCount(3);
  for (const open of await details.evaluateAll((nodes) => nodes.map((node) => (node as HTMLDetailsElement).open))) expect(open).toBe(false);
  await expect(details.nth(0).locator('summary')).toContainText('skill_manage');
  await expect(details.nth(1).locator('summary')).toContainText('skill_view');
  await expect(reply.locator('[data-skill="tea-brewing"]')).toContainText('tea-brewing');
  await details.nth(2).locator('summary').click();
  await expect(details.nth(2)).toContainText('"success": true');

  // Each later request carried the earlier calls and their results.
  const requests = scripted.chatRequests();
  expect(requests).toHaveLength(4);
  const last = requests[3]!.body.messages as { role: string; tool_call_id?: string; content: string }[];
  expect(last.filter((m) => m.role === 'tool')).toHaveLength(3);
  expect(last.filter((m) => m.role === 'tool').every((m) => JSON.parse(m.content).success === true)).toBe(true);
});

test('Stop mid-stream aborts the request, keeps the partial text, and the chat stays usable', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Once upon a time', quirks: { stall: true } });
  await sendMessage(page, 'Tell me a long story');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('Once upon a time');
  await page.getByRole('button', { name: 'Stop' }).click();
  expect((await scripted.waitForAbort()).aborted).toBe(true);
  await expect(reply).toContainText('Stopped');
  await waitForReplyEnd(page);
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply stopped.');

  scripted.script({ text: 'A shorter one, then.' });
  await sendMessage(page, 'Shorter please');
  await expect(messageItems(page).nth(3)).toContainText('A shorter one, then.');
  await waitForReplyEnd(page);
  // The partial reply is part of the history the model sees next.
  const history = scripted.lastChat().body.messages as { role: string; content: string }[];
  expect(history.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  expect(history[2]!.content).toBe('Once upon a time');
});

test('a provider error shows its hint in the conversation, and the next send works', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ error: { status: 401, message: 'Invalid API key' } });
  await sendMessage(page, 'hello');
  const alert = page.getByRole('alert');
  await expect(alert).toBeVisible();
  await expect(alert).toContainText(/API key/i);
  await waitForReplyEnd(page);
  await expect(page.locator('[aria-live="polite"]')).toHaveText('Reply failed.');
  scripted.script({ text: 'Working again.' });
  await sendMessage(page, 'hello again');
  await expect(messageItems(page).last()).toContainText('Working again.');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('the conversation survives a reload: listed, reopened, and it can go on', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Sourdough needs a lively starter.' });
  await sendMessage(page, 'How do I bake sourdough bread?');
  await expect(messageItems(page).nth(1)).toContainText('lively starter');
  await waitForReplyEnd(page);

  await page.reload();
  await openChatApp(page);
  const history = page.getByRole('complementary', { name: 'Chat history' });
  const entry = history.getByRole('button', { name: /^How do I bake sourdough bread\?/ });
  await expect(entry).toBeVisible();
  await entry.click();
  await expect(messageItems(page)).toHaveCount(2);
  await expect(messageItems(page).nth(0)).toContainText('How do I bake sourdough bread?');
  await expect(messageItems(page).nth(1)).toContainText('Sourdough needs a lively starter.');

  // Going on after the reload: the model sees the restored history.
  scripted.script({ text: 'Feed it twice a day.' });
  await sendMessage(page, 'And the starter?');
  await expect(messageItems(page).nth(3)).toContainText('Feed it twice a day.');
  const sent = scripted.lastChat().body.messages as { role: string; content: string }[];
  expect(sent.slice(1).map((m) => m.content)).toEqual(['How do I bake sourdough bread?', 'Sourdough needs a lively starter.', 'And the starter?']);

  // Ctrl+K focuses the search box.
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Control+k');
  await expect(page.getByRole('searchbox', { name: 'Search chats' })).toBeFocused();

  // Rename, then delete after confirming.
  await history.getByRole('button', { name: 'Rename How do I bake sourdough bread?' }).click();
  const title = history.getByRole('textbox', { name: 'Chat title' });
  await title.fill('Bread notes');
  await title.press('Enter');
  await expect(history.getByRole('button', { name: /^Bread notes/ })).toBeVisible();
  await page.reload();
  await openChatApp(page);
  await expect(history.getByRole('button', { name: /^Bread notes/ })).toBeVisible();
  await history.getByRole('button', { name: 'Delete Bread notes' }).click();
  const confirm = history.getByRole('group', { name: 'Delete Bread notes?' });
  await confirm.getByRole('button', { name: 'Keep' }).click();
  await expect(history.getByRole('button', { name: /^Bread notes/ })).toBeVisible();
  await history.getByRole('button', { name: 'Delete Bread notes' }).click();
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(history.getByRole('button', { name: /^Bread notes/ })).toHaveCount(0);
  expect(await page.evaluate(async () => (await globalThis.knack!.sessions!.store.list()).length)).toBe(0);
});

test('session_search in a second session finds the first, and the search box highlights matches', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Descale the kettle with citric acid, then rinse twice.' });
  await sendMessage(page, 'How do I descale my kettle?');
  await expect(messageItems(page).nth(1)).toContainText('citric acid');
  await waitForReplyEnd(page);
  const firstSession = await page.evaluate(() => globalThis.knackUi!.chat.sessionId);
  expect(firstSession).toBeTruthy();

  await page.getByRole('button', { name: 'New chat' }).click();
  // The tool call, the background model's summary of the first session (docs/chat.md, "Session search that answers"), the answer.
  scripted.script(
    { toolCalls: [{ name: 'session_search', arguments: { query: 'descale kettle citric' } }] },
    { text: '- Descale the kettle with citric acid, then rinse twice.' },
    { text: 'You asked about this before.' },
  );
  await sendMessage(page, 'What did we say about my kettle?');
  await expect(messageItems(page).nth(1)).toContainText('You asked about this before.');
  await waitForReplyEnd(page);
  const secondSession = await page.evaluate(() => globalThis.knackUi!.chat.sessionId);
  expect(secondSession).not.toBe(firstSession);

  // The tool result the model got in its next call names the first session.
  const requests = scripted.chatRequests();
  const toolMessage = (requests.at(-1)!.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool')!;
  const result = JSON.parse(toolMessage.content);
  expect(result.success).toBe(true);
  expect(JSON.stringify(result)).toContain(firstSession!);
  expect(result.results[0].summary).toBe('- Descale the kettle with citric acid, then rinse twice.');

  // The search box finds it too, with the matched word highlighted.
  const search = page.getByRole('searchbox', { name: 'Search chats' });
  await search.fill('citric');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results.getByRole('button', { name: /descale my kettle/ })).toBeVisible();
  await expect(results.locator('mark').first()).toHaveText(/citric/i);
});

test('HTML and script in model output stay inert', async ({ page, scripted }) => {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  const hostile = [
    'Here you go: <img src=x onerror="window.__pwned=1;alert(1)">',
    '<script>window.__pwned=2;alert(2)</script>',
    '<svg onload="window.__pwned=3"><circle r="1"/></svg>',
    '[click me](javascript:window.__pwned=4) <iframe src="javascript:alert(5)"></iframe>',
    '<a href="#" onclick="window.__pwned=6">x</a> <b>still bold</b>',
    '',
    '```html',
    '<script>alert("in code")</script>',
    '```',
  ].join('\n');
  scripted.script({ text: hostile });
  await sendMessage(page, 'Show me some HTML');
  const reply = messageItems(page).nth(1);
  await expect(reply).toContainText('still bold');
  await waitForReplyEnd(page);
  // The code block shows the script as text, with a Copy button.
  await expect(reply.locator('pre')).toContainText('<script>alert("in code")</script>');
  await expect(reply.getByRole('button', { name: 'Copy code' })).toBeVisible();
  await reply.locator('a', { hasText: 'click me' }).click().catch(() => undefined);
  await reply.locator('a', { hasText: 'x' }).first().click().catch(() => undefined);

  const state = await page.evaluate(() => {
    const list = document.querySelector('ol[aria-label="Messages"]')!;
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      scripts: list.querySelectorAll('script').length,
      images: list.querySelectorAll('img').length,
      iframes: list.querySelectorAll('iframe').length,
      handlers: [...list.querySelectorAll('*')].flatMap((el) => [...el.attributes].filter((a) => a.name.startsWith('on')).map((a) => a.name)),
      javascriptLinks: [...list.querySelectorAll('a')].filter((a) => (a.getAttribute('href') ?? '').toLowerCase().startsWith('javascript')).length,
    };
  });
  expect(state).toEqual({ pwned: null, scripts: 0, images: 0, iframes: 0, handlers: [], javascriptLinks: 0 });
  expect(dialogs).toEqual([]);
});

test('with a local provider the page contacts only the app and that provider, and Settings counts it', async ({ page, context, scripted }) => {
  const hosts = new Set<string>();
  context.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'http:' || url.protocol === 'https:') hosts.add(url.host);
  });
  await openChatApp(page);
  const appHost = new URL(page.url()).host;
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'Private and local.' });
  await sendMessage(page, 'Is this private?');
  await expect(messageItems(page).nth(1)).toContainText('Private and local.');
  await waitForReplyEnd(page);

  const providerHost = new URL(scripted.baseUrl).host;
  expect([...hosts].sort()).toEqual([appHost, providerHost].sort());

  await page.getByRole('button', { name: 'Settings' }).click();
  const table = page.getByRole('table', { name: 'Network requests this session by host' });
  await expect(table.locator(`tr[data-host="${providerHost}"] td`).nth(1)).toHaveText(/^[1-9]\d*$/);
  await expect(table.locator(`tr[data-host="${appHost}"]`)).toBeVisible();
  const listed = await table.locator('tbody tr[data-host]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-host')));
  expect(listed.sort()).toEqual([appHost, providerHost].sort());
  // Every chat request the server saw was counted.
  const counted = Number(await table.locator(`tr[data-host="${providerHost}"] td`).nth(1).textContent());
  expect(counted).toBeGreaterThanOrEqual(scripted.chatRequests().length);
});

test('the system prompt carries the skill index and memory, stays byte-identical in a session, and new skills wait for the next session', async ({ page, scripted }) => {
  await openChatApp(page);
  await page.evaluate(async (content) => {
    const knack = globalThis.knack!;
    const result = JSON.parse(await knack.skills!.registry.dispatch('skill_manage', { action: 'create', name: 'tea-brewing', content }, { origin: 'user', readPaths: new Set() }));
    if (!result.success) throw new Error(result.error);
    await knack.memory!.store.add('user', 'The user prefers metric units.');
  }, TEA_SKILL);
  await useScriptedProvider(page, scripted);

  const coffee = TEA_SKILL.replace(/tea-brewing/g, 'coffee-grinding').replace('loose-leaf tea', 'coffee beans');
  scripted.script(
    { toolCalls: [{ name: 'skill_manage', arguments: { action: 'create', name: 'coffee-grinding', content: coffee } }] },
    { text: 'Saved a coffee skill.' },
    { text: 'Second answer.' },
  );
  await sendMessage(page, 'Teach yourself coffee grinding');
  await expect(messageItems(page).nth(1)).toContainText('Saved a coffee skill.');
  await waitForReplyEnd(page);
  await sendMessage(page, 'And now?');
  await expect(messageItems(page).nth(3)).toContainText('Second answer.');
  await waitForReplyEnd(page);

  const prompts = scripted.chatRequests().map((request) => (request.body.messages as { role: string; content: string }[])[0]!);
  expect(prompts).toHaveLength(3);
  expect(prompts.every((message) => message.role === 'system')).toBe(true);
  const first = prompts[0]!.content;
  expect(first).toContain('tea-brewing: Use when brewing loose-leaf tea.');
  expect(first).toContain('The user prefers metric units.');
  expect(first).not.toContain('coffee-grinding');
  for (const prompt of prompts) expect(prompt.content).toBe(first);

  await page.getByRole('button', { name: 'New chat' }).click();
  scripted.script({ text: 'Fresh session.' });
  await sendMessage(page, 'Grind me some coffee');
  await expect(messageItems(page).nth(1)).toContainText('Fresh session.');
  const next = (scripted.lastChat().body.messages as { content: string }[])[0]!.content;
  expect(next).toContain('coffee-grinding: Use when brewing coffee beans.');
  expect(next).toContain('tea-brewing');
});

test('slash completion lists skills and commands; /<skill> loads the skill into the turn as a chip', async ({ page, scripted }) => {
  await openChatApp(page);
  await page.evaluate(async (content) => {
    const result = JSON.parse(await globalThis.knack!.skills!.registry.dispatch('skill_manage', { action: 'create', name: 'tea-brewing', content }, { origin: 'user', readPaths: new Set() }));
    if (!result.success) throw new Error(result.error);
  }, TEA_SKILL);
  await useScriptedProvider(page, scripted);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('/');
  const menu = page.getByRole('listbox', { name: 'Commands and skills' });
  await expect(menu.getByRole('option', { name: /\/skills/ })).toBeVisible();
  await box.pressSequentially('tea');
  await expect(menu.getByRole('option')).toHaveCount(1);
  await expect(menu.getByRole('option', { name: /\/tea-brewing/ })).toHaveAttribute('aria-selected', 'true');
  await box.press('Enter');
  await expect(box).toHaveValue('/tea-brewing ');
  await expect(menu).toHaveCount(0);
  scripted.script({ text: 'Following your tea skill.' });
  await box.pressSequentially('green tea for two');
  await box.press('Enter');
  const user = messageItems(page).nth(0);
  await expect(user.locator('[data-skill="tea-brewing"]')).toBeVisible();
  await expect(user).toContainText('green tea for two');
  await expect(messageItems(page).nth(1)).toContainText('Following your tea skill.');
  await waitForReplyEnd(page);
  const sent = (scripted.lastChat().body.messages as { role: string; content: string }[]).at(-1)!;
  expect(sent.role).toBe('user');
  expect(sent.content).toContain('Step 1: Boil water.');
  expect(sent.content).toContain('green tea for two');
  const usage = await page.evaluate(() => globalThis.knack!.skills!.engine.usage.get('tea-brewing'));
  expect(usage.use_count).toBeGreaterThanOrEqual(1);

  // /skills opens the library.
  await box.fill('/skills');
  await box.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Skills' })).toBeVisible();
});

test('regenerate replaces the last reply; edit-and-resend rewrites the question', async ({ page, scripted }) => {
  await openChatApp(page);
  await useScriptedProvider(page, scripted);
  scripted.script({ text: 'First try.' });
  await sendMessage(page, 'Name a colour');
  await expect(messageItems(page).nth(1)).toContainText('First try.');
  await waitForReplyEnd(page);

  scripted.script({ text: 'Second try.' });
  await page.getByRole('button', { name: 'Regenerate reply' }).click();
  await expect(messageItems(page).nth(1)).toContainText('Second try.');
  await expect(messageItems(page)).toHaveCount(2);
  await waitForReplyEnd(page);

  scripted.script({ text: 'Blue, as asked.' });
  await page.getByRole('button', { name: 'Edit message' }).click();
  const editor = page.getByRole('textbox', { name: 'Edited text' });
  await editor.fill('Name a cool colour');
  await editor.press('Enter');
  await expect(messageItems(page).nth(0)).toContainText('Name a cool colour');
  await expect(messageItems(page).nth(1)).toContainText('Blue, as asked.');
  await expect(messageItems(page)).toHaveCount(2);
  const sent = (scripted.lastChat().body.messages as { content: string }[]).slice(1).map((m) => m.content);
  expect(sent).toEqual(['Name a cool colour']);
});
