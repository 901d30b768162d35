import { describe, expect, it } from 'vitest';
import { MAX_TOOL_CALLS_PER_REPLY, runAgentTurn } from '../../src/agent/agentLoop';
import { decideReview, defaultIntervals, zeroCounters } from '../../src/agent/learningCounters';
import { buildSystemPrompt } from '../../src/agent/systemPrompt';
import { fakeProvider } from './helpers/fakeProvider';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { ProviderError } from '../../src/providers/provider';
import { ToolRegistry, type ToolDefinition } from '../../src/tools/toolRegistry';
import { ok } from '../../src/tools/toolResult';

/** A registry with one `ping` tool that logs each run and may act on it (e.g. abort). */
function pingRegistry(onRun: (count: number) => void = () => undefined) {
  const runs: unknown[] = [];
  const ping: ToolDefinition = {
    name: 'ping',
    description: 'Answers pong.',
    parameters: { type: 'object', properties: {}, required: [] },
    run: async (args) => {
      runs.push(args);
      onRun(runs.length);
      return ok({ pong: runs.length });
    },
  };
  return { registry: new ToolRegistry([ping]), runs };
}

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

  it(`runs at most ${MAX_TOOL_CALLS_PER_REPLY} calls of one reply; the rest get a failure saying so, one result per id`, async () => {
    const { base } = setup();
    const { registry, runs } = pingRegistry();
    const calls = Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, name: 'ping', arguments: '{}' }));
    const { provider, requests } = fakeProvider([{ toolCalls: calls }, { text: 'Done.' }]);
    const result = await runAgentTurn({ ...base, registry, provider });
    expect(result).toMatchObject({ end: 'final', finalReply: 'Done.' });
    expect(runs).toHaveLength(MAX_TOOL_CALLS_PER_REPLY);
    const results = result.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.toolCallId)).toEqual(calls.map((c) => c.id));
    const outputs = results.map((m) => JSON.parse(m.content) as { success: boolean; error?: string });
    expect(outputs.slice(0, MAX_TOOL_CALLS_PER_REPLY).every((o) => o.success)).toBe(true);
    expect(outputs.slice(MAX_TOOL_CALLS_PER_REPLY).every((o) => o.success === false)).toBe(true);
    expect(outputs[199]!.error).toBe('Too many tool calls in one reply: only the first 16 ran; send fewer per reply.');
    // The model's next request answers every call it made.
    expect(requests[1]!.messages.filter((m) => m.role === 'tool')).toHaveLength(200);
  });

  it('Stop among the failure results beyond the cap takes effect within a few of them, with no further model call', async () => {
    const { base } = setup();
    const { registry, runs } = pingRegistry();
    const calls = Array.from({ length: 200 }, (_, i) => ({ id: `c${i}`, name: 'ping', arguments: '{}' }));
    const { provider, requests } = fakeProvider([{ toolCalls: calls }, { text: 'never asked' }]);
    const controller = new AbortController();
    let results = 0;
    // Stop is a click: it lands between tasks, here in a timer queued with the 40th result.
    const onEvent = (event: { type: string }) => {
      if (event.type === 'tool-result' && ++results === 40) setTimeout(() => controller.abort(), 0);
    };
    const result = await runAgentTurn({ ...base, registry, provider, signal: controller.signal, onEvent });
    expect(result.end).toBe('stopped');
    expect(runs).toHaveLength(MAX_TOOL_CALLS_PER_REPLY);
    const added = result.messages.filter((m) => m.role === 'tool').length;
    expect(added).toBeGreaterThanOrEqual(40);
    expect(added).toBeLessThanOrEqual(48); // the loop yields every 8 undispatched results
    expect(requests).toHaveLength(1);
  });

  it('Stop between the calls of one reply dispatches nothing more and calls the model no more', async () => {
    const { base } = setup();
    const controller = new AbortController();
    const { registry, runs } = pingRegistry((count) => {
      if (count === 2) controller.abort();
    });
    const calls = Array.from({ length: 5 }, () => ({ name: 'ping', arguments: '{}' }));
    const { provider, requests } = fakeProvider([{ toolCalls: calls }, { text: 'never asked' }]);
    const result = await runAgentTurn({ ...base, registry, provider, signal: controller.signal });
    expect(result.end).toBe('stopped');
    expect(runs).toHaveLength(2);
    expect(result.messages.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(requests).toHaveLength(1);
  });

  it('a reply cut off mid-stream keeps its text, runs none of its calls and says it was cut off', async () => {
    const { base } = setup();
    const { registry, runs } = pingRegistry();
    const { provider, requests } = fakeProvider([{ text: 'Half an ', toolCalls: [{ name: 'ping', arguments: '{}' }], finish: 'cut-off' }]);
    const result = await runAgentTurn({ ...base, registry, provider });
    expect(result).toMatchObject({ end: 'error', cutOff: true, finalReply: null });
    expect(result.error?.message).toMatch(/cut off/);
    expect(runs).toHaveLength(0);
    expect(result.messages).toEqual([{ role: 'assistant', content: 'Half an ', toolCalls: [{ id: 'call_1', name: 'ping', arguments: '{}' }] }]);
    expect(requests).toHaveLength(1);
  });

  it('a reply with only reasoning ends final without a reply and reports the reasoning', async () => {
    const { base } = setup();
    const { provider } = fakeProvider([{ reasoning: 'Hmm, what do they mean?' }]);
    const reasoning: string[] = [];
    const result = await runAgentTurn({ ...base, provider, onEvent: (e) => e.type === 'reasoning-delta' && reasoning.push(e.text) });
    expect(result).toMatchObject({ end: 'final', finalReply: null, messages: [] });
    expect(reasoning).toEqual(['Hmm, what do they mean?']);
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
