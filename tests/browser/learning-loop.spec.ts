/**
 * The learning loop closes end to end (docs/gate.md, "Triggers"): a user corrects the agent in
 * chat; the background review creates a skill with cases drawn from that conversation; the
 * gate runs on its own once the skill has settled and the user has been idle; the next chat's
 * skill index lists the skill `[verified]` and the model loads it with skill_view.
 *
 * Everything is real (the production build, the review worker, OPFS and IndexedDB) except the
 * model, which is the scripted server. The tab's clock is Playwright's: it runs at real speed
 * and the test jumps it past the gate's debounce and idle wait, so nothing waits in real time.
 * The review worker keeps its own real clock; nothing in it waits on time here.
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { RecordedRequest, ScriptedServer, Turn } from '../fixtures/scriptedServer';
import type { GateActivity, ReviewActivity } from '../../src/review/activity';
import { AUTO_RUN_DEBOUNCE_MS, AUTO_RUN_IDLE_MS } from '../../src/gate/gateSettings';
import { busyTurn, chatMessagesOf, conversation, finishedActivity, isReviewRequest, openLearningApp, waitForReply } from './learningSupport';
import { invokedSkill, isFirstChatShaped, isGateReplay, verdictWord, openSkillDetail } from './gateHarness';
import { isWindowDiscoveryRequest } from '../fixtures/scriptedContext';

const SKILL = 'house-font-captions';
const DESCRIPTION = 'Use when writing image captions that name the house font.';
const SKILL_TEXT = `---\nname: ${SKILL}\ndescription: ${DESCRIPTION}\n---\n\n# House font in captions\n\nEvery caption names the house font, Pretendard.\n\n1. Write the caption.\n2. End it with "Set in Pretendard."\n`;

/** The request that taught the skill, then the correction. */
const TEACHING_PROMPT = 'Write a caption for the spring lookbook cover photo.';
const CORRECTION = 'No — always name the house font Pretendard in captions.';

/** Sibling requests of the teaching one, as the review draws them from the conversation. */
const SIBLING_PROMPTS = [
  'Write a caption for the summer sale banner image.',
  'Caption the team photo from the offsite for the newsletter.',
  'Write a one-line caption for the product shot of the linen shirt.',
  'Caption the behind-the-scenes photo from the studio shoot.',
  'Write a caption for the autumn collection hero image.',
  'Give me a caption for the store opening photo in Busan.',
  'Write an Instagram caption for the holiday gift guide cover.',
  'Caption the chart of quarterly sales for the annual report.',
  'Write a caption for the portrait of our new head designer.',
];

/** The cases the review writes: positive checks only, the teaching request marked as the source. */
function reviewCases(): string {
  const evals = [TEACHING_PROMPT, ...SIBLING_PROMPTS].map((prompt, i) => ({
    id: i + 1,
    prompt,
    expected_output: 'A short caption that names the house font.',
    checks: [
      { type: 'icontains', value: 'Pretendard' },
      { type: 'length', value: { max: 400 } },
    ],
    knack: i === 0 ? { origin: 'review', source: true } : { origin: 'review' },
  }));
  return JSON.stringify({ skill_name: SKILL, evals }, null, 2);
}

const lastUserText = (request: RecordedRequest): string => {
  const user = [...chatMessagesOf(request)].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
};

/**
 * Gate replays are answered from what they carry: with the skill loaded the caption names the
 * font, without it it does not (so the with-skill arm passes one check more). Any other request
 * that reaches the fallback was not scripted: it is remembered and refused loudly.
 */
function answerReplays(server: ScriptedServer, unexpected: RecordedRequest[], reach: RecordedRequest[] = []): void {
  server.setFallback((request): Turn => {
    // The gate's reach requests (docs/gate.md, "Reach") are shaped like a chat's first request:
    // this model chooses the skill from its index line.
    if (isFirstChatShaped(request) && !request.body.messages.some((m: { role: string }) => m.role === 'tool')) {
      reach.push(request);
      return { toolCalls: [{ name: 'skill_view', arguments: { name: SKILL } }] };
    }
    if (!isGateReplay(request)) {
      unexpected.push(request);
      return { error: { status: 500, message: `No turn was scripted for request ${request.seq}.` } };
    }
    const subject = lastUserText(request).split('\n').at(-1)!.replace(/^.*caption (for|the) /i, '').replace(/\.$/, '');
    return { text: invokedSkill(request) === SKILL ? `${subject}: in soft daylight. Set in Pretendard.` : `${subject}: in soft daylight.` };
  });
}

/** Types into the composer and presses Enter; returns the tab's (faked) clock just before. */
async function send(page: Page, text: string): Promise<number> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  const at = await page.evaluate(() => Date.now());
  await box.press('Enter');
  return at;
}

test('a correction in chat becomes a skill with cases, the gate verifies it on its own when idle, and the next chat loads it [verified]', async ({ page, scripted }) => {
  test.setTimeout(240_000);
  // The tab's timers and Date run on Playwright's clock (at real speed until the test jumps it).
  await page.clock.install();
  const origins = new Set<string>();
  page.context().on('request', (request) => origins.add(new URL(request.url()).origin));
  const unexpected: RecordedRequest[] = [];
  const reach: RecordedRequest[] = [];
  answerReplays(scripted, unexpected, reach);

  await openLearningApp(page, scripted);
  // Skill writes as the tab's change feed announces them (the gate's trigger listens to the same feed).
  await page.evaluate(() => {
    const seen: { name: string; action?: string }[] = [];
    (globalThis as unknown as { skillChanges: typeof seen }).skillChanges = seen;
    globalThis.knack!.changes!.subscribe((change) => {
      if (change.type === 'skill-changed') seen.push({ name: change.name, action: change.action });
    });
  });

  // 1. The request, an answer that misses the house convention, and the user's correction. The
  // second turn's nine model calls make ten in the session: a skills review is due.
  scripted.script({ text: 'Spring lookbook: fresh linen in soft morning light. Set in Arial.' });
  await send(page, TEACHING_PROMPT);
  await expect(conversation(page)).toContainText('Set in Arial.');
  const sessionId = await waitForReply(page);

  scripted.script(
    ...busyTurn(9, 'Understood. Spring lookbook: fresh linen in soft morning light. Set in Pretendard.'),
    // 2. The review: the skill, its cases, and what it did.
    { toolCalls: [{ id: 'rev_create', name: 'skill_manage', arguments: { action: 'create', name: SKILL, content: SKILL_TEXT } }] },
    { toolCalls: [{ id: 'rev_cases', name: 'skill_manage', arguments: { action: 'write_file', name: SKILL, file_path: 'evals/evals.json', file_content: reviewCases() } }] },
    { text: 'Saved.' },
  );
  const lastInputAt = await send(page, CORRECTION);
  await expect(conversation(page)).toContainText('Set in Pretendard.');
  expect(await waitForReply(page)).toBe(sessionId);

  const review = (await finishedActivity(page, (r) => r.kind === 'review', 60_000)) as ReviewActivity;
  expect(review).toMatchObject({ sessionId, review: 'skills', status: 'done', outcome: 'Saved.' });
  expect(review.toolCalls.map((c) => [c.name, c.success]), JSON.stringify(review.toolCalls)).toEqual([
    ['skill_manage', true],
    ['skill_manage', true],
  ]);
  // The cases were accepted without lint warnings (positive checks, no value copied from a prompt).
  expect(JSON.parse(review.toolCalls[1]!.result)).not.toHaveProperty('warnings');
  expect(DESCRIPTION.length).toBeLessThanOrEqual(60);
  const usage = await page.evaluate((name) => globalThis.knack!.skills!.engine.usage.find(name), SKILL);
  expect(usage?.created_by).toBe('agent');
  // The review's review requests carried the conversation, correction included.
  const reviewRequests = scripted.chatRequests().filter(isReviewRequest);
  expect(reviewRequests).toHaveLength(3);
  expect(JSON.stringify(chatMessagesOf(reviewRequests[0]!))).toContain('Pretendard in captions');

  // 3. The gate, on its own. Once the tab has heard of both writes the automatic run is queued;
  // the test starts none: no Verify, and no input from here on (the idle rule counts from the
  // correction's Enter). Without the two jumps below the run does not start.
  await expect
    .poll(() => page.evaluate(() => (globalThis as unknown as { skillChanges: { name: string; action?: string }[] }).skillChanges))
    .toEqual(expect.arrayContaining([{ name: SKILL, action: 'create' }, { name: SKILL, action: 'write_file' }]));
  // Past the debounce after the last write, then past the idle minute since the last input.
  await page.clock.fastForward(AUTO_RUN_DEBOUNCE_MS);
  await page.clock.fastForward(AUTO_RUN_IDLE_MS);
  const gate = (await finishedActivity(page, (r) => r.kind === 'gate' && (r as GateActivity).skill === SKILL, 120_000)) as GateActivity;
  expect(gate).toMatchObject({ status: 'done', trigger: 'changed', verdict: { verdict: 'promoted', code: 'promoted' } });
  // The idle rule held: the run started a full idle minute after the user's last input.
  expect(gate.startedAt - lastInputAt).toBeGreaterThanOrEqual(AUTO_RUN_IDLE_MS);
  const replays = scripted.chatRequests().filter(isGateReplay);
  expect(replays.some((r) => invokedSkill(r) === SKILL)).toBe(true);
  expect(replays.some((r) => invokedSkill(r) === null)).toBe(true);

  // 4. The next chat: its index lists the skill [verified]; the model loads it and answers.
  scripted.script(
    { toolCalls: [{ id: 'chat_view', name: 'skill_view', arguments: { name: SKILL } }] },
    { text: 'Summer sale banner: bright linen on the boardwalk. Set in Pretendard.' },
  );
  const before = scripted.requests.length;
  await page.getByRole('button', { name: 'New chat' }).click();
  await send(page, 'Write a caption for the beach campaign photo.');
  await expect(conversation(page)).toContainText('Summer sale banner: bright linen on the boardwalk. Set in Pretendard.');
  expect(await waitForReply(page)).not.toBe(sessionId);
  const nextChat = scripted.requests.slice(before).filter((r) => r.method === 'POST' && !isGateReplay(r) && !isReviewRequest(r));
  expect(nextChat).toHaveLength(2);
  expect(invokedSkill(nextChat[0]!)).toBe(SKILL);
  const system = chatMessagesOf(nextChat[0]!)[0]!;
  expect(system.role).toBe('system');
  expect(String(system.content)).toMatch(new RegExp(`${SKILL}[^\\n]*\\[verified\\]`));
  const viewed = chatMessagesOf(nextChat[1]!).find((m) => m.role === 'tool' && m.tool_call_id === 'chat_view');
  const viewResult = JSON.parse(String(viewed?.content)) as { success: boolean; verification?: { verdict: string } };
  expect(viewResult.success).toBe(true);
  expect(JSON.stringify(viewResult)).toContain('Every caption names the house font, Pretendard.');
  expect(viewResult.verification?.verdict).toBe('promoted');
  // The chat shows each load as the skill's chip: the router's at Send (small windows route by
  // default, and Send computes the pick for the text sent) and the model's own skill_view.
  await expect(conversation(page).locator(`[data-skill="${SKILL}"]`)).toHaveCount(2);
  await expect(conversation(page).locator(`[data-skill="${SKILL}"]`).first()).toContainText(SKILL);

  // The skill view agrees: promoted.
  await openSkillDetail(page, SKILL);
  await expect(verdictWord(page)).toHaveText('promoted');

  // 5. Nothing else was contacted: the server saw only the chat, the review and the gate (and
  // the browser's CORS preflights for them); the browser talked only to the app and the server.
  expect(unexpected.map((r) => r.seq)).toEqual([]);
  expect(scripted.pending()).toBe(0);
  for (const request of scripted.requests) {
    // Preflights, and Knack asking the provider for its model's window when it was set up.
    if (request.method === 'OPTIONS' || isWindowDiscoveryRequest(request)) continue;
    expect(`${request.method} ${request.path}`).toBe('POST /v1/chat/completions');
  }
  // Chat: 1 call for the request, 9 for the correction, 2 in the next chat; the review's 3; and
  // exactly the replays and reach requests (one per case) the gate's run counted.
  const posts = scripted.requests.filter((r) => r.method === 'POST');
  const reachSeqs = new Set(reach.map((r) => r.seq));
  expect(posts.filter((r) => !isGateReplay(r) && !isReviewRequest(r) && !reachSeqs.has(r.seq))).toHaveLength(12);
  expect(posts.filter(isReviewRequest)).toHaveLength(3);
  expect(reach.length).toBeGreaterThan(0);
  expect(posts.filter(isGateReplay).length + reach.length).toBe(gate.requests);
  const appOrigin = new URL(page.url()).origin;
  expect([...origins].filter((origin) => origin !== appOrigin && origin !== scripted.origin)).toEqual([]);
  const appHost = new URL(page.url()).host;
  const serverHost = new URL(scripted.origin).host;
  const counted = await page.evaluate(() => globalThis.knackUi!.network.byHost.map((h) => h.host));
  expect(counted.filter((host) => host !== appHost && host !== serverHost)).toEqual([]);
});
