/**
 * SPEC §17 "skill index for 100 skills ≤ 2,500 tokens": the index the system prompt gets for
 * 100 realistic skills (descriptions longer than 60 characters, so every line shows a full
 * cut description), spread over categories, with a mix of labels. Tokens are counted as the
 * renderer budgets them: characters / 4 (SPEC §7).
 *
 * `tokens` is the index rendered with the app's default settings (the figure the budget is
 * about). `tokensAllFullLines` renders the same skills with no budget pressure, so the JSON
 * also shows whether 100 skills fit with a full line each or the renderer had to fall back to
 * names only (`fullLines` < 100).
 */
import type { BrowserBench } from './types';
import { entryFromSkillMd } from '../../src/skills/skillCatalog';
import { CHARS_PER_TOKEN, renderSkillIndex, type IndexOptions, type SkillLabel } from '../../src/skills/skillIndex';
import { defaultSkillSettings } from '../../src/skills/skillEngine';

const SKILLS = 100;
const CATEGORIES = ['git', 'deploy', 'testing', 'writing', 'data', 'frontend', 'backend', 'ops', 'security', 'research'];
const TOPICS = ['release notes', 'flaky test triage', 'database migration', 'code review', 'incident report', 'api pagination', 'css layout', 'dependency upgrade', 'log analysis', 'changelog entry'];
const VERBS = ['Use when', 'Follow when', 'Apply when'];

function skillMd(i: number): { dir: string; text: string } {
  const category = CATEGORIES[i % CATEGORIES.length]!;
  const topic = TOPICS[Math.floor(i / CATEGORIES.length) % TOPICS.length]!;
  const name = `${topic.replace(/\s+/g, '-')}-${category}-${i}`;
  // ~90 characters: the index cuts it to 60 (57 + "...").
  const description = `${VERBS[i % VERBS.length]} handling ${topic} in ${category} work; covers checks, pitfalls and hand-off.`;
  return {
    dir: `skills/${category}/${name}`,
    text: `---\nname: ${name}\ndescription: ${description}\nmetadata:\n  hermes:\n    tags: [${category}, ${topic.split(' ')[0]}]\n---\n\n# ${name}\n`,
  };
}

function tokensOf(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

const skillIndexTokens100: BrowserBench = {
  name: 'skillIndexTokens100',
  async run() {
    const entries = Array.from({ length: SKILLS }, (_, i) => {
      const { dir, text } = skillMd(i);
      return entryFromSkillMd(dir, text);
    });
    const labels = new Map<string, SkillLabel>();
    entries.forEach((entry, i) => {
      if (i % 3 === 0) labels.set(entry.name, { verification: 'promoted', state: 'active' });
    });
    const options: IndexOptions = {
      platform: defaultSkillSettings.platform,
      disabled: defaultSkillSettings.disabled,
      available: null,
      tokenBudget: defaultSkillSettings.indexTokenBudget,
      firstUserMessage: 'write the release notes for this week',
    };
    const index = renderSkillIndex(entries, labels, options);
    const unconstrained = renderSkillIndex(entries, labels, { ...options, tokenBudget: Number.MAX_SAFE_INTEGER });
    const fullLines = index.split('\n').filter((line) => line.startsWith('    - ')).length;
    if (!unconstrained.includes(entries[0]!.name)) throw new Error('rendered index lists no skill');
    return {
      skills: SKILLS,
      tokenBudget: options.tokenBudget,
      chars: index.length,
      tokens: tokensOf(index),
      fullLines,
      tokensAllFullLines: tokensOf(unconstrained),
    };
  },
};

export const benches: BrowserBench[] = [skillIndexTokens100];
