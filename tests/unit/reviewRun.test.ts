import { describe, expect, it } from 'vitest';
import { reviewToolCall, runReview, stagedAny } from '../../src/review/reviewRun';
import { reviewPrompt } from '../../src/review/reviewPrompts';
import { fakeProvider } from './helpers/fakeProvider';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';
import { ToolRegistry } from '../../src/tools/toolRegistry';
import { ok } from '../../src/tools/toolResult';
import { countRequest } from '../../src/agent/contextBudget';
import { charCounter } from './helpers/charCounter';

const conversation = [
  { role: 'user' as const, content: 'Write the release note, and never use exclamation marks.' },
  { role: 'assistant' as const, content: 'Done. Released v2.' },
];

function withExtraTool(t: ReturnType<typeof createTestEngine>) {
  const registry = new ToolRegistry(t.registry.definitions());
  registry.register({ name: 'session_search', description: 'search', parameters: { type: 'object', properties: {}, required: [] }, run: async () => ok({}) });
  return registry;
}

describe('review run', () => {
  it('creates an agent-owned skill with evals, and reports it as a notice', async () => {
    const t = createTestEngine();
    const { provider, requests } = fakeProvider([
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'create', name: 'release-notes', content: skillContent('release-notes', 'Use when writing release notes.') }) }] },
      { toolCalls: [{ name: 'skill_manage', arguments: JSON.stringify({ action: 'write_file', name: 'release-notes', file_path: 'evals/evals.json', file_content: '{"skill_name":"release-notes","evals":[]}' }) }] },
      { text: 'Saved a release-notes skill.' },
    ]);
    const outcome = await runReview({ provider, tools: t.registry, kind: 'skills', sessionMessages: conversation, systemPrompt: 'SYS' });
    expect(outcome.end).toBe('final');
    expect(outcome.toolCalls.map((c) => c.success)).toEqual([true, true]);
    expect(outcome.notices).toEqual(['Learned: skill `release-notes` created — unverified', 'Learned: skill `release-notes` extended — unverified']);
    expect((await t.engine.usage.get('release-notes')).created_by).toBe('agent');
    const last = requests[0]!.messages.at(-1)!;
    expect(last).toEqual({ role: 'user', content: reviewPrompt('skills') });
    expect(requests[0]!.tools!.map((tool) => tool.name).sort()).toEqual(['skill_manage', 'skill_view', 'skills_list']);
  });

  it('cannot patch a user-created skill, nor a file it has not viewed', async () => {
    const t = createTestEngine();
    await t.manage({ action: 'create', name: 'mine', content: skillContent('mine') });
    await t.manage({ action: 'create', name: 'learned', content: skillContent('learned') }, t.context('review'));
    const { provider } = fakeProvider([
      { toolCalls: [
        { name: 'skill_view', arguments: '{"name":"mine"}' },
        { name: 'skill_manage', arguments: '{"action":"patch","name":"mine","old_string":"Do the thing.","new_string":"x"}' },
        { name: 'skill_manage', arguments: '{"action":"patch","name":"learned","old_string":"Do the thing.","new_string":"x"}' },
      ] },
      { text: 'Nothing to save.' },
    ]);
    const outcome = await runReview({ provider, tools: t.registry, kind: 'skills', sessionMessages: conversation, systemPrompt: 'SYS' });
    const [, userPatch, unreadPatch] = outcome.toolCalls.map((c) => JSON.parse(c.result));
    expect(userPatch.error).toContain('not agent-created');
    expect(unreadPatch._read_before_write_required).toBe(true);
    expect(outcome.finalText).toBe('Nothing to save.');
    expect(outcome.notices).toEqual([]);
    expect(await t.files.readText('skills/mine/SKILL.md')).toBe(skillContent('mine'));
  });

  it('tools outside the four are refused in the result', async () => {
    const t = createTestEngine();
    const { provider } = fakeProvider([{ toolCalls: [{ name: 'session_search', arguments: '{}' }] }, { text: 'Nothing to save.' }]);
    const outcome = await runReview({ provider, tools: withExtraTool(t), kind: 'skills', sessionMessages: conversation, systemPrompt: 'SYS' });
    expect(JSON.parse(outcome.toolCalls[0]!.result).error).toContain('may not call');
  });

  it('stops at 16 model calls', async () => {
    const t = createTestEngine();
    const { provider } = fakeProvider(Array.from({ length: 30 }, () => ({ toolCalls: [{ name: 'skills_list', arguments: '{}' }] })));
    const outcome = await runReview({ provider, tools: t.registry, kind: 'skills', sessionMessages: conversation, systemPrompt: 'SYS' });
    expect(outcome.modelCalls).toBe(16);
    expect(outcome.end).toBe('iteration-limit');
  });

  it('combined prompt asks for memory first, then skills', () => {
    const text = reviewPrompt('combined');
    expect(text.indexOf('memory tool')).toBeLessThan(text.indexOf('reusable procedure'));
    expect(text).toContain('evals/evals.json');
    expect(text).toContain('Nothing to save.');
  });
});

describe('review tool calls from structured outcomes', () => {
  it('takes staged and gist from the outcome fields, never from the text', () => {
    const staged = reviewToolCall({ name: 'memory', arguments: '{}' }, 'text the model got', { success: true, staged: true, gist: 'add to USER.md' });
    expect(staged).toEqual({ name: 'memory', arguments: '{}', result: 'text the model got', success: true, staged: true, gist: 'add to USER.md' });
    // A result whose text mentions "staged": true but whose outcome does not is not staged.
    const plain = reviewToolCall({ name: 'skill_view', arguments: '{}' }, '{"success":true,"content":"\\"staged\\": true"}', { success: true, content: '"staged": true' });
    expect(plain.staged).toBeUndefined();
    expect(stagedAny([plain])).toBe(false);
    expect(stagedAny([plain, staged])).toBe(true);
    const failed = reviewToolCall({ name: 'memory', arguments: '{}' }, '{}', { success: false, error: 'no', staged: true });
    expect(stagedAny([failed])).toBe(false);
  });
});

describe('review on a small window', () => {
  it('fits every call to the review model’s window, keeping the latest turn with the user’s correction', async () => {
    const t = createTestEngine();
    const long = [];
    for (let turn = 0; turn < 60; turn++) {
      long.push({ role: 'user' as const, content: `Question ${turn}: ${'some words about the task '.repeat(8)}` });
      long.push({ role: 'assistant' as const, content: `Answer ${turn}: ${'a long answer with many details '.repeat(20)}` });
    }
    long.push({ role: 'user' as const, content: 'No: never use exclamation marks in release notes.' });
    long.push({ role: 'assistant' as const, content: 'Understood, fixed.' });
    const { provider, requests } = fakeProvider([
      { toolCalls: [{ name: 'skills_list', arguments: '{}' }] },
      { text: 'Nothing to save.' },
    ]);
    const outcome = await runReview({ provider, tools: t.registry, kind: 'skills', sessionMessages: long, systemPrompt: 'SYS', window: { window: { tokens: 4096, source: 'reported' }, counter: charCounter } });
    expect(outcome.end).toBe('final');
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const [system, ...messages] = request.messages;
      expect(countRequest(charCounter, system!.content, messages, request.tools) + request.maxTokens!).toBeLessThanOrEqual(4096);
      expect(messages.some((m) => m.content.includes('never use exclamation marks'))).toBe(true);
      expect(messages.some((m) => m.content === reviewPrompt('skills'))).toBe(true);
      expect(messages.some((m) => m.content.startsWith('Question 0:'))).toBe(false);
    }
  });
});
