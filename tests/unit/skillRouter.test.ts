/**
 * The skill router (docs/gate.md, "Router"): the best match above the threshold, nothing for a
 * tie or a weak match, never a skill the user switched off, and when it is on by default.
 */
import { describe, expect, it } from 'vitest';
import { createSkillRouter, routerActive } from '../../src/skills/skillRouter';

const skills = [
  { name: 'changelog', description: 'Helps with assorted tasks.', prompts: ['Draft the changelog entry for build 7.'] },
  { name: 'meeting-notes', description: 'Use when summarising meeting notes.', prompts: [] },
  { name: 'fonts', description: 'Fonts for captions in quarterly reports', prompts: [] },
];

describe('createSkillRouter', () => {
  const route = createSkillRouter(skills);

  it('picks the skill whose name, description or case prompts match enough of the message', () => {
    expect(route('Please draft the changelog entry for build 300')?.name).toBe('changelog');
    expect(route('Summarise the meeting notes from today')?.name).toBe('meeting-notes');
  });

  it('picks nothing below the threshold: one shared word, or too small a share of the message', () => {
    expect(route('changelog')).toBeNull();
    expect(route('Write a poem about the sea and the wind, with rhymes, stanzas, imagery, and metre; changelog entry')).toBeNull();
    expect(route('')).toBeNull();
  });

  it('picks nothing when the two best are tied', () => {
    const twins = createSkillRouter([
      { name: 'alpha', description: 'Caption fonts for reports.', prompts: [] },
      { name: 'bravo', description: 'Caption fonts for reports.', prompts: [] },
    ]);
    expect(twins('Caption fonts for my reports')).toBeNull();
  });

  it('leaves a case prompt out when asked (a reach measurement), matching the other prompts only', () => {
    expect(route('Draft the changelog entry for build 7.', { exclude: 'Draft the changelog entry for build 7.' })).toBeNull();
    const two = createSkillRouter([{ ...skills[0]!, prompts: ['Draft the changelog entry for build 7.', 'Draft the changelog entry for build 8.'] }]);
    expect(two('Draft the changelog entry for build 7.', { exclude: 'Draft the changelog entry for build 7.' })?.name).toBe('changelog');
  });

  it('never picks a skill the user switched off', () => {
    expect(route('Please draft the changelog entry for build 300', { disabled: new Set(['changelog']) })).toBeNull();
  });
});

describe('routerActive', () => {
  it('auto: on for small windows and the text tool protocol; on and off as set', () => {
    expect(routerActive('auto', { window: 8192, textProtocol: false })).toBe(true);
    expect(routerActive('auto', { window: 32768, textProtocol: false })).toBe(false);
    expect(routerActive('auto', { window: null, textProtocol: false })).toBe(false);
    expect(routerActive(undefined, { window: null, textProtocol: true })).toBe(true);
    expect(routerActive('off', { window: 4096, textProtocol: true })).toBe(false);
    expect(routerActive('on', { window: null, textProtocol: false })).toBe(true);
  });
});
