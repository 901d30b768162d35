import { describe, expect, it } from 'vitest';
import { completeSlash, parseSlashCommand } from '../../src/agent/slashCommands';
import { buildSkillInvocation } from '../../src/skills/skillInvocation';

const skills = new Set(['tea', 'git-style']);

describe('slash commands', () => {
  it('parses the built-in commands', () => {
    expect(parseSlashCommand('/skills', skills)).toEqual({ kind: 'open', view: 'skills' });
    expect(parseSlashCommand('/memory', skills)).toEqual({ kind: 'open', view: 'memory' });
    expect(parseSlashCommand('/pending', skills)).toEqual({ kind: 'open', view: 'pending' });
    expect(parseSlashCommand('/new', skills)).toEqual({ kind: 'new-chat' });
    expect(parseSlashCommand('/search  blue   tea ', skills)).toEqual({ kind: 'search', query: 'blue   tea' });
  });

  it('loads a skill with the rest as the request; unknown names are reported', () => {
    expect(parseSlashCommand('/git-style write the message\nfor this', skills)).toEqual({ kind: 'skill', name: 'git-style', request: 'write the message\nfor this' });
    expect(parseSlashCommand('/nope hi', skills)).toEqual({ kind: 'unknown', name: 'nope' });
  });

  it('leaves ordinary text and paths alone', () => {
    expect(parseSlashCommand('hello /skills', skills)).toBeNull();
    expect(parseSlashCommand('//comment', skills)).toBeNull();
  });

  it('completes built-ins and skills by prefix', () => {
    const list = [{ name: 'tea', description: 'Brew tea.' }, { name: 'git-style', description: 'Git.' }];
    expect(completeSlash('/s', list).map((s) => s.command)).toEqual(['/skills', '/search']);
    expect(completeSlash('/t', list)).toEqual([{ command: '/tea', description: 'Brew tea.' }]);
    expect(completeSlash('/tea now', list)).toEqual([]);
    expect(completeSlash('/', list)).toHaveLength(7);
  });

  it('lists each command once when a skill is named like a built-in or two skills share a name', () => {
    const list = [
      { name: 'memory', description: 'A skill called memory.' },
      { name: 'meal-plan', description: 'Plan meals.' },
      { name: 'meal-plan', description: 'Another category, same name.' },
    ];
    const suggestions = completeSlash('/m', list);
    expect(suggestions).toEqual([
      { command: '/memory', description: 'Open memory' },
      { command: '/meal-plan', description: 'Plan meals.' },
    ]);
    expect(new Set(suggestions.map((s) => s.command)).size).toBe(suggestions.length);
    expect(parseSlashCommand('/memory', new Set(['memory']))).toEqual({ kind: 'open', view: 'memory' });
  });

  it('fills the limit with distinct commands after dropping repeats', () => {
    const list = Array.from({ length: 10 }, (_, i) => ({ name: i % 2 === 0 ? 'same' : `other-${i}`, description: '' }));
    const commands = completeSlash('/', list, 6).map((s) => s.command);
    expect(commands).toEqual(['/skills', '/memory', '/new', '/search', '/pending', '/same']);
  });

  it('wraps the skill and the request for the model', () => {
    const text = buildSkillInvocation('tea', '# Tea', '');
    expect(text).toContain('<skill name="tea">\n# Tea\n</skill>');
    expect(text.endsWith('Apply the tea skill.')).toBe(true);
  });
});
