/**
 * reviewTranscript: what a background review reads of a session — unchanged when short; for a
 * tool storm, a few calls per reply with their results, long results cut, only the end of a
 * very long session; always calls and results paired.
 */
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../src/providers/provider';
import { REVIEW_CALLS_PER_REPLY, REVIEW_MAX_MESSAGES, REVIEW_RESULT_CHARS, reviewTranscript } from '../../src/review/reviewTranscript';

function stormReply(reply: number, calls: number): ChatMessage[] {
  const toolCalls = Array.from({ length: calls }, (_, i) => ({ id: `r${reply}c${i}`, name: i % 2 ? 'skill_view' : 'skills_list', arguments: '{}' }));
  return [
    { role: 'assistant', content: `Checking ${reply}.`, toolCalls },
    ...toolCalls.map((call): ChatMessage => ({ role: 'tool', toolCallId: call.id, name: call.name, content: `{"success":true,"reply":${reply}}` })),
  ];
}

function expectPaired(messages: readonly ChatMessage[]): void {
  const calls = new Set(messages.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)));
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId!);
  expect(new Set(results)).toEqual(calls);
}

describe('reviewTranscript', () => {
  it('copies a short session unchanged, as new objects', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'Clean up this CSV.' }, ...stormReply(0, 2), { role: 'assistant', content: 'Done.' }];
    const transcript = reviewTranscript(messages);
    expect(transcript).toEqual(messages);
    expect(transcript[1]).not.toBe(messages[1]);
    expect(transcript[1]!.toolCalls![0]).not.toBe(messages[1]!.toolCalls![0]);
  });

  it('keeps a few calls of a storm reply with their results and says what was left out', () => {
    const transcript = reviewTranscript([{ role: 'user', content: 'storm' }, ...stormReply(0, 200)]);
    expect(transcript[1]!.toolCalls).toHaveLength(REVIEW_CALLS_PER_REPLY);
    expect(transcript[1]!.content).toContain('192 more tool calls');
    expect(transcript[1]!.content).toContain('skills_list ×96, skill_view ×96');
    expect(transcript.filter((m) => m.role === 'tool')).toHaveLength(REVIEW_CALLS_PER_REPLY);
    expectPaired(transcript);
  });

  it('cuts a long tool result and keeps only the end of a very long session, starting at a non-tool message', () => {
    const long: ChatMessage = { role: 'tool', toolCallId: 'big', name: 'skill_view', content: 'x'.repeat(REVIEW_RESULT_CHARS + 500) };
    const first = reviewTranscript([{ role: 'user', content: 'view' }, { role: 'assistant', content: '', toolCalls: [{ id: 'big', name: 'skill_view', arguments: '{}' }] }, long]);
    expect(first[2]!.content.startsWith('x'.repeat(REVIEW_RESULT_CHARS))).toBe(true);
    expect(first[2]!.content).toContain('500 more characters left out');

    const session: ChatMessage[] = [{ role: 'user', content: 'storm' }];
    for (let reply = 0; reply < 80; reply++) session.push(...stormReply(reply, 200));
    session.push({ role: 'assistant', content: 'Finally done.' });
    const transcript = reviewTranscript(session);
    expect(transcript.length).toBeLessThanOrEqual(REVIEW_MAX_MESSAGES);
    expect(transcript[0]).toMatchObject({ role: 'user', content: expect.stringContaining('earlier messages of this conversation are left out') });
    expect(transcript[1]!.role).not.toBe('tool');
    expect(transcript.at(-1)).toEqual({ role: 'assistant', content: 'Finally done.' });
    expectPaired(transcript.slice(1));
  });
});
