/**
 * toModelHistory: stored chat lines as the model's history. Chats stored before the agent loop
 * made tool-call ids unique repeat them (`call_1` in every reply, twice in one reply); what is
 * sent must have unique ids, each result paired with its own call, no result without a call and
 * no call without a result.
 */
import { describe, expect, it } from 'vitest';
import type { ChatLine } from '../../src/agent/chatLines';
import { toModelHistory } from '../../src/agent/modelHistory';
import { toOpenAIMessages } from '../../src/providers/openaiMessages';

const call = (id: string, name = 'skills_list') => ({ id, name, arguments: '{}' });
let seq = 0;
const line = (fields: Omit<ChatLine, 'id' | 'seq'>): ChatLine => ({ id: `m${seq}`, seq: seq++, ...fields });

/** Every call's id is unique, and every tool message answers a call of the reply it follows. */
function expectWellPaired(history: ReturnType<typeof toModelHistory>): void {
  const wire = toOpenAIMessages(history);
  const ids = wire.flatMap((m) => (m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => c.id) : []));
  expect(new Set(ids).size).toBe(ids.length);
  let open = new Set<string>();
  for (const message of wire) {
    if (message.role === 'tool') {
      expect(open.has(message.tool_call_id)).toBe(true);
      open.delete(message.tool_call_id);
      continue;
    }
    expect(open.size).toBe(0); // every call answered before the next message
    open = new Set(message.role === 'assistant' ? (message.tool_calls ?? []).map((c) => c.id) : []);
  }
  expect(open.size).toBe(0);
}

describe('toModelHistory', () => {
  it('renames repeated call ids and gives each stored result the id of its own call', () => {
    const lines = [
      line({ role: 'user', content: 'go' }),
      line({ role: 'assistant', content: '', toolCalls: [call('call_1'), call('call_1', 'skill_view')] }),
      line({ role: 'tool', content: '{"success":true,"n":1}', toolCallId: 'call_1', name: 'skills_list' }),
      line({ role: 'tool', content: '{"success":true,"n":2}', toolCallId: 'call_1', name: 'skill_view' }),
      line({ role: 'assistant', content: 'Again.', toolCalls: [call('call_1')] }),
      line({ role: 'tool', content: '{"success":true,"n":3}', toolCallId: 'call_1', name: 'skills_list' }),
      line({ role: 'assistant', content: 'Done.' }),
    ];
    const history = toModelHistory(lines);
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant', 'tool', 'assistant']);
    expect(history[1]!.toolCalls!.map((c) => c.id)).toEqual(['call_1', 'call_1_2']);
    expect(history[4]!.toolCalls!.map((c) => c.id)).toEqual(['call_1_3']);
    // Paired by place among the results that follow: the first result to the first call.
    expect(history.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m.content])).toEqual([
      ['call_1', '{"success":true,"n":1}'],
      ['call_1_2', '{"success":true,"n":2}'],
      ['call_1_3', '{"success":true,"n":3}'],
    ]);
    expectWellPaired(history);
    // The stored lines are left as they are.
    expect(lines[1]!.toolCalls!.map((c) => c.id)).toEqual(['call_1', 'call_1']);
  });

  it('leaves out results that answer no call and answers calls left without one', () => {
    const history = toModelHistory([
      line({ role: 'user', content: 'go' }),
      line({ role: 'tool', content: '{"success":true}', toolCallId: 'stray' }),
      line({ role: 'assistant', content: '', toolCalls: [call('a'), call('a')] }),
      line({ role: 'tool', content: '{"success":true,"first":1}', toolCallId: 'a' }),
      line({ role: 'tool', content: '{"success":true,"extra":1}', toolCallId: 'a' }),
      line({ role: 'tool', content: '{"success":true,"unknown":1}', toolCallId: 'zzz' }),
      line({ role: 'assistant', content: 'Stopped.', toolCalls: [call('a')], stopped: true }),
    ]);
    expectWellPaired(history);
    const results = history.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual(['{"success":true,"first":1}', '{"success":true,"extra":1}', expect.stringContaining('stopped')]);
    expect(JSON.parse(results[2]!.content)).toMatchObject({ success: false });
  });

  it('keeps ids that are already unique exactly as stored', () => {
    const history = toModelHistory([
      line({ role: 'user', content: 'go' }),
      line({ role: 'assistant', content: '', toolCalls: [call('x1'), call('x2')] }),
      line({ role: 'tool', content: '{"success":true}', toolCallId: 'x2' }),
      line({ role: 'tool', content: '{"success":true}', toolCallId: 'x1' }),
    ]);
    expect(history.map((m) => m.toolCallId ?? m.toolCalls?.map((c) => c.id).join())).toEqual([undefined, 'x1,x2', 'x2', 'x1']);
    expectWellPaired(history);
  });
});
