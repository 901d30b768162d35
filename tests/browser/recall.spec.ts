/**
 * Recall like Hermes (issue 24), on real storage, the review worker and a llama.cpp-like scripted
 * server with a 4,096-token window (refusing anything longer):
 * - a past chat's fact is found by session_search, summarised by the background model, and reaches
 *   the later chat's answer;
 * - MEMORY.md at 81 % consolidates with nothing lost, shown in Activity, and Undo restores it;
 * - two twin skills are listed, merged, verified on both skills' cases, and archived;
 * - a second skill_view of an unchanged file in one turn is a one-line notice.
 * One router answers every request by what it is (chat, summary, consolidation, merge, gate replay).
 */
import type { Page } from '@playwright/test';
import { test, expect } from './fixtures';
import type { RecordedRequest, Turn } from '../fixtures/scriptedServer';
import { chatMessagesOf, conversation, finishedActivity, isReviewRequest, openLearningApp, sendMessage, skillMd, waitForReply } from './learningSupport';

test.use({ scriptedOptions: { context: { nCtx: 4096, mode: 'llamacpp' } } });

type Body = { messages: { role: string; content: string | null; name?: string }[] };
const systemOf = (request: RecordedRequest) => (request.body as Body).messages.find((m) => m.role === 'system')?.content ?? '';
const lastOf = (request: RecordedRequest) => (request.body as Body).messages.at(-1)!;
const isChat = (request: RecordedRequest) => systemOf(request).startsWith('You are Knack') && !isReviewRequest(request);

/** Every chat request the server answered fitted its window: none was refused. */
function expectAllFitted(requests: readonly RecordedRequest[]): void {
  const chats = requests.filter((request) => request.path.endsWith('/chat/completions'));
  expect(chats.length).toBeGreaterThan(0);
  expect(chats.filter((request) => request.served === 'context-refused')).toEqual([]);
}

const FACT = 'The staging database password rotates every 30 days and Priya owns the rotation.';

async function seedPastChat(page: Page): Promise<void> {
  await page.evaluate(async (fact) => {
    const { store } = globalThis.knack!.sessions!;
    const past = await store.create({ title: 'Ops handover' });
    const filler = (i: number) => `Note ${i}: we went through the weekly checklist, the dashboards, the alert routing and who is on call next week, in some detail.`;
    const messages = Array.from({ length: 120 }, (_, i) => ({ role: (i % 2 ? 'assistant' : 'user') as 'user' | 'assistant', content: filler(i) }));
    messages[70] = { role: 'user', content: fact };
    await store.appendMany(past.id, messages);
  }, FACT);
}

test('a past chat’s fact is found, summarised by the background model, and answers a later chat', async ({ page, scripted }) => {
  scripted.setFallback((request): Turn => {
    const system = systemOf(request);
    if (system.startsWith('You read one past conversation')) {
      const user = lastOf(request).content ?? '';
      return { text: user.includes('Priya') ? '- Staging database password rotates every 30 days; Priya owns the rotation.' : 'nothing relevant' };
    }
    if (!isChat(request)) return { text: 'Nothing to save.' };
    const last = lastOf(request);
    if (last.role === 'tool') {
      const result = JSON.parse(last.content ?? '{}') as { results?: { summary?: string }[] };
      return { text: `From our earlier chat: ${result.results?.[0]?.summary ?? 'nothing found'}` };
    }
    return { toolCalls: [{ name: 'session_search', arguments: { query: 'database password' } }] };
  });
  await openLearningApp(page, scripted);
  await seedPastChat(page);
  await sendMessage(page, 'How often does the staging database password rotate?');
  await waitForReply(page);
  await expect(conversation(page).getByText('Priya owns the rotation').last()).toBeVisible();

  const summaryRequests = scripted.chatRequests().filter((request) => systemOf(request).startsWith('You read one past conversation'));
  expect(summaryRequests).toHaveLength(1);
  // The whole past chat is over the window: the request holds the matching part, with title and date.
  const asked = lastOf(summaryRequests[0]!).content ?? '';
  expect(asked).toContain('Conversation "Ops handover"');
  expect(asked).toContain(FACT);
  expect(asked).not.toContain('Note 2:');
  const toolResult = chatMessagesOf(scripted.lastChat()).find((m) => m.role === 'tool')!;
  expect(JSON.parse(toolResult.content!)).toMatchObject({ success: true, summarised_by: expect.any(String), results: [{ title: 'Ops handover' }] });
  expectAllFitted(scripted.requests);
});

const PINNED = 'User prefers short answers in British English, with metric units and 24-hour times, and never any emoji.';
const ENTRIES = [
  'User deploys with Docker Compose on the host atlas.lan.',
  'Docker Compose file for atlas.lan lives at ~/infra/compose.yml.',
  ...Array.from({ length: 16 }, (_, i) => `Project ${i + 1}: the weekly report for team ${i + 1} is due on Friday at 16:00, sent to lead${i + 1}@example.org.`),
];
const MERGED_ENTRY = 'User deploys with Docker Compose on the host atlas.lan; the file lives at ~/infra/compose.yml.';
const entriesNow = (page: Page) => page.evaluate(() => globalThis.knack!.memory!.store.entries('memory'));

test('MEMORY.md at 81 % consolidates with nothing lost and the pinned entry untouched, shown in Activity; Undo restores it', async ({ page, scripted }) => {
  scripted.setFallback((request): Turn => {
    if (systemOf(request).startsWith('You tidy an assistant')) return { text: JSON.stringify({ merges: [{ entries: [1, 2], merged: MERGED_ENTRY }] }) };
    return { text: 'Nothing to save.' };
  });
  await openLearningApp(page, scripted);
  // The user pins an entry in the Memory view (the pin is new with consolidation).
  await page.evaluate((pinned) => globalThis.knack!.memory!.store.add('memory', pinned, { origin: 'user' }), PINNED);
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Memory' }).click();
  await page.getByRole('button', { name: 'Pin entry 1' }).click();
  await expect(page.getByRole('button', { name: 'Pin entry 1' })).toHaveAttribute('aria-pressed', 'true');

  const percent = await page.evaluate(async (entries) => {
    const { store } = globalThis.knack!.memory!;
    const outcome = await store.applyBatch('memory', entries.map((content) => ({ action: 'add', content })), { origin: 'user' });
    if (!outcome.success) throw new Error(String(outcome.error));
    return (await store.read('memory')).percent;
  }, ENTRIES);
  expect(percent).toBe(81);

  const record = await finishedActivity(page, (r) => r.kind === 'memory');
  expect(record).toMatchObject({ status: 'done', requests: 1, before: [PINNED, ...ENTRIES] });
  expect(await entriesNow(page)).toEqual([PINNED, MERGED_ENTRY, ...ENTRIES.slice(2)]);
  const consolidations = scripted.chatRequests().filter((request) => systemOf(request).startsWith('You tidy an assistant'));
  expect(consolidations).toHaveLength(1);
  expect(lastOf(consolidations[0]!).content).not.toContain('British English');

  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Activity' }).click();
  const card = page.getByRole('article', { name: 'Memory consolidation of MEMORY.md' });
  await expect(card.getByLabel('Memory entries before and after')).toContainText(MERGED_ENTRY);
  await card.getByRole('button', { name: 'Undo consolidation' }).click();
  await expect.poll(() => entriesNow(page)).toEqual([PINNED, ...ENTRIES]);
  await expect(card.getByRole('button', { name: 'Undo consolidation' })).toHaveCount(0);
  // The text the undo put back is not taken for a new write past the mark: no second consolidation.
  expect(scripted.chatRequests().filter((request) => systemOf(request).startsWith('You tidy an assistant'))).toHaveLength(1);
  expectAllFitted(scripted.requests);
});

const CSV_BODY = 'Read the CSV file, detect the delimiter, trim whitespace in every header cell, drop empty rows, and write UTF-8 output with a header row.';
const MERGED_SKILL = `---\nname: csv-tidy-up\ndescription: Use to clean CSV exports, headers and empty rows.\n---\n\n# csv-tidy-up\n\n${CSV_BODY}\n`;
const casesFile = (skill: string) =>
  JSON.stringify({
    skill_name: skill,
    evals: [1, 2, 3, 4].map((id) => ({ id, prompt: `${skill} request ${id}: clean this CSV export, the header cells have spaces.`, checks: [{ type: 'icontains', value: 'header' }] })),
  });

test('two twin skills are found, merged, verified on both skills’ cases, and archived', async ({ page, scripted }) => {
  scripted.setFallback((request): Turn => {
    if (systemOf(request).startsWith('You merge two skills')) return { text: MERGED_SKILL };
    // Gate replays: an answer with the skill fixes the header; without it, it does not.
    const withSkill = (request.body as Body).messages.some((m) => (m.content ?? '').includes('trim whitespace in every header cell'));
    return { text: withSkill ? 'Trimmed every header cell and dropped the empty rows.' : 'Here is your file.' };
  });
  await openLearningApp(page, scripted);
  await page.evaluate(
    async ({ skills }) => {
      for (const [name, markdown, cases] of skills) {
        await globalThis.knack!.files!.write(`skills/${name}/SKILL.md`, markdown);
        await globalThis.knack!.files!.write(`skills/${name}/evals/evals.json`, cases);
      }
      await globalThis.knack!.skills!.engine.catalog.rescan();
    },
    {
      skills: [
        ['csv-cleanup', skillMd('csv-cleanup', 'Clean a CSV export: fix header cells and drop empty rows.', CSV_BODY), casesFile('csv-cleanup')],
        ['tidy-csv', skillMd('tidy-csv', 'Tidy CSV exports: fix header cells and drop empty rows.', `${CSV_BODY} Quote fields that contain the delimiter.`), casesFile('tidy-csv')],
      ] as [string, string, string][],
    },
  );
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Skills' }).click();
  const twins = page.getByRole('region', { name: 'Possible duplicates' });
  await expect(twins).toContainText('csv-cleanup and tidy-csv');
  await expect(twins).toContainText(/\d+ % overlap \(description \d+ %, body \d+ %, cases \d+ %\)/);
  await twins.getByRole('button', { name: 'Merge csv-cleanup and tidy-csv' }).click();
  await expect(twins.getByRole('listitem').getByRole('status')).toContainText("passes 4 of 4 checks on csv-cleanup's cases (csv-cleanup: 4); 4 of 4 checks on tidy-csv's cases (tidy-csv: 4)", { timeout: 30_000 });
  await twins.getByRole('button', { name: 'Apply merge' }).click();
  await expect(page.getByText('Merged csv-cleanup and tidy-csv into csv-tidy-up')).toBeVisible();

  const library = await page.evaluate(async () => {
    const { engine } = globalThis.knack!.skills!;
    const cases = await globalThis.knack!.files!.readText('skills/csv-tidy-up/evals/evals.json');
    return { active: engine.catalog.entries().map((entry) => entry.name).sort(), archived: (await globalThis.knack!.files!.walk('skills/.archive')).filter((path) => path.endsWith('SKILL.md')).sort(), cases };
  });
  expect(library.active).toEqual(['csv-tidy-up']);
  expect(library.archived.join(' ')).toMatch(/csv-cleanup.*tidy-csv/);
  expect(JSON.parse(library.cases!).evals).toHaveLength(8);
  expectAllFitted(scripted.requests);
});

test('a second skill_view of the same unchanged file in one turn sends a one-line notice', async ({ page, scripted }) => {
  const steps = Array.from({ length: 12 }, (_, i) => `${i + 1}. Weigh, warm the pot, pour at 80 °C and wait two minutes before serving.`).join('\n');
  scripted.setFallback((request): Turn => {
    if (!isChat(request)) return { text: 'Nothing to save.' };
    const views = (request.body as Body).messages.filter((m) => m.role === 'tool').length;
    return views < 2 ? { toolCalls: [{ name: 'skill_view', arguments: { name: 'tea' } }] } : { text: 'Steep green tea at 80 °C.' };
  });
  await openLearningApp(page, scripted);
  await page.evaluate(async (markdown) => {
    await globalThis.knack!.files!.write('skills/tea/SKILL.md', markdown);
    await globalThis.knack!.skills!.engine.catalog.rescan();
  }, skillMd('tea', 'Brew green tea well.', steps));
  await sendMessage(page, 'How do I brew green tea?');
  await waitForReply(page);
  // Each result as first sent (a later request may cut old results to fit the window).
  const sending = scripted.chatRequests().filter((request) => isChat(request) && lastOf(request).role === 'tool');
  const results = sending.map((request) => JSON.parse(lastOf(request).content!) as Record<string, unknown>);
  expect(results).toHaveLength(2);
  // The request with the notice carries the copy it points at whole (docs/skill-tools.md, "A repeated view").
  const [firstCopy, withNotice] = sending.map((request) => (request.body as Body).messages.filter((m) => m.role === 'tool'));
  expect(withNotice![0]!.content).toBe(firstCopy![0]!.content);
  expect(results[0]!.content).toContain('80 °C');
  expect(results[1]).toMatchObject({ success: true, already_in_conversation: true, name: 'tea' });
  expect(results[1]!.content).toBeUndefined();
  expect(JSON.stringify(results[1]).length).toBeLessThan(JSON.stringify(results[0]).length / 3);
});
