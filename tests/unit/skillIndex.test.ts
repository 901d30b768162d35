import { describe, expect, it } from 'vitest';
import { indexNameOf, relevance, renderSkillIndex, SkillIndex } from '../../src/skills/skillIndex';
import { entryFromSkillMd, SkillCatalog } from '../../src/skills/skillCatalog';
import { MemoryFileStore } from '../../src/storage/memoryFileStore';

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
          referenceRelevance(indexNameOf(skill), skill.description, skill.tags, skill.category, messageWords),
        );
      }
    }
  });
});

/** A realistic library: long names, descriptions past 60 characters, 25 categories. */
function syntheticLibrary(count: number) {
  const verbs = ['deploying', 'reviewing', 'debugging', 'formatting', 'migrating', 'profiling', 'releasing', 'testing'];
  return Array.from({ length: count }, (_, i) => {
    const category = `category-${String(i % 25).padStart(2, '0')}`;
    const name = `${verbs[i % verbs.length]}-project-workflow-${String(i).padStart(5, '0')}`;
    const description = `Use when ${verbs[i % verbs.length]} project ${i}; covers the checks, pitfalls and the hand-off to the team.`;
    return entryFromSkillMd(`skills/${category}/${name}`, `---\nname: ${name}\ndescription: ${description}\n---\n\nbody\n`);
  });
}

const indexOptions = { platform: null, disabled: [], available: null, tokenBudget: 2500 };

describe('skill index budget is a hard cap', () => {
  for (const count of [100, 1_000, 10_000]) {
    it(`stays within 2,500 tokens at ${count} skills and accounts for every skill`, () => {
      const skills = syntheticLibrary(count);
      const target = skills[count - 1]!.name;
      const text = renderSkillIndex(skills, new Map(), { ...indexOptions, firstUserMessage: `help me with ${target.replace(/-/g, ' ')}` });
      expect(text.length).toBeLessThanOrEqual(2500 * 4);
      const fullLines = text.split('\n').filter((line) => line.startsWith('    - '));
      const names = text
        .split('\n')
        .filter((line) => line.startsWith('    [names only] '))
        .flatMap((line) => line.slice('    [names only] '.length).split(', '));
      const omitted = Number(/…and (\d+) more skills: use skills_list/.exec(text)?.[1] ?? 0);
      expect(fullLines.length + names.length + omitted).toBe(count);
      expect(fullLines.length).toBeGreaterThan(0);
      // The most relevant skill (every word of its name is in the message) has a full line.
      expect(text).toContain(`    - ${target}: `);
      if (count >= 1_000) expect(omitted).toBeGreaterThan(0);
    });
  }

  it('a library whose names all fit uses the rest of the budget for full lines', () => {
    const text = renderSkillIndex(syntheticLibrary(100), new Map(), indexOptions);
    expect(text).not.toContain('more skills: use skills_list');
    // The next full line (~110 characters) would not fit: the budget is used, not half of it.
    expect(text.length).toBeGreaterThan(2500 * 4 - 250);
    expect(text.length).toBeLessThanOrEqual(2500 * 4);
  });

  it('stays within small budgets too, down to one that holds nothing', () => {
    const skills = syntheticLibrary(300);
    for (const tokenBudget of [0, 10, 50, 200, 400, 800, 1_500]) {
      const text = renderSkillIndex(skills, new Map(), { ...indexOptions, tokenBudget });
      expect(text.length, `budget ${tokenBudget}`).toBeLessThanOrEqual(tokenBudget * 4);
    }
    expect(renderSkillIndex(skills, new Map(), { ...indexOptions, tokenBudget: 20 })).toBe('…and 300 more skills: use skills_list');
  });

  it('lists everything with full lines and category descriptions when it fits', () => {
    const skills = syntheticLibrary(30);
    const text = renderSkillIndex(skills, new Map(), { ...indexOptions, categoryDescriptions: new Map([['category-03', 'Ship things to production.']]) });
    expect(text).toContain('\n  category-03: Ship things to production.\n');
    expect(text).toContain('\n  category-04:\n');
    expect(text).not.toContain('[names only]');
    expect(text).not.toContain('more skills');
  });
});

describe('skill index names', () => {
  const skill = (dir: string, name: string) => entryFromSkillMd(dir, `---\nname: ${name}\ndescription: Use for ${name}.\n---\n\nbody\n`);

  it('lists a skill under its valid frontmatter name, else its folder name', () => {
    const text = renderSkillIndex(
      [skill('skills/tools/pdf-folder', 'pdf-helper'), skill('skills/tools/odd-folder', 'Not A Valid Name')],
      new Map(),
      indexOptions,
    );
    expect(text).toContain('    - pdf-helper: Use for pdf-helper.');
    expect(text).not.toContain('pdf-folder');
    expect(text).toContain('    - odd-folder: Use for Not A Valid Name.');
  });

  it('lists the same name in two categories in both, and once within one category', () => {
    const text = renderSkillIndex(
      [skill('skills/a/deploy', 'deploy'), skill('skills/b/deploy', 'deploy'), skill('skills/b/deploy-two', 'deploy')],
      new Map(),
      indexOptions,
    );
    expect(text).toContain('  a:\n    - deploy: Use for deploy. [unverified]\n  b:\n    - deploy: Use for deploy. [unverified]\n</available_skills>');
  });

  it('SkillIndex re-sorts a skill whose frontmatter name changes', async () => {
    const files = new MemoryFileStore();
    await files.write('skills/x/alpha/SKILL.md', '---\nname: alpha\ndescription: A.\n---\n\nbody\n');
    await files.write('skills/x/beta/SKILL.md', '---\nname: beta\ndescription: B.\n---\n\nbody\n');
    const catalog = new SkillCatalog(files);
    await catalog.load();
    const index = new SkillIndex(catalog, async () => new Map());
    await index.render(indexOptions);
    await catalog.upsert('skills/x/alpha', '---\nname: zeta\ndescription: A.\n---\n\nbody\n');
    const text = await index.render(indexOptions);
    expect(text).toContain('    - beta: B. [unverified]\n    - zeta: A. [unverified]\n');
    expect(text).toBe(renderSkillIndex(catalog.entries(), new Map(), indexOptions));
  });
});
