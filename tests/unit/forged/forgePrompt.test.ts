import { describe, expect, it } from 'vitest';
import { reviewPrompt } from '../../../src/review/reviewPrompts';

describe('the review forges tools', () => {
  it('says when a procedure belongs in code and when judgment belongs in SKILL.md, with the three files and 6 cases', () => {
    for (const kind of ['skills', 'combined'] as const) {
      const prompt = reviewPrompt(kind);
      expect(prompt).toContain('Judgment goes into SKILL.md; a deterministic procedure goes into code.');
      expect(prompt).toContain('tools/<tool-name>.json');
      expect(prompt).toContain('function run(input)');
      expect(prompt).toContain('evals/tool-cases.json');
      expect(prompt).toContain('at least 6 cases');
      expect(prompt).toContain('development_failures');
    }
    expect(reviewPrompt('memory')).not.toContain('tools/<tool-name>');
  });
});
