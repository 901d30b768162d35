/**
 * A repeat notice is given only when the earlier copy reaches the model whole (docs/skill-tools.md,
 * "A repeated view"): the window fitting keeps the copy a new notice means, rewrites a notice whose
 * copy it had to cut, and the turn's record forgets a file whose copy a request did not carry
 * whole, so the next view sends it again. Real skill_view tool, real fitting, scripted model.
 */
import { describe, expect, it } from 'vitest';
import { runAgentTurn, type PreparedRequest } from '../../src/agent/agentLoop';
import { defaultIntervals, zeroCounters } from '../../src/agent/learningCounters';
import { planFor } from '../../src/agent/contextBudget';
import { fitMessages } from '../../src/agent/requestFit';
import { COPY_CUT_MESSAGE, honestNotices } from '../../src/agent/viewCopies';
import type { ChatMessage, ChatRequest } from '../../src/providers/provider';
import { fakeProvider, type FakeTurn } from './helpers/fakeProvider';
import { charCounter } from './helpers/charCounter';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

const view = (id: string): FakeTurn => ({ toolCalls: [{ id, name: 'skill_view', arguments: '{"name":"tea"}' }] });
const list = (id: string): FakeTurn => ({ toolCalls: [{ id, name: 'skills_list', arguments: '{}' }] });

/** A turn over a tea skill of about 2,000 characters, each request fitted to `window` tokens. */
async function turn(window: number, script: FakeTurn[]) {
  const t = createTestEngine();
  const steps = Array.from({ length: 30 }, (_, i) => `${i + 1}. Step ${i + 1} of brewing: weigh, warm, pour and wait.`).join('\n');
  await t.files.write('skills/tea/SKILL.md', skillContent('tea', 'Brew tea well.', `Steep green tea at 80 °C for two minutes.\n${steps}`));
  await t.engine.catalog.rescan();
  const plan = planFor(window);
  const history: ChatMessage[] = [{ role: 'user', content: 'How do I brew tea?' }];
  const fits: ReturnType<typeof fitMessages>[] = [];
  const prepareCall = async (added: readonly ChatMessage[]): Promise<PreparedRequest> => {
    const fit = fitMessages({ head: [], summaryText: null, rest: [...history, ...added], systemPrompt: 'SYSTEM', tools: [], counter: charCounter, plan });
    fits.push(fit);
    return { systemPrompt: 'SYSTEM', messages: fit.messages, tools: [], tokens: fit.tokens, viewsNotWhole: fit.viewsNotWhole };
  };
  const fake = fakeProvider([...script, { text: 'Done.' }]);
  const result = await runAgentTurn({
    provider: fake.provider,
    registry: t.registry,
    context: t.context('foreground'),
    systemPrompt: 'SYSTEM',
    history,
    prepareCall,
    counters: zeroCounters(),
    intervals: defaultIntervals,
    maxIterations: 10,
  });
  const stored = (id: string) => result.messages.find((message) => message.toolCallId === id)!;
  const sent = (request: ChatRequest, id: string) => request.messages.find((message) => message.toolCallId === id);
  const parsed = (id: string) => JSON.parse(stored(id).content) as Record<string, unknown>;
  return { requests: fake.requests, fits, stored, sent, parsed };
}

describe('a repeat notice and the window fitting', () => {
  it('a copy the fitting cut is sent again by the next view, not answered with a notice', async () => {
    const { requests, parsed, sent, stored } = await turn(4096, [view('v1'), list('l1'), view('v2')]);
    // The third request has the first copy as an old result, cut for the window.
    expect(sent(requests[2]!, 'v1')!.content).not.toBe(stored('v1').content);
    expect(parsed('v2').already_in_conversation).toBeUndefined();
    expect(parsed('v2').content).toContain('80 °C');
  });

  it('an uncut copy still gets the notice', async () => {
    const { requests, parsed, sent, stored } = await turn(131_072, [view('v1'), list('l1'), view('v2')]);
    expect(sent(requests[2]!, 'v1')!.content).toBe(stored('v1').content);
    expect(parsed('v2')).toMatchObject({ success: true, already_in_conversation: true });
    expect(parsed('v2').content).toBeUndefined();
  });

  it('the copy a notice of the latest block means stays whole in the request that carries the notice', async () => {
    const { requests, parsed, sent, stored, fits } = await turn(4096, [view('v1'), view('v2')]);
    expect(parsed('v2').already_in_conversation).toBe(true);
    expect(sent(requests[2]!, 'v1')!.content).toBe(stored('v1').content);
    expect(sent(requests[2]!, 'v2')!.content).toBe(stored('v2').content);
    expect(fits[2]!.viewsNotWhole).toEqual([]);
  });

  it('an older notice whose copy was cut says so in the request, and the next view sends the file', async () => {
    const { requests, parsed, sent, stored, fits } = await turn(4096, [view('v1'), view('v2'), list('l1'), view('v3')]);
    expect(sent(requests[3]!, 'v1')!.content).not.toBe(stored('v1').content);
    const notice = JSON.parse(sent(requests[3]!, 'v2')!.content) as Record<string, unknown>;
    expect(notice).toMatchObject({ success: true, name: 'tea', message: COPY_CUT_MESSAGE });
    expect(notice.already_in_conversation).toBeUndefined();
    expect(sent(requests[3]!, 'v2')!.content.length).toBeLessThan(stored('v2').content.length);
    expect(fits[3]!.viewsNotWhole).toHaveLength(1);
    expect(parsed('v3').content).toContain('80 °C');
    // The stored transcript keeps the notice as it was given.
    expect(parsed('v2').already_in_conversation).toBe(true);
  });
});

describe('honestNotices', () => {
  const calls = (id: string): ChatMessage => ({ role: 'assistant', content: '', toolCalls: [{ id, name: 'skill_view', arguments: '{"name":"tea"}' }] });
  const copy: ChatMessage = { role: 'tool', toolCallId: 'a', name: 'skill_view', content: JSON.stringify({ success: true, name: 'tea', path: 'tea/SKILL.md', skill_dir: 'skills/tea', content: 'Steep at 80 °C.' }) };
  const notice: ChatMessage = { role: 'tool', toolCallId: 'b', name: 'skill_view', content: JSON.stringify({ success: true, name: 'tea', path: 'tea/SKILL.md', skill_dir: 'skills/tea', already_in_conversation: true, message: "SKILL.md of skill 'tea' has not changed since you viewed it earlier in this conversation; it is not sent again. Use the copy above." }) };
  const original = [{ role: 'user' as const, content: 'go' }, calls('a'), copy, calls('b'), notice];

  it('leaves a request that carries the copy whole as it is', () => {
    expect(honestNotices(original, original)).toEqual({ messages: original, notWhole: [] });
  });

  it('rewrites the notice, no longer than it was, when the copy was left out', () => {
    const fitted = [original[0]!, calls('b'), notice];
    const { messages, notWhole } = honestNotices(original, fitted);
    expect(messages.at(-1)!.content).toContain(COPY_CUT_MESSAGE);
    expect(messages.at(-1)!.content.length).toBeLessThan(notice.content.length);
    expect(notWhole).toHaveLength(1);
  });

  it('leaves results of other tools alone', () => {
    const other: ChatMessage[] = [{ role: 'user', content: 'go' }, { role: 'assistant', content: '', toolCalls: [{ id: 'x', name: 'skills_list', arguments: '{}' }] }, { role: 'tool', toolCallId: 'x', content: '{"success":true,"content":"list"}' }];
    expect(honestNotices(other, [other[0]!])).toEqual({ messages: [other[0]], notWhole: [] });
  });
});
