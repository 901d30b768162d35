/**
 * A forged tool end to end (docs/forged-tools.md): a chat works out a price with a discount and
 * VAT, the background review forges a tool with its cases, the tab proves it in the sandbox with
 * zero model requests (the scripted server's log), the next chat's model calls it and shows the
 * right total, and a deliberately broken tool is rejected with its failing cases shown.
 */
import { test, expect } from './fixtures';
import type { Page } from '@playwright/test';
import type { Turn } from '../fixtures/scriptedServer';
import type { ReviewActivity } from '../../src/review/activity';
import { busyTurn, finishedActivity, isReviewRequest, openLearningApp, sendMessage, waitForReply } from './learningSupport';
import { openSkillDetail, skillMd } from './gateHarness';

const SKILL = 'eu-pricing';
/** The procedure as the conversation settled it: discount first, then VAT, rounded half up to the cent once. */
const total = (net: number, discount: number, vat: number) => Math.round((net * (100 - discount) * (100 + vat)) / 100) / 100;
const RIGHT_CODE = 'function run(input) {\n  const cents = Math.round((input.net * (100 - input.discount_pct) * (100 + input.vat_pct)) / 100);\n  return cents / 100;\n}\n';
/** Forgets the discount. */
const BROKEN_CODE = 'function run(input) {\n  return Math.round(input.net * (100 + input.vat_pct)) / 100;\n}\n';
const schema = {
  type: 'object',
  properties: { net: { type: 'number', description: 'net price' }, discount_pct: { type: 'number' }, vat_pct: { type: 'number' } },
  required: ['net', 'discount_pct', 'vat_pct'],
};
const manifest = (name: string) => ({ name, description: 'Use for a price after a discount and VAT, in cents-rounded currency.', input_schema: schema, output_schema: { type: 'number' } });
const INPUTS: [number, number, number][] = [
  [1037.5, 10, 19],
  [250, 15, 7],
  [1000, 5, 21],
  [42, 25, 19],
  [19.99, 3, 20],
  [80, 50, 10],
  [12.5, 1, 7],
  [999.99, 12, 19],
];
const casesOf = (tool: string) => ({ tool, cases: INPUTS.map(([net, d, v], i) => ({ id: i + 1, input: { net, discount_pct: d, vat_pct: v }, expect: total(net, d, v) })) });

const write = (id: string, file_path: string, content: unknown): Turn => ({
  toolCalls: [{ id, name: 'skill_manage', arguments: { action: 'write_file', name: SKILL, file_path, file_content: typeof content === 'string' ? content : JSON.stringify(content, null, 2) } }],
});

function reviewForgesTools(): Turn[] {
  const body = '1. Apply the discount to the net price.\n2. Add VAT on the discounted price.\n3. Round to the cent once, at the end.\n\nUse the eu-pricing__price-total tool for the arithmetic.';
  return [
    { toolCalls: [{ id: 'rev_1', name: 'skill_manage', arguments: { action: 'create', name: SKILL, content: skillMd(SKILL, 'Use for prices with discount and VAT.', body) } }] },
    write('rev_2', 'tools/price-total.json', manifest('price-total')),
    write('rev_3', 'tools/price-total.js', RIGHT_CODE),
    write('rev_4', 'tools/price-broken.json', manifest('price-broken')),
    write('rev_5', 'tools/price-broken.js', BROKEN_CODE),
    write('rev_6', 'evals/tool-cases.json', [casesOf('price-total'), casesOf('price-broken')]),
    { text: 'Created eu-pricing with a price-total tool.' },
  ];
}

async function toolState(page: Page, tool: string): Promise<{ verdict: string; run_count: number } | null> {
  return page.evaluate(async ([skill, name]) => {
    const usage = await globalThis.knack!.skills!.engine.usage.find(skill!);
    return (usage?.tools?.[name!] as { verdict: string; run_count: number } | undefined) ?? null;
  }, [SKILL, tool]);
}

test('a chat teaches a price procedure; the review forges a tool; the tab proves it without a model; the next chat uses it', async ({ page, scripted }) => {
  test.setTimeout(120_000);
  await openLearningApp(page, scripted);

  scripted.script(...busyTurn(10, `With 10% off and 19% VAT, 1,037.50 comes to ${total(1037.5, 10, 19)}.`), ...reviewForgesTools());
  await sendMessage(page, 'What do I charge for 1,037.50 net with a 10% discount and 19% VAT, rounded to the cent?');
  await waitForReply(page);
  const review = (await finishedActivity(page, (record) => record.kind === 'review')) as ReviewActivity;
  expect(review.status).toBe('done');
  expect(review.toolCalls.map((call) => call.success)).toEqual([true, true, true, true, true, true]);
  await scripted.waitForIdle();
  const requestsAfterReview = scripted.requests.length;

  // The tab proves both tools in the sandbox: the right one promoted, the broken one rejected.
  await expect.poll(async () => (await toolState(page, 'price-total'))?.verdict, { timeout: 30_000 }).toBe('promoted');
  await expect.poll(async () => (await toolState(page, 'price-broken'))?.verdict, { timeout: 30_000 }).toBe('rejected');
  // Zero model requests for the proof: the scripted server saw nothing since the review ended.
  expect(scripted.requests.length).toBe(requestsAfterReview);

  // The next chat: the model is offered the proven tool only, calls it, and answers with its output.
  await page.getByRole('button', { name: 'New chat' }).click();
  const expected = total(250, 15, 7);
  scripted.script(
    { toolCalls: [{ id: 'call_price', name: `${SKILL}__price-total`, arguments: { net: 250, discount_pct: 15, vat_pct: 7 } }] },
    (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      const result = JSON.parse(messages.filter((m) => m.role === 'tool').at(-1)!.content) as { output: number };
      return { text: `The total is ${result.output}.` };
    },
  );
  const mark = scripted.requests.length;
  await sendMessage(page, 'And 250 net with 15% off at 7% VAT?');
  await waitForReply(page);
  const chatRequest = scripted.chatRequests().filter((request) => request.seq > scripted.requests[mark - 1]!.seq && !isReviewRequest(request))[0]!;
  const offered = ((chatRequest.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((tool) => tool.function.name);
  expect(offered).toContain(`${SKILL}__price-total`);
  expect(offered).not.toContain(`${SKILL}__price-broken`);

  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages).toContainText(`The total is ${expected}.`);
  await expect(messages.locator('details.tool summary').first()).toContainText(`Ran price-total: ${expected.toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
  await expect.poll(async () => (await toolState(page, 'price-total'))?.run_count).toBe(1);

  // The skill view: the proof of each tool, and the broken one's failing cases.
  await openSkillDetail(page, SKILL);
  const tools = page.getByRole('region', { name: 'Tools' });
  await expect(tools.getByRole('article', { name: 'Tool price-total' }).locator('[data-verdict]')).toHaveText('promoted');
  const broken = tools.getByRole('article', { name: 'Tool price-broken' });
  await expect(broken.locator('[data-verdict]')).toHaveText('rejected');
  await expect(broken.getByRole('table', { name: 'Failing cases of price-broken' }).getByRole('row')).toHaveCount(INPUTS.length + 1);
  await expect(broken).toContainText(`expected ${total(1037.5, 10, 19)}, got ${Math.round(1037.5 * 119) / 100}`);

  // Check again runs the cases once more, again without the model; switching the tool off takes it out of the chat.
  const beforeCheck = scripted.requests.length;
  await tools.getByRole('article', { name: 'Tool price-total' }).getByRole('button', { name: 'Check again' }).click();
  await expect(tools.getByRole('article', { name: 'Tool price-total' }).locator('[data-verdict]')).toHaveText('promoted');
  await tools.getByRole('checkbox', { name: 'Offer price-total to the chat' }).uncheck();
  await expect(tools.getByRole('article', { name: 'Tool price-total' })).toContainText('not offered to the chat');
  expect(scripted.requests.length).toBe(beforeCheck);
  const registered = await page.evaluate(() => globalThis.knack!.skills!.registry.names());
  expect(registered).not.toContain(`${SKILL}__price-total`);

  // Delete tool removes its two files and its cases; the other tool and its cases stay.
  await broken.getByRole('button', { name: 'Delete tool' }).click();
  await expect(broken).toBeHidden();
  const left = () =>
    page.evaluate(async (skill) => {
      const read = (path: string) => globalThis.knack!.skills!.readSkillFile(skill, path);
      const cases = await read('evals/tool-cases.json');
      return { js: await read('tools/price-broken.js'), json: await read('tools/price-broken.json'), cases: cases ? JSON.parse(new TextDecoder().decode(cases)) : null };
    }, SKILL);
  // The files go one write at a time; the last is the cases file without the deleted tool's list.
  await expect.poll(left).toMatchObject({ js: null, json: null, cases: { tool: 'price-total' } });
  await expect(tools.getByRole('article', { name: 'Tool price-total' })).toBeVisible();
});

test('an imported tool is offered only once its own cases pass here; one whose cases fail is never offered', async ({ page }) => {
  const { strToU8, zipSync } = await import('fflate');
  const files = (skill: string, code: string): Record<string, Uint8Array> => ({
    [`${skill}/SKILL.md`]: strToU8(skillMd(skill, 'Use for prices with discount and VAT.', 'Use the price-total tool for the arithmetic.')),
    [`${skill}/tools/price-total.json`]: strToU8(JSON.stringify(manifest('price-total'))),
    [`${skill}/tools/price-total.js`]: strToU8(code),
    [`${skill}/evals/tool-cases.json`]: strToU8(JSON.stringify(casesOf('price-total'))),
  });
  const archive = Buffer.from(zipSync({ ...files('imported-right', RIGHT_CODE), ...files('imported-wrong', BROKEN_CODE) }));

  await page.goto('/#/skills');
  await page.waitForFunction(() => Boolean(globalThis.knack?.skills));
  await page.getByLabel('Skill archive to import').setInputFiles({ name: 'pricing.zip', mimeType: 'application/zip', buffer: archive });
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(page.getByText('pricing.zip: Imported 2, skipped 0.')).toBeVisible();

  const stateOf = (skill: string) =>
    page.evaluate(async (name) => ((await globalThis.knack!.skills!.engine.usage.find(name))?.tools?.['price-total'] as { verdict: string } | undefined)?.verdict ?? null, skill);
  await expect.poll(() => stateOf('imported-right'), { timeout: 30_000 }).toBe('promoted');
  await expect.poll(() => stateOf('imported-wrong'), { timeout: 30_000 }).toBe('rejected');
  await expect.poll(() => page.evaluate(() => globalThis.knack!.skills!.registry.names().filter((name) => name.includes('__')))).toEqual(['imported-right__price-total']);
});

test('a tool whose code the security scan refused says so in its Tools entry, with the scan\'s reason', async ({ page, scripted }) => {
  await openLearningApp(page, scripted);
  // The chat model writes the tool; its code carries a credential, which the scan holds for the user.
  const leakyCode = "function run(input) {\n  const token = 'AKIAIOSFODNN7EXAMPLE';\n  return input.net * 2;\n}\n";
  scripted.setFallback({ text: 'Nothing to save.' });
  scripted.script(
    { toolCalls: [{ id: 'w_1', name: 'skill_manage', arguments: { action: 'create', name: SKILL, content: skillMd(SKILL, 'Use for prices with discount and VAT.', 'Use the price-total tool.') } }] },
    write('w_2', 'tools/price-total.json', manifest('price-total')),
    write('w_3', 'tools/price-total.js', leakyCode),
    { text: 'The tool waits for your confirmation.' },
  );
  await sendMessage(page, 'Make a price tool for me.');
  await waitForReply(page);

  await openSkillDetail(page, SKILL);
  const entry = page.getByRole('region', { name: 'Tools' }).getByRole('article', { name: 'Tool price-total' });
  await expect(entry.locator('[data-verdict]')).toHaveText('not proven: the security scan refused its code');
  await expect(entry).toContainText(/The security scan refused tools\/price-total\.js \(dangerous verdict\): line 2: .+“.*AKIAIOSFODNN7EXAMPLE.*”/);
  await expect(entry).toContainText('It waits for your confirmation in Pending.');
  await expect(entry).not.toContainText('no cases');
});
