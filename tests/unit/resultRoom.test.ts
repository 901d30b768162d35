import { describe, expect, it } from 'vitest';
import { MIN_PART_CHARS, partNote, textPart } from '../../src/tools/resultRoom';
import { createWriteContext } from '../../src/tools/writeContext';
import { runAgentTurn } from '../../src/agent/agentLoop';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { ok } from '../../src/tools/toolResult';
import { fakeProvider } from './helpers/fakeProvider';
import { runSessionSearch } from '../../src/sessions/sessionSearchTool';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

const longBody = Array.from({ length: 400 }, (_, n) => `Step ${n}: do part ${n} of the long procedure carefully.`).join('\n');

describe('textPart', () => {
  it('shows the whole text when it fits or no room is set', () => {
    expect(textPart('short')).toEqual({ text: 'short', from: 0, to: 5, total: 5, nextOffset: null });
    expect(partNote(textPart('short', 0, 10_000), 'x')).toBeNull();
  });

  it('cuts at a line end within the room; the parts put back together are the text', () => {
    const parts = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const part = textPart(longBody, offset, 2_000);
      expect(part.text.length).toBeLessThanOrEqual(2_000);
      parts.push(part.text);
      offset = part.nextOffset;
    }
    expect(parts.length).toBeGreaterThan(5);
    expect(parts.join('')).toBe(longBody);
    expect(parts[0]!.endsWith('\n')).toBe(true);
  });

  it('never cuts below the smallest useful part', () => {
    expect(textPart(longBody, 0, 10).text.length).toBeGreaterThanOrEqual(MIN_PART_CHARS / 2);
  });
});

describe('skill_view within the room the window has left', () => {
  it('shows a long skill in parts with a note on how to read on', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'long-one', content: skillContent('long-one', 'Use for long things.', longBody) });
    const context = { ...createWriteContext('foreground'), resultRoomChars: 3_000 };
    const first = await t.registry.dispatchOutcome('skill_view', { name: 'long-one' }, context);
    expect(first).toMatchObject({ success: true });
    expect(String(first.content).length).toBeLessThanOrEqual(3_000);
    expect(String(first.part_note)).toContain("skill_view(name='long-one', offset=");
    const next = (first.content_part as { next_offset: number }).next_offset;
    const second = await t.registry.dispatchOutcome('skill_view', { name: 'long-one', offset: next }, context);
    expect((second.content_part as { from: number }).from).toBe(next);
    const whole = await t.registry.dispatchOutcome('skill_view', { name: 'long-one' }, createWriteContext('foreground'));
    expect(whole.content_part).toBeUndefined();
    expect(String(whole.content)).toContain('Step 399');
  });
});

describe('the agent loop gives tools the room left', () => {
  it('shares the prepared call’s room among the reply’s calls', async () => {
    const seen: (number | undefined)[] = [];
    const registry = new ToolRegistry([
      { name: 'probe', description: 'probe', parameters: { type: 'object', properties: {}, required: [] }, run: async (_args, context) => (seen.push(context.resultRoomChars), ok({})) },
    ]);
    const { provider } = fakeProvider([{ toolCalls: [{ name: 'probe', arguments: '{}' }, { name: 'probe', arguments: '{}' }] }, { text: 'done' }]);
    await runAgentTurn({
      provider,
      registry,
      context: createWriteContext('foreground'),
      systemPrompt: 'S',
      history: [{ role: 'user', content: 'go' }],
      counters: { itersSinceSkill: 0, turnsSinceMemory: 0 },
      intervals: { creationNudgeInterval: 0, memoryNudgeInterval: 0 },
      maxIterations: 4,
      prepareCall: async (added) => ({ systemPrompt: 'S', messages: [{ role: 'user', content: 'go' }, ...added], resultRoomTokens: 1_000 }),
    });
    expect(seen).toEqual([1_500, 1_500]);
  });
});

describe('session_search within the room the window has left', () => {
  const hit = (n: number) => ({
    sessionId: `s${n}`,
    title: `Chat ${n}`,
    date: '2026-12-01',
    matchCount: 3,
    snippets: [1, 2, 3].map((k) => ({ role: 'user', text: `snippet ${k} of chat ${n}: ${'words about heron '.repeat(10)}` })),
  });
  const search = { search: async () => Array.from({ length: 8 }, (_, n) => hit(n)) } as never;

  it('keeps one snippet per session and drops the weakest matches, saying how many', async () => {
    const context = { ...createWriteContext('foreground'), resultRoomChars: 1_200 };
    const result = await runSessionSearch({ search }, { query: 'heron' }, context);
    const results = result.results as { session_id: string; snippets: string[] }[];
    expect(result.success).toBe(true);
    expect(JSON.stringify(results).length).toBeLessThanOrEqual(1_200);
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThan(8);
    expect(results[0]!.session_id).toBe('s0');
    expect(results.every((entry) => entry.snippets.length === 1)).toBe(true);
    expect(result.note).toBe(`${8 - results.length} more matching session(s) left out to fit your context window; search with more exact words to see them.`);
  });

  it('returns everything when no room is set', async () => {
    const result = await runSessionSearch({ search }, { query: 'heron' }, createWriteContext('foreground'));
    expect(result.results).toHaveLength(8);
    expect(result.note).toBeUndefined();
  });
});
