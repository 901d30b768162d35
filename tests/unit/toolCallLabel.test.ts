import { describe, expect, it } from 'vitest';
import { toolCallLabel, type ToolCallState } from '../../src/agent/toolCallLabel';

const all = (name: string, args: unknown): Record<ToolCallState, string> => {
  const json = typeof args === 'string' ? args : JSON.stringify(args);
  return { running: toolCallLabel(name, json, 'running'), done: toolCallLabel(name, json, 'done'), failed: toolCallLabel(name, json, 'failed') };
};

describe('toolCallLabel', () => {
  it('says what each skill_manage action did to which skill', () => {
    expect(all('skill_manage', { action: 'create', name: 'release-notes', content: '---' })).toEqual({
      running: 'Saving skill release-notes…',
      done: 'Saved skill release-notes',
      failed: 'Could not save skill release-notes',
    });
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'edit', name: 'tea' }), 'done')).toBe('Rewrote skill tea');
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'patch', name: 'tea' }), 'done')).toBe('Updated skill tea');
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'delete', name: 'tea' }), 'failed')).toBe('Could not delete skill tea');
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'write_file', name: 'tea', file_path: 'references/temps.md' }), 'done')).toBe(
      'Added references/temps.md to skill tea',
    );
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'remove_file', name: 'tea', file_path: 'references/temps.md' }), 'running')).toBe(
      'Removing references/temps.md from skill tea…',
    );
    expect(toolCallLabel('skill_manage', JSON.stringify({ action: 'frobnicate', name: 'tea' }), 'done')).toBe('Changed skill tea');
  });

  it('names the skill and file skill_view read, and the category skills_list listed', () => {
    expect(all('skill_view', { name: 'tea' })).toEqual({ running: 'Reading skill tea…', done: 'Read skill tea', failed: 'Could not read skill tea' });
    expect(toolCallLabel('skill_view', JSON.stringify({ name: 'tea', file_path: 'references/a.md' }), 'done')).toBe('Read references/a.md of skill tea');
    expect(toolCallLabel('skills_list', '{}', 'done')).toBe('Listed skills');
    expect(toolCallLabel('skills_list', JSON.stringify({ category: 'kitchen' }), 'running')).toBe('Listing skills in kitchen…');
  });

  it('says where memory changed, one change or several', () => {
    expect(toolCallLabel('memory', JSON.stringify({ action: 'add', content: 'x' }), 'done')).toBe('Saved a note to memory');
    expect(toolCallLabel('memory', JSON.stringify({ action: 'add', target: 'user', content: 'x' }), 'done')).toBe('Saved a note to the user profile');
    expect(toolCallLabel('memory', JSON.stringify({ action: 'replace', old_text: 'a', content: 'b' }), 'failed')).toBe('Could not update an entry in memory');
    expect(toolCallLabel('memory', JSON.stringify({ action: 'remove', target: 'user', old_text: 'a' }), 'done')).toBe('Removed an entry from the user profile');
    expect(toolCallLabel('memory', JSON.stringify({ operations: [{}, {}] }), 'done')).toBe('Changed memory (2 changes)');
    expect(toolCallLabel('memory', JSON.stringify({ operations: [{}] , target: 'user'}), 'done')).toBe('Changed the user profile (1 change)');
  });

  it('quotes what session_search looked for', () => {
    expect(all('session_search', { query: 'descale kettle' })).toEqual({
      running: 'Searching past chats for “descale kettle”…',
      done: 'Searched past chats for “descale kettle”',
      failed: 'Could not search past chats for “descale kettle”',
    });
    expect(toolCallLabel('session_search', '{}', 'done')).toBe('Searched past chats');
  });

  it('cuts long values and copes with unreadable or missing arguments and unknown tools', () => {
    const long = toolCallLabel('session_search', JSON.stringify({ query: 'word '.repeat(40) }), 'done');
    expect(long.length).toBeLessThan(100);
    expect(long).toMatch(/…”$/);
    expect(toolCallLabel('skill_view', '{not json', 'done')).toBe('Read skill (no name)');
    expect(toolCallLabel('skill_manage', '[1,2]', 'done')).toBe('Changed skill (no name)');
    expect(toolCallLabel('weather', '{}', 'done')).toBe('Called weather');
    expect(toolCallLabel('weather', '{}', 'failed')).toBe('Could not call weather');
  });
});

describe('forged tools', () => {
  it('say what ran and its output, with the number written for people', () => {
    const result = JSON.stringify({ success: true, message: 'Ran vat-total.', tool: 'vat-total', output: 1234.5 });
    expect(toolCallLabel('pricing__vat-total', '{"net":1000}', 'done', result)).toBe('Ran vat-total: 1,234.50');
    expect(toolCallLabel('pricing__vat-total', '{}', 'running')).toBe('Running vat-total…');
    expect(toolCallLabel('pricing__vat-total', '{}', 'failed', JSON.stringify({ success: false, error: 'x' }))).toBe('Could not run vat-total');
    expect(toolCallLabel('pricing__slug', '{}', 'done', JSON.stringify({ success: true, tool: 'slug', output: 'hello-world' }))).toBe('Ran slug: hello-world');
    expect(toolCallLabel('pricing__count', '{}', 'done', JSON.stringify({ success: true, tool: 'count', output: 12000 }))).toBe('Ran count: 12,000');
  });
});
