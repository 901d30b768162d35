import { expect, test } from './fixtures';
import { finishedActivity, openLearningApp, sendMessage, waitForReply } from './learningSupport';
import {
  answerByContent,
  editSkill,
  holdGate,
  isFirstChatShaped,
  isGateReplay,
  isProposer,
  openSkillDetail,
  seedSkill,
  turnOffAutomaticRuns,
  verdictWord,
  verification,
} from './gateHarness';
import type { GateActivity } from '../../src/review/activity';

// The verification gate end to end against the production build: the Skills view's Verify,
// the review worker's real gate, the real OPFS and IndexedDB, and the scripted server as the
// gate's (and the chat's) OpenAI-compatible provider. The server answers every replay from
// what it carries (gateHarness.ts), so no test depends on the order of requests.

const gateRun = (skill: string, status?: string) => (record: { kind: string }) =>
  record.kind === 'gate' && (record as GateActivity).skill === skill && (status === undefined || (record as GateActivity).status === status);

test.describe('Verification gate', () => {
  test.beforeEach(async ({ page, scripted }) => {
    await openLearningApp(page, scripted);
    await turnOffAutomaticRuns(page);
  });

  test('a skill that helps is promoted; the next chat lists it [verified]; only the gate provider is contacted', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-helps', 8);
    answerByContent(scripted, { 'notes-helps': 'helps' });
    const hosts = new Set<string>();
    page.on('request', (request) => hosts.add(new URL(request.url()).origin));

    await openSkillDetail(page, 'notes-helps');
    await expect(verdictWord(page)).toHaveText('not verified yet');
    scripted.clearLog();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });

    // Every request of the run was a gate replay, or a reach request shaped like a chat's first
    // request (one per case), to the gate's provider. This server's chat never loads a skill, so
    // reach is low and the description trial runs too: one proposal, and the 3 held-out trigger
    // cases again with the proposed line (the current line's answers come from the cache).
    const replays = scripted.chatRequests();
    expect(replays.filter(isGateReplay).length).toBeGreaterThan(0);
    expect(replays.filter((request) => !isGateReplay(request) && !isProposer(request)).every(isFirstChatShaped)).toBe(true);
    expect(replays.filter(isFirstChatShaped)).toHaveLength(8 + 3);
    expect(replays.filter(isProposer)).toHaveLength(1);
    const appOrigin = new URL(page.url()).origin;
    expect([...hosts].filter((origin) => origin !== appOrigin && origin !== scripted.origin)).toEqual([]);
    const done = await finishedActivity(page, gateRun('notes-helps', 'done'));
    expect((done as GateActivity).verdict?.verdict).toBe('promoted');

    // The panel shows the evidence: per-case table and the run facts.
    await expect(verification(page).getByRole('heading', { name: 'Per-case scores' })).toBeVisible();

    // The next chat's skill index labels it [verified].
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Chat', exact: true }).click();
    scripted.clearLog();
    await sendMessage(page, 'Hello there');
    await waitForReply(page);
    const chat = scripted.chatRequests().find((request) => !isGateReplay(request))!;
    const system = String(chat.body.messages[0].content);
    expect(system).toMatch(/notes-helps[^\n]*\[verified\]/);
  });

  test('a skill that does nothing, and one that hurts, are rejected', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-nothing', 8);
    await seedSkill(page, 'notes-hurts', 8);
    answerByContent(scripted, { 'notes-nothing': 'nothing', 'notes-hurts': 'hurts' });

    await openSkillDetail(page, 'notes-nothing');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('rejected', { timeout: 60_000 });

    await openSkillDetail(page, 'notes-hurts');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('rejected', { timeout: 60_000 });
    const hurts = await finishedActivity(page, gateRun('notes-hurts', 'done'));
    expect((hurts as GateActivity).verdict?.verdict).toBe('rejected');
  });

  test('a provider that answers 503 leaves the skill staged, not measured', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-down', 8);
    answerByContent(scripted, { 'notes-down': 'unavailable' });
    await openSkillDetail(page, 'notes-down');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('staged', { timeout: 60_000 });
    await expect(verification(page).getByText(/not measured/i).first()).toBeVisible();
  });

  test('too few cases: staged without a single model request', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-few', 2);
    answerByContent(scripted, { 'notes-few': 'helps' });
    await openSkillDetail(page, 'notes-few');
    scripted.clearLog();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('staged', { timeout: 30_000 });
    await finishedActivity(page, gateRun('notes-few', 'done'));
    expect(scripted.chatRequests()).toEqual([]);
  });

  test('Stop cancels a run: "cancelled" in Activity, and the previous verdict stays', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-stop', 8);
    answerByContent(scripted, { 'notes-stop': 'helps' });
    await openSkillDetail(page, 'notes-stop');
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });

    // Without the cache every replay goes to the server, which holds them.
    const gate = holdGate();
    answerByContent(scripted, { 'notes-stop': 'helps' }, { hold: gate.hold });
    try {
      scripted.clearLog();
      await page.getByRole('button', { name: 'Verify again without cache' }).click();
      await scripted.waitForRequest(isGateReplay, 30_000);
      await verification(page).getByRole('button', { name: 'Stop' }).click();
      const cancelled = await finishedActivity(page, gateRun('notes-stop', 'cancelled'), 30_000);
      expect((cancelled as GateActivity).outcome).toMatch(/Cancelled/);
    } finally {
      gate.release();
    }
    await expect(verification(page).getByText('Verification cancelled; the previous verdict stays.')).toBeVisible();
    await expect(verdictWord(page)).toHaveText('promoted');

    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Activity', exact: true }).click();
    await expect(page.getByText(/Cancelled after \d+\/\d+ pairs/).first()).toBeVisible();
  });

  test('an edit during a run supersedes it: stored, not applied', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-edit', 8);
    const gate = holdGate();
    answerByContent(scripted, { 'notes-edit': 'helps' }, { hold: gate.hold });
    await openSkillDetail(page, 'notes-edit');
    try {
      await page.getByRole('button', { name: 'Verify', exact: true }).click();
      await scripted.waitForRequest(isGateReplay, 30_000);
      await editSkill(page, 'notes-edit');
    } finally {
      gate.release();
    }
    const ended = (await finishedActivity(page, gateRun('notes-edit', 'done'), 60_000)) as GateActivity;
    expect(ended.superseded).toBe(true);
    await expect(verification(page).getByText(/superseded/).first()).toBeVisible();
    // Not applied: the skill still shows as never verified.
    await expect(verdictWord(page)).toHaveText('not verified yet');
  });

  test('keyboard and names: Verify by keyboard, the Verification region, the case table', async ({ page, scripted }) => {
    await seedSkill(page, 'notes-keys', 8);
    answerByContent(scripted, { 'notes-keys': 'helps' });
    await openSkillDetail(page, 'notes-keys');
    const verify = page.getByRole('button', { name: 'Verify', exact: true });
    await verify.focus();
    await page.keyboard.press('Enter');
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    await expect(page.getByRole('region', { name: 'Verification' })).toBeVisible();
    const table = verification(page).getByRole('table', { name: 'Checks passed per case' }).first();
    await expect(table).toBeVisible();
    await expect(table.getByRole('row').nth(1)).toBeVisible();

    // The cases editor opens from the keyboard with focus on its heading, and saves through the skill tool.
    const edit = page.getByRole('button', { name: 'Edit cases' });
    await edit.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Test cases of notes-keys' })).toBeFocused();
    await page.getByRole('button', { name: 'Save cases' }).click();
    await expect(page.getByRole('button', { name: 'Edit cases' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Cases' }).getByText(/notes-keys 1: write the release note/)).toBeVisible();
  });

  test('Settings → Verification: policy, daily cap and the gate model persist; every control is named', async ({ page }) => {
    // beforeEach left the Settings view open with automatic runs off.
    const section = page.getByRole('region', { name: 'Verification' });
    await section.getByRole('radio', { name: /Strict/ }).check();
    await expect(page.getByText('Verification settings updated.')).toBeVisible();
    const cap = section.getByRole('spinbutton', { name: 'Requests automatic runs may send per day' });
    await cap.fill('120');
    await cap.press('Tab');
    await section.getByRole('textbox', { name: 'Gate LLM' }).fill('judge-model');
    await section.getByRole('textbox', { name: 'Gate LLM' }).press('Tab');
    await expect
      .poll(() => page.evaluate(() => (globalThis.knack!.settings as unknown as { get(key: string): Record<string, unknown> }).get('gate')))
      .toMatchObject({ policy: 'strict', dailyCap: 120, automatic: false, provider: { model: 'judge-model' } });

    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    const reloaded = page.getByRole('region', { name: 'Verification' });
    await expect(reloaded.getByRole('radio', { name: /Strict/ })).toBeChecked();
    await expect(reloaded.getByRole('spinbutton', { name: 'Requests automatic runs may send per day' })).toHaveValue('120');
    await expect(reloaded.getByRole('switch', { name: /Verify automatically/ })).not.toBeChecked();
    await expect(reloaded.getByRole('textbox', { name: 'Gate LLM' })).toHaveValue('judge-model');
  });
});
