/**
 * Reach and per-model verdicts end to end (docs/gate.md, "Reach", "Per-model verdicts"): the
 * production build, the review worker's real gate and the scripted server, which answers the
 * chat-shaped reach requests like a small model (reachHarness.ts).
 */
import { expect, test } from './fixtures';
import { openLearningApp, sendMessage, waitForReply } from './learningSupport';
import { isGateReplay, MARKER, openSkillDetail, turnOffAutomaticRuns, verdictWord, verification } from './gateHarness';
import { answerLikeSmallModel, indexLine, PROPOSED, seedChangelogSkill } from './reachHarness';

// The scripted server is a llama.cpp with a 4,096-token window: every reach request, proposal and
// check draft must fit it, as on the small local models reach is measured for.
test.use({ scriptedOptions: { models: ['scripted-model', 'small-model'], context: { nCtx: 4096, mode: 'llamacpp' } } });

test.describe('Reach', () => {
  test.beforeEach(async ({ page, scripted }) => {
    await openLearningApp(page, scripted);
    await turnOffAutomaticRuns(page);
    answerLikeSmallModel(scripted);
  });

  // Nothing the app sent since the test's last clearLog went over the window (a refusal would also
  // fail the step that needed its answer).
  test.afterEach(({ scripted }) => {
    expect(scripted.requests.filter((request) => request.context?.overWindow)).toEqual([]);
  });

  test('a useful skill with a vague description is promoted but shows low reach; a clear one is reached', async ({ page, scripted }) => {
    await seedChangelogSkill(page, 'changelog-vague', 'Helps with assorted tasks.', 8, 2);
    await openSkillDetail(page, 'changelog-vague');
    scripted.clearLog();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    await expect(verification(page)).toContainText('Reached in 0 of 8 cases; loaded by mistake in 0 of 2');
    await expect(verification(page).locator('.reason')).toContainText('chose it from the index in only 0 of 8 cases');
    // One reach request per case (near misses included), each a chat's first request; then the
    // description trial: one proposal and the held-out cases with the proposed index line.
    expect(scripted.chatRequests().filter((request) => !isGateReplay(request))).toHaveLength(10 + 1 + 4);

    // The trial: kept, with the before and after; used, and verified again, the skill is reached.
    const trial = verification(page).getByRole('group', { name: 'Description trial' });
    await expect(trial).toContainText('Description trial: kept');
    await expect(trial).toContainText('“Helps with assorted tasks.”: reached in 0 of 3 held-out cases, loaded by mistake in 0 of 1');
    await expect(trial).toContainText(`“${PROPOSED}”: reached in 3 of 3 held-out cases, loaded by mistake in 0 of 1`);
    await trial.getByRole('button', { name: 'Use the new description' }).click();
    await expect(verification(page)).toContainText('The new description is saved.');
    await page.getByRole('button', { name: /^Verify/ }).first().click();
    await expect(verification(page)).toContainText('Reached in 8 of 8 cases; loaded by mistake in 0 of 2', { timeout: 60_000 });

    await seedChangelogSkill(page, 'changelog-clear', 'Use when drafting a changelog entry for a build.', 8, 2);
    await openSkillDetail(page, 'changelog-clear');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    await expect(verification(page)).toContainText('Reached in 8 of 8 cases; loaded by mistake in 0 of 2');
    await expect(verification(page).locator('.reason')).not.toContainText('chose it from the index');
  });

  test('a chat on a second model does not see the skill [verified] until it is verified there', async ({ page, scripted }) => {
    await seedChangelogSkill(page, 'changelog-clear', 'Use when drafting a changelog entry for a build.', 8);
    await openSkillDetail(page, 'changelog-clear');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });

    // The settings list both models; a chat on the second one.
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('button', { name: 'Refresh list' }).click();
    await expect(page.getByText('The server lists 2 models.')).toBeVisible();
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByRole('combobox', { name: 'Chat model' }).selectOption({ label: 'small-model' });
    scripted.clearLog();
    await sendMessage(page, 'Hello there');
    await waitForReply(page);
    const onSmall = scripted.chatRequests().find((request) => request.body.model === 'small-model')!;
    expect(indexLine(onSmall, 'changelog-clear')).toMatch(/\[unverified\]$/);

    // The skill view offers to verify on the chat's model; after that run the label follows.
    await openSkillDetail(page, 'changelog-clear');
    const group = verification(page).getByRole('group', { name: 'Verdicts by model' });
    await expect(group).toContainText('Not measured on your chat model');
    await group.getByRole('button', { name: 'Verify on small-model' }).click();
    await expect(group.getByRole('listitem')).toHaveCount(2, { timeout: 60_000 });
    await expect(group.getByRole('button', { name: 'Verify on small-model' })).toHaveCount(0);
    const replays = scripted.chatRequests().filter(isGateReplay);
    expect(replays.length).toBeGreaterThan(0);
    expect(replays.every((request) => request.body.model === 'small-model')).toBe(true);

    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
    await page.getByRole('button', { name: 'New chat' }).click();
    scripted.clearLog();
    await sendMessage(page, 'Hello again');
    await waitForReply(page);
    const after = scripted.chatRequests().find((request) => request.body.model === 'small-model' && !isGateReplay(request))!;
    expect(indexLine(after, 'changelog-clear')).toMatch(/\[verified\]$/);
  });

  test('a request from a later chat becomes a candidate, is added as a case and is held out', async ({ page, scripted }) => {
    await seedChangelogSkill(page, 'changelog-clear', 'Use when drafting a changelog entry for a build.', 8);
    // A later chat: the small model loads the skill for this request.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
    await sendMessage(page, 'Please draft the changelog entry for build 300.');
    await waitForReply(page);
    expect(scripted.chatRequests().some((request) => JSON.stringify(request.body.messages).includes('"skill_view"'))).toBe(true);
    // What the user did next goes into the skill's usage (docs/gate.md, "Use outcomes"). It is
    // sent at once, as a user answers: the outcome waits for the turn's loads to be recorded.
    await sendMessage(page, 'No, that is the wrong format.');
    await waitForReply(page);

    await openSkillDetail(page, 'changelog-clear');
    await expect(page.getByRole('region', { name: 'Usage' })).toContainText('Loaded in 1 chat; corrected after 1');
    const region = page.getByRole('region', { name: 'Cases from your chats' });
    await expect(region).toContainText('Please draft the changelog entry for build 300.');
    // Add as case: the review model drafts the checks, the editor shows them; nothing is saved yet.
    scripted.clearLog();
    await region.getByRole('button', { name: 'Add as case' }).click();
    const editor = page.getByRole('form', { name: 'Test cases of changelog-clear' });
    await expect(editor.getByRole('status').filter({ hasText: 'The review model drafted 1 check for this request from your chat.' })).toBeVisible();
    const drafts = scripted.chatRequests().filter((request) => String((request.body.messages as { content: string }[])[0]?.content).startsWith('You write the checks of one test case'));
    expect(drafts).toHaveLength(1);
    expect(drafts[0]!.body.tools).toBeUndefined();
    await expect(editor.getByRole('textbox', { name: 'Check 1 Text' })).toHaveValue(MARKER);
    await expect(region).toContainText('Please draft the changelog entry for build 300.');
    const casesNow = () =>
      page.evaluate(async () => {
        const data = await globalThis.knack!.skills!.readSkillFile('changelog-clear', 'evals/evals.json');
        return JSON.parse(new TextDecoder().decode(data!)) as { evals: { id: number; prompt: string; checks?: unknown[]; knack?: { origin: string; session_id?: string } }[] };
      });
    expect((await casesNow()).evals.some((item) => item.prompt.includes('build 300'))).toBe(false);

    // The user confirms: the case is saved with its provenance and the drafted check, and leaves the list.
    await editor.getByRole('button', { name: 'Save cases' }).click();
    await expect(editor).toHaveCount(0);
    await expect(region).toHaveCount(0);
    const added = (await casesNow()).evals.find((item) => item.prompt.includes('build 300'))!;
    expect(added.knack).toMatchObject({ origin: 'chat', session_id: expect.any(String) });
    expect(added.checks).toEqual([{ type: 'contains', value: MARKER }]);

    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    await expect(verification(page)).toContainText('1 of 2 held-out cases come from other chats.');
  });

  test('the router reaches a skill the model does not choose: a removable chip, the turn loads it as /<skill> does', async ({ page, scripted }) => {
    await seedChangelogSkill(page, 'changelog-vague', 'Helps with assorted tasks.', 8, 2);
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByRole('combobox', { name: 'Skill router' }).selectOption('on');
    await expect(page.getByRole('combobox', { name: 'Skill router' })).toHaveValue('on');

    // Measured: the model reaches it in none of its cases, the router in all, and in no near miss.
    await openSkillDetail(page, 'changelog-vague');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    await expect(verification(page)).toContainText('Reached in 0 of 8 cases; loaded by mistake in 0 of 2. With the skill router: reached in 8 of 8 cases; loaded by mistake in 0 of 2.');

    // In the chat: the chip names the skill; removed, the message goes without it.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Please draft the changelog entry for build 301.');
    const chip = page.getByRole('status').filter({ hasText: 'Using skill changelog-vague — matched your request' });
    await expect(chip).toBeVisible();
    scripted.clearLog();
    await box.press('Enter');
    await waitForReply(page);
    const routedTurn = scripted.chatRequests().find((request) => !isGateReplay(request))!;
    expect(JSON.stringify(routedTurn.body.messages)).toContain('<skill name=\\"changelog-vague\\">');

    await page.getByRole('button', { name: 'New chat' }).click();
    await box.fill('Please draft the changelog entry for build 302.');
    await expect(chip).toBeVisible();
    await page.getByRole('button', { name: 'Remove skill changelog-vague' }).click();
    await expect(chip).toHaveCount(0);
    scripted.clearLog();
    await box.press('Enter');
    await waitForReply(page);
    const plainTurn = scripted.chatRequests().find((request) => !isGateReplay(request))!;
    expect(JSON.stringify(plainTurn.body.messages)).not.toContain('<skill name=');
  });
});
