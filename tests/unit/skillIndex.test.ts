import { describe, expect, it } from 'vitest';
import { relevance } from '../../src/skills/skillIndex';
import { entryFromSkillMd } from '../../src/skills/skillCatalog';

/** The definition relevance() must keep: shared words, name words counting double. */
function referenceRelevance(name: string, description: string, tags: string[], category: string | null, messageWords: Set<string>): number {
  const haystack = `${name} ${description} ${tags.join(' ')} ${category ?? ''}`.toLowerCase();
  if (![...messageWords].some((word) => haystack.includes(word))) return 0;
  const words = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2);
  let score = 0;
  for (const word of words(name)) if (messageWords.has(word)) score += 2;
  for (const word of words(`${description} ${tags.join(' ')} ${category ?? ''}`)) if (messageWords.has(word)) score += 1;
  return score;
}

function entry(dir: string, description: string, tags: string[] = []) {
  return entryFromSkillMd(dir, `---\nname: x\ndescription: ${JSON.stringify(description)}\nmetadata:\n  hermes:\n    tags: [${tags.join(', ')}]\n---\n\nbody\n`);
}

describe('skill index relevance', () => {
  const skills = [
    entry('skills/ops/deploy-app', 'Use when DEPLOYING the Web App.'),
    entry('skills/Ops/Release', 'Ship it', ['DEPLOY', 'web']),
    entry('skills/i18n/turkish', 'İstanbul deploy notes: KELVIN sign \u212A and ﬁ ligature'),
    entry('skills/misc/unrelated', 'Nothing shared at all'),
    entry('skills/top-level', 'Applies to apples, appendix and apps'),
    entry('skills/ünïcode/naïve-skill', 'Café déploiement web'),
  ];
  const messages = [
    new Set(['deploy', 'the', 'web', 'app']),
    new Set(['istanbul', 'kelvin']),
    new Set(['fi', 'ligature']),
    new Set(['café', 'web']),
    new Set(['Deploy']),
    new Set(['a.b', 'web app']),
    new Set<string>(),
  ];

  it('scores every skill as lower-casing its whole text would, for plain, upper-case and non-ASCII text', () => {
    for (const messageWords of messages) {
      for (const skill of skills) {
        expect(relevance(skill, messageWords), `${skill.dir} / ${[...messageWords].join(',')}`).toBe(
          referenceRelevance(skill.name, skill.description, skill.tags, skill.category, messageWords),
        );
      }
    }
  });
});
