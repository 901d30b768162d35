import { describe, expect, it } from 'vitest';
import { displayItems, lineItems, replySegments, snippetPieces, withLive } from '../../../src/ui/state/chatDisplay';
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

describe('chat display, built incrementally', () => {
  const user: ChatLine = { id: 'u', seq: 0, role: 'user', content: 'list things' };
  const calls = Array.from({ length: 12 }, (_, i) => ({ id: `c${i}`, name: 'skills_list', arguments: '{}' }));
  const assistant: ChatLine = { id: 'a', seq: 1, role: 'assistant', content: 'Checking.', toolCalls: calls };
  const result = (i: number): ChatLine => ({ id: `t${i}`, seq: 2 + i, role: 'tool', content: '{"success":true}', toolCallId: `c${i}`, name: 'skills_list' });
  // The controller sends a fresh shallow copy of every line with each event.
  const copy = (lines: ChatLine[]) => lines.map((line) => ({ ...line }));

  it('keeps the objects of unchanged items and parts, so a new result touches only its own part', () => {
    const first = lineItems(copy([user, assistant, result(0)]));
    const second = lineItems(copy([user, assistant, result(0), result(1)]), first);
    expect(second[0]).toBe(first[0]);
    const [before, after] = [first[1]!, second[1]!];
    if (before.kind !== 'reply' || after.kind !== 'reply') throw new Error('expected replies');
    expect(after).not.toBe(before);
    expect(after.parts[0]).toBe(before.parts[0]); // the text
    expect(after.parts[1]).toBe(before.parts[1]); // call 0, result unchanged
    expect(after.parts[2]).not.toBe(before.parts[2]); // call 1 got its result
    expect(after.parts.slice(3).every((part, i) => part === before.parts[3 + i])).toBe(true);
    // Nothing changed: the very same items.
    const third = lineItems(copy([user, assistant, result(0), result(1)]), second);
    expect(third[1]).toBe(second[1]);
  });

  it('rebuilding from the first changed line gives what a full build gives, keeping every item and part before it', () => {
    // A storm-like session grown one line at a time, with writes landing (ids change), a stop,
    // a second user turn, repeated ids and a cut back (regenerate), checked after every change.
    const lines: ChatLine[] = [];
    let built: ReturnType<typeof lineItems> = [];
    let shown: ChatLine[] = [];
    const step = (from: number) => {
      const incremental = lineItems(lines, built, from);
      expect(incremental).toEqual(lineItems(lines));
      // Items wholly before the changed line are the previous objects.
      const kept = built.filter((item, i) => Number(built[i + 1]?.key.slice(1) ?? Infinity) <= from);
      kept.forEach((item, i) => expect(incremental[i]).toBe(item));
      // Inside the reply being rebuilt, the parts of earlier model replies are the previous objects.
      let lastAssistant = Math.min(from, lines.length) - 1;
      while (lastAssistant >= 0 && lines[lastAssistant]!.role !== 'assistant') lastAssistant--;
      const before = new Map(built.flatMap((item) => (item.kind === 'reply' ? item.parts : [])).map((part) => [part.key, part]));
      for (const item of incremental) {
        if (item.kind !== 'reply') continue;
        for (const part of item.parts) if (Number.parseInt(part.key.slice(1), 10) < lastAssistant && before.has(part.key)) expect(part).toBe(before.get(part.key));
      }
      built = incremental;
      shown = lines.slice();
    };
    const push = (line: Omit<ChatLine, 'seq'>) => {
      lines.push({ ...line, seq: lines.length });
      step(lines.length - 1);
    };
    const change = (at: number, patch: Partial<ChatLine>) => {
      lines[at] = { ...lines[at]!, ...patch };
      step(at);
    };
    push({ id: 'local:u1', role: 'user', content: 'storm' });
    change(0, { id: 'u1' });
    for (let reply = 0; reply < 3; reply++) {
      const replyCalls = Array.from({ length: 10 }, (_, i) => ({ id: i === 3 ? 'dup' : `r${reply}c${i}`, name: 'skills_list', arguments: '{}' }));
      push({ id: `local:a${reply}`, role: 'assistant', content: reply === 1 ? '' : `Reply ${reply}.`, toolCalls: replyCalls });
      for (const call of replyCalls) push({ id: `local:t${reply}${call.id}`, role: 'tool', content: `{"success":${call.id !== 'dup'}}`, toolCallId: call.id, name: 'skills_list' });
      change(lines.length - 5, { id: 'stored' });
    }
    // A reply stopped before its results: its calls are running, then the turn ends.
    push({ id: 'a-stop', role: 'assistant', content: '', toolCalls: [{ id: 'dup', name: 'skills_list', arguments: '{}' }] });
    change(lines.length - 1, { stopped: true });
    push({ id: 'u2', role: 'user', content: 'again' });
    push({ id: 'a-final', role: 'assistant', content: 'Done.' });
    // Regenerate: everything after the first user message goes, then a new reply.
    lines.length = 1;
    step(1);
    push({ id: 'a-new', role: 'assistant', content: 'Fresh.' });
    expect(shown.length).toBe(2);
  });

  it('matches hundreds of results to their calls (repeated ids in order)', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ id: i % 2 ? 'dup' : `c${i}`, name: 'skills_list', arguments: '{}' }));
    const lines: ChatLine[] = [user, { ...assistant, toolCalls: many }];
    many.forEach((call, i) => lines.push({ id: `t${i}`, seq: 2 + i, role: 'tool', content: `{"success":true,"n":${i}}`, toolCallId: call.id }));
    const reply = lineItems(lines)[1]!;
    if (reply.kind !== 'reply') throw new Error('expected a reply');
    const tools = reply.parts.filter((part) => part.kind === 'tool');
    expect(tools).toHaveLength(300);
    expect(tools.every((part, i) => part.kind === 'tool' && part.result === `{"success":true,"n":${i}}`)).toBe(true);
  });

  it('streams into the last reply only, and shows a stopping reply as stopped at once', () => {
    const stored = lineItems([user, assistant]);
    const live = withLive(stored, 2, { generating: true, draft: 'More' });
    expect(live[0]).toBe(stored[0]);
    const last = live[1]!;
    if (last.kind !== 'reply') throw new Error('expected a reply');
    expect(last.streaming).toBe(true);
    expect(last.parts.at(-1)).toEqual({ kind: 'text', key: 'draft', text: 'More', streaming: true });
    const stopping = withLive(stored, 2, { generating: false, draft: '', stopping: true });
    expect(stopping[1]).toMatchObject({ kind: 'reply', stopped: true, streaming: false });
    const beforeAnyReply = withLive(lineItems([user]), 1, { generating: false, draft: '', stopping: true });
    expect(beforeAnyReply.map((item) => item.kind)).toEqual(['user', 'reply']);
    expect(withLive(stored, 2, { generating: false, draft: '' })).toBe(stored);
  });

  it('folds the calls of one model reply into a group beyond the threshold, with counts', () => {
    const lines: ChatLine[] = [user, assistant, result(0), { ...result(1), content: '{"success":false,"error":"x"}' }];
    const reply = lineItems(lines)[1]!;
    if (reply.kind !== 'reply') throw new Error('expected a reply');
    const segments = replySegments(reply.parts);
    expect(segments.map((segment) => segment.kind)).toEqual(['text', 'group']);
    const group = segments[1]!;
    if (group.kind !== 'group') throw new Error('expected a group');
    expect(group.parts).toHaveLength(12);
    expect([group.ran, group.failed, group.running]).toEqual([1, 1, 10]);
    expect(group.parts[0]).toBe(reply.parts[1]);
    // At the threshold or below, the calls stay as they are.
    expect(replySegments(reply.parts, 12).map((segment) => segment.kind)).toEqual(['text', ...Array(12).fill('tool')]);
    // Calls of two model replies are two runs.
    const two = lineItems([user, { ...assistant, toolCalls: calls.slice(0, 9) }, { id: 'b', seq: 30, role: 'assistant', content: '', toolCalls: calls.slice(0, 3) }])[1]!;
    if (two.kind !== 'reply') throw new Error('expected a reply');
    expect(replySegments(two.parts).map((segment) => segment.kind)).toEqual(['text', 'group', 'tool', 'tool', 'tool']);
  });

  it('keeps a group object while its parts are the same, and makes a new one when a result lands', () => {
    const first = lineItems([user, assistant, result(0)]);
    const reply = first[1]!;
    if (reply.kind !== 'reply') throw new Error('expected a reply');
    const segments = replySegments(reply.parts);
    expect(replySegments(reply.parts, undefined, segments)[1]).toBe(segments[1]);
    const next = lineItems([user, assistant, result(0), result(1)], first)[1]!;
    if (next.kind !== 'reply') throw new Error('expected a reply');
    const after = replySegments(next.parts, undefined, segments)[1]!;
    expect(after).not.toBe(segments[1]);
    expect(after).toMatchObject({ kind: 'group', ran: 2, running: 10 });
  });
});
