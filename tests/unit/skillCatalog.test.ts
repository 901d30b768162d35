import { describe, expect, it } from 'vitest';
import { SkillCatalog, categoryDescriptionOf, scanLibrary, skillPlace } from '../../src/skills/skillCatalog';
import { CancelledError, type Progress } from '../../src/storage/progress';
import { MemoryFileStore } from '../../src/storage/memoryFileStore';
import { splitPath } from '../../src/storage/fileStore';

describe('skill place', () => {
  it('takes name and category from any directory form as splitting the path would', () => {
    for (const dir of ['skills', 'skills/a', 'skills/x/y/a', '', 'skills//a', 'skills/./a/', '/skills/a', './skills/c/a', 'skills/c/.', 'skills/c/./a']) {
      const parts = splitPath(dir).slice(1);
      expect(skillPlace(dir), dir).toEqual({ name: parts[parts.length - 1] ?? '', category: parts.length > 1 ? parts.slice(0, -1).join('/') : null });
    }
  });
});

describe('library scan (nested skills, category descriptions)', () => {
  it('finds nested skills, leaves SKILL.md under support folders as files, and reads DESCRIPTION.md of category folders', async () => {
    const files = new MemoryFileStore();
    const md = (name: string) => `---\nname: ${name}\ndescription: Use for ${name}.\n---\n\nbody\n`;
    await files.write('skills/top/SKILL.md', md('top'));
    await files.write('skills/top/child/SKILL.md', md('child'));
    await files.write('skills/top/child/grandchild/SKILL.md', md('grandchild'));
    await files.write('skills/top/references/fake/SKILL.md', md('fake'));
    await files.write('skills/top/templates/x/SKILL.md', md('x'));
    await files.write('skills/top/node_modules/dep/SKILL.md', md('dep'));
    await files.write('skills/ops/DESCRIPTION.md', 'Running services.\n\nSecond paragraph.\n');
    await files.write('skills/ops/infra/DESCRIPTION.md', '---\ndescription: Infrastructure.\n---\n');
    await files.write('skills/ops/infra/terraform/SKILL.md', md('terraform'));
    await files.write('skills/top/DESCRIPTION.md', 'A skill folder is no category.\n');
    const scan = await scanLibrary(files);
    expect(scan.skills.map((s) => s.dir)).toEqual(['skills/ops/infra/terraform', 'skills/top', 'skills/top/child', 'skills/top/child/grandchild']);
    expect([...scan.categoryDescriptions].sort()).toEqual([
      ['ops', 'Running services.'],
      ['ops/infra', 'Infrastructure.'],
    ]);
  });

  it('takes the frontmatter description, else the first paragraph that is not a heading', () => {
    expect(categoryDescriptionOf('---\ndescription: From frontmatter.\n---\n\nBody.\n')).toBe('From frontmatter.');
    expect(categoryDescriptionOf('# Title\n\nFirst  real\nparagraph.\n\nNext.\n')).toBe('First real paragraph.');
    expect(categoryDescriptionOf('')).toBe('');
  });
});

describe('rescan progress and cancel', () => {
  const md = (name: string) => `---\nname: ${name}\ndescription: Use for ${name}.\n---\n\nbody\n`;

  async function library(count: number): Promise<MemoryFileStore> {
    const files = new MemoryFileStore();
    for (let i = 0; i < count; i++) await files.write(`skills/c${i % 3}/s${i}/SKILL.md`, md(`s${i}`));
    return files;
  }

  it('reports folders read of folders found, ending with every folder read', async () => {
    const files = await library(12);
    const seen: Progress[] = [];
    const catalog = new SkillCatalog(files);
    // Throttled to one report per 50 ms: the first, phase changes and the final count get through.
    await catalog.rescan({ onProgress: (progress) => seen.push(progress) });
    expect(catalog.size).toBe(12);
    const reading = seen.filter((p) => p.phase === 'Reading skills');
    expect(reading.length).toBeGreaterThan(0);
    expect(reading.at(-1)).toMatchObject({ done: 16, total: 16 }); // root, 3 categories, 12 skills
    expect(seen.at(-1)).toMatchObject({ phase: 'Saving the skill index', done: 12, total: 12 });
  });

  it('a cancelled rescan throws CancelledError and leaves the catalogue as it was', async () => {
    const files = await library(6);
    const catalog = new SkillCatalog(files);
    await catalog.rescan();
    await files.write('skills/c0/new-one/SKILL.md', md('new-one'));
    const controller = new AbortController();
    const run = catalog.rescan({ signal: controller.signal, onProgress: () => controller.abort() });
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(catalog.size).toBe(6);
    expect(catalog.findByName('new-one')).toEqual([]);
  });

  it('an already aborted signal reads nothing', async () => {
    const files = await library(3);
    const catalog = new SkillCatalog(files);
    const controller = new AbortController();
    controller.abort();
    await expect(catalog.rescan({ signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
    expect(catalog.size).toBe(0);
  });
});
