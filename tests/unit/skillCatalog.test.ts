import { describe, expect, it } from 'vitest';
import { skillPlace } from '../../src/skills/skillCatalog';
import { splitPath } from '../../src/storage/fileStore';

describe('skill place', () => {
  it('takes name and category from any directory form as splitting the path would', () => {
    for (const dir of ['skills', 'skills/a', 'skills/x/y/a', '', 'skills//a', 'skills/./a/', '/skills/a', './skills/c/a', 'skills/c/.', 'skills/c/./a']) {
      const parts = splitPath(dir).slice(1);
      expect(skillPlace(dir), dir).toEqual({ name: parts[parts.length - 1] ?? '', category: parts.length > 1 ? parts.slice(0, -1).join('/') : null });
    }
  });
});
