import { describe, expect, it } from 'vitest';
import { runAgentTurn } from '../../src/agent/agentLoop';
import { decideReview, defaultIntervals, zeroCounters } from '../../src/agent/learningCounters';
import { buildSystemPrompt } from '../../src/agent/systemPrompt';
import { fakeProvider } from './helpers/fakeProvider';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { ProviderError } from '../../src/providers/provider';

function setup() {
  const t = createTestEngine();
  const base = {
    registry: t.registry,
    context: t.context('foreground'),
    systemPrompt: 'SYSTEM',
    history: [{ role: 'user' as const, content: 'hello' }],
    counters: zeroCounters(),
    intervals: defaultIntervals,
    maxIterations: 24,
  };
  return { t, base };
}

describe('agent loop', () => {
  it('streams a plain reply and ends with it', async () => {
    const { base } = setup();
    const { provider, requests } = fakeProvider([{ text: 'Hi there.' }]);
    const deltas: string[] = [];
    const result = await runAgentTurn({ ...base, provider, onEvent: (e) => e.type === 'text-delta' && deltas.push(e.text) });
    expect(result).toMatchObject({ end: 'final', finalReply: 'Hi there.', modelCalls: 1 });
    expect(deltas.join('')).toBe('Hi there.');
    expect(requests[0]!.messages[0]).toEqual({ role: 'system', content: 'SYSTEM' });
    expect(requests[0]!.tools!.map((t) => t.name)).toEqual(['skills_list', 'skill_view', 'skill_manage']);
  });

  it('runs tool calls, feeds results back and creates, views and patches a skill', async () => {
    const { t, base } = setup();
    const { provider, requests } = fakeProvider([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'tea', content: skillContent('tea', 'Use when brewing tea.') }) }] },
      { toolCalls: [{ name: 'skill_view', arguments: '{"name":"tea"}' }] },
      { toolCalls: [{ name: 'skill_manage', arguments: '{"action":"patch","name":"tea","old_string":"Do the thing.","new_string":"Steep 3 minutes."}' }] },
      { text: 'Saved.' },
    ]);
    const result = await runAgentTurn({ ...base, provider });
    expect(result.end).toBe('final');
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(JSON.parse(result.messages[1]!.content).success).toBe(true);
    expect(result.messages[1]!.toolCallId).toBe(result.messages[0]!.toolCalls![0]!.id);
    expect(await t.files.readText('skills/tea/SKILL.md')).toContain('Steep 3 minutes.');
    // The last request carries the whole exchange.
    expect(requests[3]!.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it('gives two calls with the same id in one reply distinct ids, each answered by exactly one result', async () => {
    const { base } = setup();
    const { provider, requests } = fakeProvider([
      { toolCalls: [
        { id: 'dup', name: 'skills_list', arguments: '{}' },
        { id: 'dup', name: 'skill_view', arguments: '{"name":"missing"}' },
      ] },
      { toolCalls: [{ id: 'dup', name: 'skills_list', arguments: '{}' }] },
      { text: 'Done.' },
    ]);
    const seen: string[] = [];
    const result = await runAgentTurn({ ...base, provider, onEvent: (e) => e.type === 'tool-call' && seen.push(e.call.id) });
    expect(result.end).toBe('final');
    const callIds = result.messages.flatMap((m) => m.toolCalls?.map((c) => c.id) ?? []);
    expect(callIds).toEqual(['dup', 'dup_2', 'dup_3']);
    expect(seen).toEqual(callIds);
    const resultIds = result.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
    expect(resultIds).toEqual(callIds);
    // What the model is sent back pairs every call of each assistant message with one result.
    const sent = requests[2]!.messages;
    for (const [position, message] of sent.entries()) {
      if (!message.toolCalls) continue;
      const answers = sent.slice(position + 1, position + 1 + message.toolCalls.length).map((m) => m.toolCallId);
      expect(answers).toEqual(message.toolCalls.map((c) => c.id));
    }
    expect(result.messages.find((m) => m.toolCallId === 'dup_2')!.name).toBe('skill_view');
  });

  it('unknown tools, broken JSON and unreadable text-protocol calls become failure results', async () => {
    const { base } = setup();
    const { provider } = fakeProvider([
      { toolCalls: [
        { name: 'launch_rockets', arguments: '{}' },
        { name: 'skill_view', arguments: '{"name": ' },
        { name: 'skill_view', arguments: '', parseError: 'missing closing </tool_call>' },
      ] },
      { text: 'Sorry.' },
    ]);
    const result = await runAgentTurn({ ...base, provider });
    const outputs = result.messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content));
    expect(outputs.map((o) => o.success)).toEqual([false, false, false]);
    expect(outputs[0].error).toContain('Unknown tool');
    expect(outputs[1].error).toContain('not valid JSON');
    expect(outputs[2].error).toContain('could not be read');
    expect(result.finalReply).toBe('Sorry.');
  });

  it('counts model calls for itersSinceSkill and resets on skill_manage dispatch (even a failing one)', async () => {
    const { base } = setup();
    const { provider } = fakeProvider([
      { toolCalls: [{ name: 'skills_list', arguments: '{}' }] },
      { toolCalls: [{ name: 'skill_manage', arguments: '{"action":"explode","name":"x"}' }] },
      { toolCalls: [{ name: 'skills_list', arguments: '{}' }] },
      { text: 'ok' },
    ]);
    const result = await runAgentTurn({ ...base, provider, counters: { itersSinceSkill: 5, turnsSinceMemory: 2 } });
    expect(result.modelCalls).toBe(4);
    expect(result.counters.itersSinceSkill).toBe(2);
    // No memory tool in this registry: the memory counter is untouched.
    expect(result.counters.turnsSinceMemory).toBe(2);
  });

  it('stop mid-stream keeps the partial text and runs nothing else', async () => {
    const { base } = setup();
    const fake = fakeProvider([{ hang: true }]);
    const controller = new AbortController();
    const pending = runAgentTurn({ ...base, provider: fake.provider, signal: controller.signal });
    await fake.hanging;
    controller.abort();
    const result = await pending;
    expect(result.end).toBe('stopped');
    expect(result.finalReply).toBeNull();
    expect(result.messages).toEqual([{ role: 'assistant', content: 'partial ' }]);
  });

  it('a provider error ends the turn with the error, never a hang', async () => {
    const { base } = setup();
    const { provider } = fakeProvider([{ error: new ProviderError('network', 'Could not reach the server.', 'Is it running?') }]);
    const result = await runAgentTurn({ ...base, provider });
    expect(result.end).toBe('error');
    expect(result.error?.message).toBe('Could not reach the server.');
  });

  it('the iteration limit ends with a clear message', async () => {
    const { base } = setup();
    const { provider } = fakeProvider(Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'skills_list', arguments: '{}' }] })));
    const result = await runAgentTurn({ ...base, provider, maxIterations: 3 });
    expect(result.end).toBe('iteration-limit');
    expect(result.messages.at(-1)!.content).toContain('stopped after 3 steps');
  });
});

describe('finalizer decision (SPEC §8.1)', () => {
  const turn = { finalReply: true, stopped: false };

  it('reviews skills at the interval and resets that counter only', () => {
    expect(decideReview({ itersSinceSkill: 10, turnsSinceMemory: 3 }, defaultIntervals, turn)).toEqual({
      review: 'skills',
      counters: { itersSinceSkill: 0, turnsSinceMemory: 3 },
    });
  });

  it('reviews memory, or both combined', () => {
    expect(decideReview({ itersSinceSkill: 2, turnsSinceMemory: 10 }, defaultIntervals, turn).review).toBe('memory');
    expect(decideReview({ itersSinceSkill: 12, turnsSinceMemory: 10 }, defaultIntervals, turn).review).toBe('combined');
  });

  it('never after a stopped turn or one without a final reply; intervals ≤ 0 disable', () => {
    const due = { itersSinceSkill: 10, turnsSinceMemory: 10 };
    expect(decideReview(due, defaultIntervals, { finalReply: true, stopped: true })).toEqual({ review: null, counters: due });
    expect(decideReview(due, defaultIntervals, { finalReply: false, stopped: false }).review).toBeNull();
    expect(decideReview(due, { creationNudgeInterval: 0, memoryNudgeInterval: -1 }, turn).review).toBeNull();
  });
});

describe('system prompt', () => {
  it('adds guidance only for the tools present, then the frozen memory and the index', () => {
    const prompt = buildSystemPrompt({ tools: ['skill_manage'], memorySnapshot: 'MEMORY BLOCK', skillIndex: '## Skills\n- a' });
    expect(prompt).toContain('save it as a skill');
    expect(prompt).not.toContain('Memory: it is shown');
    expect(prompt.indexOf('MEMORY BLOCK')).toBeLessThan(prompt.indexOf('## Skills'));
  });
});
