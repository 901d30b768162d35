import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import { messageItems, openChatApp, sendMessage, useScriptedProvider } from './chatHarness';
import type { RecordedRequest, ScriptedServer } from '../fixtures/scriptedServer';
import { finishedActivity, openLearningApp } from './learningSupport';
import { answerByContent, isGateReplay, openSkillDetail, seedSkill, turnOffAutomaticRuns, verdictWord } from './gateHarness';
import type { GateActivity } from '../../src/review/activity';
import { chatTurnText, honestSummary } from '../fixtures/honestSummariser';

// The window budget end to end (docs/context-window.md): a scripted server that counts every
// request with Qwen3's real tokenizer and refuses like llama.cpp above n_ctx; a 40-skill library;
// an ordinary chat of short requests and ~250-token answers; summaries written like an honest
// model (every user fact kept, so they grow; only max_tokens stops them).

const SUMMARY_OPENING = 'You keep the memory of a long conversation';
const ANSWER = `Here is what I would do next. ${'Check the plan, keep the steps small, and write down what changed so the next step starts from a known place. '.repeat(9)}`;

const isSummaryRequest = (request: RecordedRequest) => String(request.body?.messages?.[0]?.content ?? '').startsWith(SUMMARY_OPENING);

/** Answers chat requests at length and summary requests as an honest model does (tests/fixtures/honestSummariser.ts). */
function answerLikeASmallModel(scripted: ScriptedServer): void {
  scripted.setFallback((request) => (isSummaryRequest(request) ? { text: honestSummary(String(request.body.messages.at(-1)?.content ?? '')) } : { text: ANSWER }));
}

/** Nothing the app sent passed the window: neither a prompt, nor a prompt with the reply it asked for. */
function overWindow(scripted: ScriptedServer): RecordedRequest[] {
  return scripted.chatRequests().filter((request) => request.context && (request.context.overWindow || request.context.promptTokens + (request.context.maxTokens ?? 0) > request.context.window));
}

async function addSkills(page: Page, count: number): Promise<void> {
  await page.evaluate(async (count) => {
    const topics = ['git', 'docker', 'release', 'invoice', 'travel', 'recipe', 'python', 'sql', 'email', 'budget'];
    for (let n = 0; n < count; n++) {
      const topic = topics[n % topics.length]!;
      const name = `${topic}-helper-${n}`;
      const content = `---\nname: ${name}\ndescription: Use for ${topic} tasks of kind ${n}, steps and pitfalls.\n---\n\n# ${name}\n\n1. Ask what the ${topic} task is.\n2. Do it step by step.\n`;
      const result = JSON.parse(await globalThis.knack!.skills!.registry.dispatch('skill_manage', { action: 'create', name, content }, { origin: 'user', readPaths: new Set<string>() }));
      if (!result.success) throw new Error(result.error);
    }
  }, count);
}

/** The chat's own requests: not summaries, and not the background review's (which also runs on this model). */
function chatTurns(scripted: ScriptedServer): RecordedRequest[] {
  const lastUser = (request: RecordedRequest) => String(request.body?.messages?.filter((m: { role: string }) => m.role === 'user').at(-1)?.content ?? '');
  return scripted.chatRequests().filter((request) => !isSummaryRequest(request) && /^(Turn \d+:|My project|The Heron|Heron is)/.test(lastUser(request)));
}

/**
 * Waits for the turn's end, and for a summary the app writes after the reply (the context meter is
 * busy meanwhile), as a user reads the reply before typing the next message.
 */
async function waitForTurnEnd(page: Page, turn: number): Promise<void> {
  await expect(page.getByRole('button', { name: 'Stop' })).toBeDisabled({ timeout: 60_000 });
  // Not the summary's marker row: the summary may quote a reply.
  await expect(messageItems(page).filter({ hasText: 'Here is what I would do next.' }).filter({ hasNotText: 'Earlier messages summarised' })).toHaveCount(turn, { timeout: 60_000 });
  await expect(page.locator('.context[aria-busy="true"]')).toHaveCount(0, { timeout: 60_000 });
}

/**
 * `turns` turns of the chat: the given texts first, then chatTurnText's (a fact in turn 2 and every
 * fourth turn, questions otherwise). Returns, per turn, how many chat requests the server had
 * before the turn's message was sent.
 */
async function chat(page: Page, scripted: ScriptedServer, turns: number, ...first: string[]): Promise<number[]> {
  const sentAt: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    sentAt.push(scripted.chatRequests().length);
    await sendMessage(page, first[turn - 1] ?? chatTurnText(turn));
    await waitForTurnEnd(page, turn);
  }
  return sentAt;
}

/** The requests each turn made between its send and its first chat request (the user waited for these). */
function inFrontOfTurns(scripted: ScriptedServer, sentAt: number[]): RecordedRequest[] {
  const requests = scripted.chatRequests();
  return sentAt.flatMap((from) => {
    const own = requests.slice(from);
    const first = own.findIndex((request) => !isSummaryRequest(request));
    return own.slice(0, Math.max(0, first));
  });
}

test.describe('at 4,096 tokens', () => {
  test.use({ scriptedOptions: { context: { nCtx: 4096, mode: 'llamacpp' } } });

  test('a 30-turn chat with 40 skills: every turn answered, nothing over the window, at most 6 summaries, none in front of a turn, a turn-2 fact kept', async ({ page, scripted }) => {
    test.setTimeout(300_000);
    await openChatApp(page);
    await addSkills(page, 40);
    await useScriptedProvider(page, scripted);
    answerLikeASmallModel(scripted);
    // The name comes in turn 2, not the first message (which every request keeps whole): it can
    // only reach turn 30 through the summaries.
    const sentAt = await chat(page, scripted, 30);

    const requests = scripted.chatRequests();
    expect(overWindow(scripted)).toEqual([]);
    const turns = chatTurns(scripted);
    expect(turns).toHaveLength(30);
    expect(turns.every((request) => request.served === 'reply')).toBe(true);
    expect(await page.getByRole('alert').count()).toBe(0);
    await expect(messageItems(page)).toHaveCount(60 + (await page.locator('.marker-row').count()));
    // The first request: at most 35 % of the window (SPEC §17).
    expect(turns[0]!.context!.promptTokens).toBeLessThanOrEqual(4096 * 0.35);
    // The fact of turn 2 reaches the request of turn 30, in the summary.
    const last = turns.at(-1)!.body.messages as { role: string; content: string }[];
    expect(last.find((message) => message.content.includes('[Summary of the earlier conversation'))?.content).toContain('the project is called Heron');
    // Rare, one request each, and written after a reply: no turn waited for one (SPEC §7.1).
    const summaries = requests.filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.length).toBeLessThanOrEqual(6);
    expect(inFrontOfTurns(scripted, sentAt)).toEqual([]);
    await expect(page.getByText('Earlier messages summarised', { exact: true })).toBeVisible();
    await page.getByText('Earlier messages summarised', { exact: true }).click();
    await expect(page.getByRole('note').locator('pre')).toContainText('Heron');
    // The meter: used / window, by part.
    await expect(page.getByRole('meter', { name: 'Context window used' })).toHaveAttribute('aria-valuemax', '4096');
    console.log(
      JSON.stringify({
        turnsAnswered: turns.length,
        overWindow: 0,
        firstRequestTokens: turns[0]!.context!.promptTokens,
        summaryRequests: summaries.length,
        maxPromptTokens: Math.max(...requests.map((r) => r.context!.promptTokens)),
        maxPromptWithReply: Math.max(...requests.map((r) => r.context!.promptTokens + (r.context!.maxTokens ?? 0))),
      }),
    );
  });

  test('a model that answers with a 1 MB skill_manage call: the tool’s error reaches the model, a final reply follows, nothing over the window', async ({ page, scripted }) => {
    await openChatApp(page);
    await useScriptedProvider(page, scripted);
    const content = `---\nname: huge-notes\ndescription: Notes.\n---\n\n${'All the notes, again and again. '.repeat(31_250)}`;
    const args = JSON.stringify({ action: 'create', name: 'huge-notes', content });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-huge', object: 'chat.completion.chunk', created: 0, model: 'scripted-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    // Written as raw SSE: a hostile or confused model, which no max_tokens stopped.
    scripted.script({
      rawStream: [
        chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_huge', type: 'function', function: { name: 'skill_manage', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
        chunk({}, 'tool_calls'),
        'data: [DONE]\n\n',
      ],
    });
    scripted.setFallback({ text: 'That was too long to save; I will split it into smaller files next time.' });
    await sendMessage(page, 'Save all my notes as one skill.');
    await expect(messageItems(page).filter({ hasText: 'That was too long to save' })).toHaveCount(1, { timeout: 60_000 });
    expect(args.length).toBeGreaterThan(1_000_000);
    expect(overWindow(scripted)).toEqual([]);
    expect(scripted.chatRequests().filter((request) => request.served === 'context-refused')).toEqual([]);
    // The request after the tool ran: the call's arguments cut inside their JSON, the error whole and valid.
    const after = scripted.chatRequests().find((request) => (request.body.messages as { role: string }[]).some((message) => message.role === 'tool'))!;
    const messages = after.body.messages as { role: string; content: string; tool_calls?: { function: { arguments: string } }[] }[];
    expect(messages.some((message) => message.content === 'Save all my notes as one skill.')).toBe(true);
    const sentArgs = JSON.parse(messages.find((message) => message.tool_calls)!.tool_calls![0]!.function.arguments) as { action: string; content: string };
    expect(sentArgs.action).toBe('create');
    expect(sentArgs.content).toContain('[cut to save room in the context window');
    const result = JSON.parse(messages.find((message) => message.role === 'tool')!.content) as { success: boolean; error: string };
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/limit/i);
  });

  test('Compact now summarises on request, and the full transcript stays searchable', async ({ page, scripted }) => {
    await openChatApp(page);
    await useScriptedProvider(page, scripted);
    answerLikeASmallModel(scripted);
    await chat(page, scripted, 4, 'The Heron project ships on Friday.');
    await page.getByRole('button', { name: 'Compact now' }).click();
    await expect(page.getByText('Earlier messages summarised', { exact: true })).toBeVisible();
    expect(scripted.chatRequests().filter(isSummaryRequest)).toHaveLength(1);
    const sessionId = await page.evaluate(() => location.hash.split('/').pop()!);
    const stored = await page.evaluate(async (id) => (await globalThis.knack!.sessions!.store.messages(id)).length, sessionId);
    expect(stored).toBe(8);
  });
});

test.describe('at 2,048 tokens', () => {
  test.use({ scriptedOptions: { context: { nCtx: 2048, mode: 'llamacpp' } } });

  test('15 turns with 40 skills are all answered, none over the window, at most 5 summaries, a turn-2 fact kept', async ({ page, scripted }) => {
    test.setTimeout(240_000);
    await openChatApp(page);
    await addSkills(page, 40);
    await useScriptedProvider(page, scripted);
    answerLikeASmallModel(scripted);
    const sentAt = await chat(page, scripted, 15);
    expect(overWindow(scripted)).toEqual([]);
    const turns = chatTurns(scripted);
    expect(turns).toHaveLength(15);
    expect(turns[0]!.context!.promptTokens).toBeLessThanOrEqual(2048 * 0.5);
    const summaries = scripted.chatRequests().filter(isSummaryRequest).length;
    expect(summaries).toBeGreaterThan(0);
    expect(summaries).toBeLessThanOrEqual(5);
    expect(inFrontOfTurns(scripted, sentAt)).toEqual([]);
    expect(JSON.stringify(turns.at(-1)!.body.messages)).toContain('the project is called Heron');
    console.log(JSON.stringify({ window: 2048, turnsAnswered: turns.length, summaryRequests: summaries, maxPromptWithReply: Math.max(...scripted.chatRequests().map((r) => r.context!.promptTokens + (r.context!.maxTokens ?? 0))) }));
  });
});

test.describe('a server that does not say its window', () => {
  // 1,800 tokens, below the 4,096 assumed for a local server that says nothing: the chat's requests
  // pass it after a few turns, before the budget would compact.
  test.use({ scriptedOptions: { context: { nCtx: 1800, mode: 'llamacpp', reportWindow: false } } });

  test('the first refusal teaches the window: compacted, sent again, answered, with a quiet note', async ({ page, scripted }) => {
    await openChatApp(page);
    await useScriptedProvider(page, scripted);
    answerLikeASmallModel(scripted);
    await chat(page, scripted, 8, 'Heron is the project.');
    const refused = scripted.chatRequests().filter((request) => request.served === 'context-refused');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(chatTurns(scripted).filter((request) => request.served === 'reply')).toHaveLength(8);
    expect(await page.getByRole('alert').count()).toBe(0);
    await expect(page.getByRole('list', { name: 'Context notes' })).toContainText('context window is 1,800 tokens');
    // Learned, and shown in Settings as learned.
    const window = await page.evaluate(async () => {
      const app = globalThis.knack!.app!;
      return (await (await app.modelWindows()).lookup({ providerId: app.settings.get('app').defaultProviderId, model: 'scripted-model' })).window;
    });
    expect(window).toMatchObject({ tokens: 1800, source: 'learned' });
  });
});

test.describe('the gate against a 4,096-token llama.cpp server', () => {
  test.use({ scriptedOptions: { context: { nCtx: 4096, mode: 'llamacpp' } } });

  test('every replay fits the gate model’s window, and a helpful skill is promoted', async ({ page, scripted }) => {
    await openLearningApp(page, scripted);
    await turnOffAutomaticRuns(page);
    await seedSkill(page, 'notes-fit', 8);
    answerByContent(scripted, { 'notes-fit': 'helps' });
    await openSkillDetail(page, 'notes-fit');
    scripted.clearLog();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('promoted', { timeout: 60_000 });
    const replays = scripted.chatRequests().filter(isGateReplay);
    expect(replays.length).toBeGreaterThan(0);
    expect(replays.filter((request) => request.context?.overWindow || request.served === 'context-refused')).toEqual([]);
  });
});

test.describe('the gate against a 1,024-token llama.cpp server', () => {
  test.use({ scriptedOptions: { context: { nCtx: 1024, mode: 'llamacpp' } } });

  test('cases too long for the gate model are not sent: unmeasured, and the skill stays staged', async ({ page, scripted }) => {
    await openLearningApp(page, scripted);
    await turnOffAutomaticRuns(page);
    await seedSkill(page, 'notes-long', 8);
    answerByContent(scripted, { 'notes-long': 'helps' });
    await openSkillDetail(page, 'notes-long');
    scripted.clearLog();
    await page.getByRole('button', { name: 'Verify', exact: true }).click();
    await expect(verdictWord(page)).toHaveText('staged', { timeout: 60_000 });
    // The gate's replays ask for 1,024 tokens of answer: no case fits a 1,024-token window.
    expect(scripted.chatRequests().filter(isGateReplay)).toEqual([]);
    const done = await finishedActivity(page, (record: { kind: string }) => record.kind === 'gate' && (record as GateActivity).skill === 'notes-long');
    expect(JSON.stringify(done)).toContain('too long for scripted-model');
  });
});

test.describe('an Ollama server, which drops what does not fit without a word', () => {
  test.use({ scriptedOptions: { context: { nCtx: 4096, mode: 'ollama' } } });

  test('Knack never sends more than the window, so nothing is dropped silently', async ({ page, scripted }) => {
    test.setTimeout(240_000);
    await openChatApp(page);
    await addSkills(page, 40);
    await useScriptedProvider(page, scripted);
    answerLikeASmallModel(scripted);
    await chat(page, scripted, 14);
    const requests = scripted.chatRequests();
    expect(requests.filter((request) => (request.context?.dropped ?? 0) > 0)).toEqual([]);
    expect(chatTurns(scripted)).toHaveLength(14);
    expect(requests.some(isSummaryRequest)).toBe(true);
  });
});
