import { describe, expect, it } from 'vitest';
import { categoryDescriptionOf, scanLibrary, skillPlace } from '../../src/skills/skillCatalog';
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
