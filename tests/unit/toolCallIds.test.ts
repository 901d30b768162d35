import { describe, expect, it } from 'vitest';
import { ToolCallIds } from '../../src/agent/toolCallIds';

const call = (id: string) => ({ id, name: 'skills_list', arguments: '{}' });

describe('tool call ids', () => {
  it('keeps ids that are free and renames repeats with the smallest free suffix', () => {
    const ids = new ToolCallIds();
    expect(ids.claim(call('a')).id).toBe('a');
    expect(ids.claim(call('b')).id).toBe('b');
    expect(ids.claim(call('a')).id).toBe('a_2');
    expect(ids.claim(call('a')).id).toBe('a_3');
  });

  it('never collides with an id it made up, nor with the session history', () => {
    const ids = new ToolCallIds([
      { role: 'assistant', content: '', toolCalls: [call('call_1')] },
      { role: 'tool', content: '{"success":true}', toolCallId: 'call_1' },
      { role: 'tool', content: '{"success":true}', toolCallId: 'orphan' },
    ]);
    expect(ids.claim(call('call_1_2')).id).toBe('call_1_2');
    expect(ids.claim(call('call_1')).id).toBe('call_1_3');
    expect(ids.claim(call('orphan')).id).toBe('orphan_2');
  });

  it('copies a renamed call and leaves the original as it was', () => {
    const ids = new ToolCallIds();
    ids.claim(call('x'));
    const original = { ...call('x'), parseError: 'broken' };
    const renamed = ids.claim(original);
    expect(renamed).toEqual({ id: 'x_2', name: 'skills_list', arguments: '{}', parseError: 'broken' });
    expect(original.id).toBe('x');
  });
});
