/**
 * The background review end to end (SPEC §8): a real chat turn on the scripted server, the
 * finalizer in the app's learning seam, the review in workers/review.worker.ts against the
 * same server, the activity store and the Activity view. Turns go through the chat UI, set up
 * the way a user does it (Settings → Provider, Base URL, Model, Save).
 */
import { test, expect } from './fixtures';
import type { ReviewActivity } from '../../src/review/activity';
import {
  REVIEW_MARK,
  activity,
  busyTurn,
  chatMessagesOf,
  conversation,
  finishedActivity,
  isReviewRequest,
  openLearningApp,
  sendMessage,
  skillMd,
  storedMessages,
  waitForReply,
} from './learningSupport';

const NEW_SKILL = skillMd('csv-header-cleanup', 'Use when a CSV export has broken headers.', '1. Read the first line.\n2. Trim and de-duplicate the column names.');

test('ten model calls trigger exactly one review; its skill is agent-owned and in the next session’s index; nothing of it enters the conversation', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);

  scripted.script(
    ...busyTurn(10),
    // The review: look around, create a skill, say what it did.
    { toolCalls: [{ id: 'rev_1', name: 'skills_list', arguments: {} }] },
    { toolCalls: [{ id: 'rev_2', name: 'skill_manage', arguments: { action: 'create', name: 'csv-header-cleanup', content: NEW_SKILL } }] },
    { text: 'Created csv-header-cleanup for CSV exports with broken headers.' },
  );
  await sendMessage(page, 'Clean up this CSV export, the header row is broken.');
  const sessionId = await waitForReply(page);

  const review = (await finishedActivity(page, (r) => r.kind === 'review')) as ReviewActivity;
  expect(review).toMatchObject({
    kind: 'review',
    sessionId,
    review: 'skills',
    trigger: '10 model calls without saving a skill',
    status: 'done',
    outcome: 'Created csv-header-cleanup for CSV exports with broken headers.',
    notices: ['Learned: skill `csv-header-cleanup` created — unverified'],
    modelCalls: 3,
  });
  expect(review.toolCalls.map((c) => [c.name, c.success])).toEqual([
    ['skills_list', true],
    ['skill_manage', true],
  ]);
  expect(review.endedAt).toBeGreaterThanOrEqual(review.startedAt);

  // Exactly one review: three review requests (then nothing more), one activity record.
  const reviewRequests = scripted.chatRequests().filter(isReviewRequest);
  expect(reviewRequests).toHaveLength(3);
  expect((await activity(page)).filter((r) => r.kind === 'review')).toHaveLength(1);
  // The review offers only the four review tools.
  const reviewTools = (reviewRequests[0]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name).sort();
  expect(reviewTools).toEqual(['memory', 'skill_manage', 'skill_view', 'skills_list']);

  // The new skill belongs to the agent (curator-managed).
  const usage = await page.evaluate(() => globalThis.knack!.skills!.engine.usage.find('csv-header-cleanup'));
  expect(usage?.created_by).toBe('agent');

  // The notice shows in the chat, outside the conversation.
  const notices = await page.evaluate(() => globalThis.knackUi!.learning.notices.map((n) => ({ sessionId: n.sessionId, text: n.text })));
  expect(notices).toEqual([{ sessionId, text: 'Learned: skill `csv-header-cleanup` created — unverified' }]);
  await expect(page.getByRole('list', { name: 'Learning notices' }).getByRole('listitem')).toHaveText(['Learned: skill `csv-header-cleanup` created — unverified']);
  // (d) On screen: the user's message and the reply, nothing of the review.
  await expect(conversation(page)).not.toContainText('csv-header-cleanup');
  await expect(conversation(page)).not.toContainText(REVIEW_MARK);
  await expect(conversation(page)).toContainText('Here is the cleaned CSV, with the header fixed.');

  // (d) Nothing of the review is in the user's stored history: user, 9 × (call + result), answer.
  const history = await storedMessages(page, sessionId);
  expect(history).toHaveLength(20);
  expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Clean up this CSV export, the header row is broken.']);
  expect(JSON.stringify(history)).not.toContain(REVIEW_MARK);
  expect(JSON.stringify(history)).not.toContain('csv-header-cleanup');
  expect(history.flatMap((m) => m.toolCalls ?? []).every((c) => c.name === 'skills_list')).toBe(true);

  // The next session's first model call carries the new skill in its system prompt's index.
  await expect.poll(() => page.evaluate(() => globalThis.knack!.skills!.engine.catalog.findByName('csv-header-cleanup').length)).toBe(1);
  await page.getByRole('button', { name: 'New chat' }).click();
  scripted.script({ text: 'Hello again.' });
  const before = scripted.chatRequests().length;
  await sendMessage(page, 'Another CSV has the same problem.');
  await expect(conversation(page)).toContainText('Hello again.');
  expect(await waitForReply(page)).not.toBe(sessionId);
  const firstCall = scripted.chatRequests()[before]!;
  expect(isReviewRequest(firstCall)).toBe(false);
  const system = chatMessagesOf(firstCall)[0]!;
  expect(system.role).toBe('system');
  expect(system.content).toContain('csv-header-cleanup');
  expect(system.content).toContain('Use when a CSV export has broken headers.');
  // A one-call turn leaves the counter at 1: no second review.
  await page.evaluate(() => globalThis.knackUi!.learning.settled());
  expect((await activity(page)).filter((r) => r.kind === 'review')).toHaveLength(1);

  // The Activity view shows the run with its trigger, calls and outcome.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Activity' }).click();
  const entry = page.getByRole('article', { name: 'Skill review' });
  await expect(entry).toBeVisible();
  await expect(entry.getByText('10 model calls without saving a skill')).toBeVisible();
  await expect(entry.getByText('Created csv-header-cleanup for CSV exports with broken headers.')).toBeVisible();
  await expect(entry.getByText('skill_manage create csv-header-cleanup — ok')).toBeVisible();
});

test('the review cannot patch a user’s skill nor a file it has not viewed; the refusals reach the model and the Activity view', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  // One skill the user wrote, one an earlier review wrote.
  const setup = await page.evaluate(
    async ({ userSkill, agentSkill }) => {
      const registry = globalThis.knack!.skills!.registry;
      const asUser = await registry.dispatch('skill_manage', { action: 'create', name: 'my-commit-style', content: userSkill }, { origin: 'user', readPaths: new Set() });
      const asReview = await registry.dispatch('skill_manage', { action: 'create', name: 'report-formatting', content: agentSkill }, { origin: 'review', readPaths: new Set() });
      return [JSON.parse(asUser).success, JSON.parse(asReview).success];
    },
    {
      userSkill: skillMd('my-commit-style', 'Use when writing commit messages for me.', 'Imperative mood, 50-character subject.'),
      agentSkill: skillMd('report-formatting', 'Use when formatting weekly reports.', 'Use headings per project.'),
    },
  );
  expect(setup).toEqual([true, true]);

  scripted.script(
    ...busyTurn(10, 'The report is formatted.'),
    { toolCalls: [{ id: 'rev_patch_user', name: 'skill_manage', arguments: { action: 'patch', name: 'my-commit-style', old_string: '50-character', new_string: '72-character' } }] },
    { toolCalls: [{ id: 'rev_patch_unread', name: 'skill_manage', arguments: { action: 'patch', name: 'report-formatting', old_string: 'headings per project', new_string: 'one heading per project' } }] },
    { text: 'Nothing to save.' },
  );
  await sendMessage(page, 'Format this week’s report.');
  await waitForReply(page);
  const review = (await finishedActivity(page, (r) => r.kind === 'review')) as ReviewActivity;
  expect(review.status).toBe('done');
  expect(review.outcome).toBe('Nothing to save.');
  expect(review.notices).toEqual([]);
  const [userPatch, unreadPatch] = review.toolCalls.map((call) => ({ ...call, parsed: JSON.parse(call.result) as { success: boolean; error: string } }));
  expect(userPatch!.success).toBe(false);
  expect(userPatch!.parsed.error).toMatch(/'my-commit-style': it is user-owned/);
  expect(unreadPatch!.success).toBe(false);
  expect(unreadPatch!.parsed.error).toMatch(/has not been loaded in this review turn\. Call skill_view\(name='report-formatting'\) first/);

  // The model saw the same refusals as tool results in its next requests.
  const reviewRequests = scripted.chatRequests().filter(isReviewRequest);
  expect(reviewRequests).toHaveLength(3);
  const toolResult = (id: string) => chatMessagesOf(reviewRequests[2]!).find((m) => m.role === 'tool' && m.tool_call_id === id)?.content;
  expect(JSON.parse(toolResult('rev_patch_user')!)).toEqual(userPatch!.parsed);
  expect(JSON.parse(toolResult('rev_patch_unread')!)).toEqual(unreadPatch!.parsed);

  // Both skills are as they were.
  const texts = await page.evaluate(async () => {
    const { engine } = globalThis.knack!.skills!;
    const read = (name: string) => engine.files.readText(`${engine.catalog.findByName(name)[0]!.dir}/SKILL.md`);
    return [await read('my-commit-style'), await read('report-formatting')];
  });
  expect(texts[0]).toContain('50-character subject');
  expect(texts[1]).toContain('Use headings per project.');

  // The Activity view shows the failed calls with their results.
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Activity' }).click();
  const entry = page.getByRole('article', { name: 'Skill review' });
  await expect(entry.getByText('Outcome: Nothing to save.')).toBeVisible();
  const failed = entry.locator('details').filter({ hasText: 'skill_manage patch my-commit-style' });
  await failed.locator('summary').click();
  await expect(failed.locator('pre').last()).toContainText(userPatch!.parsed.error.slice(0, 40));
});

test('a user message during a slow review cancels it and is not held back by it', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  scripted.script(
    ...busyTurn(10),
    // The review's first request gets no answer for a minute.
    { text: 'too late', firstByteDelayMs: 60_000 },
    // The user's next message.
    { text: 'Sure, the second file too.' },
  );
  await sendMessage(page, 'Clean up this CSV export.');
  const sessionId = await waitForReply(page);
  const reviewRequest = await scripted.waitForRequest(isReviewRequest);
  expect(await page.evaluate((id) => globalThis.knackUi!.learning.isReviewing(id), sessionId)).toBe(true);

  await sendMessage(page, 'And the second file?');
  const userRequest = await scripted.waitForRequest((r) => !isReviewRequest(r) && r.seq > reviewRequest.seq && r.path.endsWith('/chat/completions'));
  const aborted = await scripted.waitForAbort();
  await expect(conversation(page)).toContainText('Sure, the second file too.');
  await waitForReply(page);

  // The review's request was the one cut off, and its run is recorded as cancelled.
  expect(aborted.seq).toBe(reviewRequest.seq);
  const review = (await finishedActivity(page, (r) => r.kind === 'review')) as ReviewActivity;
  expect(review.status).toBe('cancelled');
  expect(review.outcome).toMatch(/^Cancelled: a new message/);
  // The review's request was cut off long before its minute-long answer: nothing of it landed.
  // (The 2-second bound itself is the scheduler's grace, tested with fake timers in
  // tests/unit/reviewScheduler.test.ts; wall-clock bounds would flake on a loaded machine.)
  expect(aborted.endedAt).toBeDefined();
  expect(review.outcome).not.toContain('too late');
  expect(userRequest.seq).toBeGreaterThan(reviewRequest.seq);
  expect(await page.evaluate((id) => globalThis.knackUi!.learning.isReviewing(id), sessionId)).toBe(false);

  // (d) The stored conversation has the user's two turns and replies, nothing from the review.
  const history = await storedMessages(page, sessionId);
  expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(['Clean up this CSV export.', 'And the second file?']);
  expect(history.at(-1)).toEqual({ role: 'assistant', content: 'Sure, the second file too.' });
  expect(JSON.stringify(history)).not.toContain(REVIEW_MARK);
  expect(JSON.stringify(history)).not.toContain('too late');
});

test('a failing review is recorded as failed and the chat goes on', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  scripted.script(...busyTurn(10), { error: { status: 500, message: 'review model crashed' } }, { text: 'Next answer.' });
  await sendMessage(page, 'Clean up this CSV export.');
  const sessionId = await waitForReply(page);
  const review = (await finishedActivity(page, (r) => r.kind === 'review')) as ReviewActivity;
  expect(review.status).toBe('failed');
  expect(review.outcome).toMatch(/^Failed: .*review model crashed/);
  await sendMessage(page, 'Thanks. Next one?');
  await expect(conversation(page)).toContainText('Next answer.');
  expect(await waitForReply(page)).toBe(sessionId);
  await expect(conversation(page)).not.toContainText('review model crashed');
  const history = await storedMessages(page, sessionId);
  expect(history.at(-1)).toEqual({ role: 'assistant', content: 'Next answer.' });
  expect(JSON.stringify(history)).not.toContain('review model crashed');
});
