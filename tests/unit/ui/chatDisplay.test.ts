import { describe, expect, it } from 'vitest';
import { displayItems, snippetPieces } from '../../../src/ui/state/chatDisplay';
import { buildSkillInvocation } from '../../../src/skills/skillInvocation';
import type { ChatLine } from '../../../src/agent/chatSession';

const idle = { generating: false, draft: '' };

describe('chat display', () => {
  it('groups a reply (text, tool calls with their results, skill loads) into one item after each user message', () => {
    const lines: ChatLine[] = [
      { id: 'a', seq: 0, role: 'user', content: 'brew tea' },
      { id: 'b', seq: 1, role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'c1', name: 'skill_view', arguments: '{"name":"tea"}' }, { id: 'c2', name: 'skills_list', arguments: '{}' }] },
      { id: 'c', seq: 2, role: 'tool', content: '{"success":true}', toolCallId: 'c1', name: 'skill_view' },
      { id: 'd', seq: 3, role: 'tool', content: '{"success":false,"error":"x"}', toolCallId: 'c2', name: 'skills_list' },
      { id: 'e', seq: 4, role: 'assistant', content: 'Steep it.' },
      { id: 'f', seq: 5, role: 'user', content: 'thanks' },
    ];
    const items = displayItems(lines, idle);
    expect(items.map((item) => item.kind)).toEqual(['user', 'reply', 'user']);
    const reply = items[1]!;
    if (reply.kind !== 'reply') throw new Error('expected a reply');
    expect(reply.parts.map((part) => (part.kind === 'text' ? part.text : part.kind === 'tool' ? `${part.call.name}:${part.success}:${part.skill}` : part.kind))).toEqual([
      'Looking.',
      'skill_view:true:tea',
      'skills_list:false:null',
      'Steep it.',
    ]);
    expect(reply.streaming).toBe(false);
  });

  it('says under a reply that it was cut off or came back empty, with its reasoning', () => {
    const cut = displayItems(
      [
        { id: 'a', seq: 0, role: 'user', content: 'hi' },
        { id: 'b', seq: 1, role: 'assistant', content: 'Half', cutOff: true },
      ],
      idle,
    );
    expect(cut.at(-1)).toMatchObject({ kind: 'reply', parts: [{ kind: 'text', text: 'Half' }, { kind: 'notice', notice: 'cut-off' }] });
    const empty = displayItems(
      [
        { id: 'a', seq: 0, role: 'user', content: 'hi' },
        { id: 'b', seq: 1, role: 'assistant', content: '', empty: true, reasoning: 'Thinking only.' },
      ],
      idle,
    );
    expect(empty.at(-1)).toMatchObject({
      kind: 'reply',
      parts: [
        { kind: 'notice', notice: 'empty' },
        { kind: 'reasoning', text: 'Thinking only.' },
      ],
    });
  });

  it('keys tool parts by place and pairs repeated call ids with their own results (a session stored with duplicates)', () => {
    const lines: ChatLine[] = [
      { id: 'a', seq: 0, role: 'user', content: 'go' },
      { id: 'b', seq: 1, role: 'assistant', content: '', toolCalls: [{ id: 'dup', name: 'skills_list', arguments: '{}' }, { id: 'dup', name: 'skill_view', arguments: '{"name":"tea"}' }] },
      { id: 'c', seq: 2, role: 'tool', content: '{"success":true,"first":1}', toolCallId: 'dup', name: 'skills_list' },
      { id: 'd', seq: 3, role: 'tool', content: '{"success":false,"error":"second"}', toolCallId: 'dup', name: 'skill_view' },
      { id: 'e', seq: 4, role: 'assistant', content: 'Again.', toolCalls: [{ id: 'dup', name: 'skills_list', arguments: '{}' }] },
      { id: 'f', seq: 5, role: 'tool', content: '{"success":true,"third":3}', toolCallId: 'dup', name: 'skills_list' },
    ];
    const reply = displayItems(lines, idle)[1]!;
    if (reply.kind !== 'reply') throw new Error('expected a reply');
    const keys = reply.parts.map((part) => part.key);
    expect(new Set(keys).size).toBe(keys.length);
    const tools = reply.parts.filter((part) => part.kind === 'tool');
    expect(tools.map((part) => part.result)).toEqual(['{"success":true,"first":1}', '{"success":false,"error":"second"}', '{"success":true,"third":3}']);
    expect(tools.map((part) => part.success)).toEqual([true, false, true]);
  });

  it('shows the streaming draft in a reply that exists from the start of the turn, and marks stops', () => {
    const lines: ChatLine[] = [{ id: 'a', seq: 0, role: 'user', content: 'hi' }];
    const waiting = displayItems(lines, { generating: true, draft: '' });
    expect(waiting.at(-1)).toMatchObject({ kind: 'reply', streaming: true, parts: [] });
    const streaming = displayItems(lines, { generating: true, draft: 'Hel' });
    expect(streaming.at(-1)).toMatchObject({ kind: 'reply', parts: [{ kind: 'text', text: 'Hel', streaming: true }] });
    const stopped = displayItems([...lines, { id: 'b', seq: 1, role: 'assistant', content: 'Hel', stopped: true }], idle);
    expect(stopped.at(-1)).toMatchObject({ kind: 'reply', stopped: true });
  });

  it('shows a /<skill> message as the request with the skill as a chip', () => {
    const content = buildSkillInvocation('tea', '---\nname: tea\n---\n\n# Tea\n', 'two cups');
    const [item] = displayItems([{ id: 'a', seq: 0, role: 'user', content }], idle);
    expect(item).toMatchObject({ kind: 'user', text: 'two cups', skill: 'tea' });
  });

  it('splits search snippets into plain and matched pieces', () => {
    expect(snippetPieces('…the **kettle** needs **citric** acid')).toEqual([
      { text: '…the ', match: false },
      { text: 'kettle', match: true },
      { text: ' needs ', match: false },
      { text: 'citric', match: true },
      { text: ' acid', match: false },
    ]);
  });
});
