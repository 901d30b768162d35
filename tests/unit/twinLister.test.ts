/**
 * The Skills view's possible duplicates (app/twinServices.ts, docs/learning-loop.md "Possible
 * duplicates"): what was read of each skill is kept until that skill changes, so a reload after
 * one change reads one skill, not the library.
 */
import { describe, expect, it } from 'vitest';
import { TwinLister } from '../../src/app/twinServices';
import type { SkillServices } from '../../src/app/skillServices';

const CSV = 'Read the CSV file, detect the delimiter, trim whitespace in every header cell, drop empty rows, and write UTF-8 output.';

/** A library in memory that counts its reads; `fail` makes the next read of a skill throw. */
function library(texts: Record<string, string>) {
  const reads: string[] = [];
  const fail = new Set<string>();
  const skills = {
    engine: { catalog: { entries: () => Object.keys(texts).map((name) => ({ name })) } },
    readSkillFile: async (name: string, path: string) => {
      if (path !== 'SKILL.md') return null;
      reads.push(name);
      if (fail.delete(name)) throw new Error(`cannot read ${name}`);
      return texts[name] === undefined ? null : new TextEncoder().encode(texts[name]);
    },
  } as unknown as SkillServices;
  return { skills, reads, fail, texts };
}

const skill = (name: string, description: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

describe('TwinLister', () => {
  it('reads each skill once, then only the skills said to have changed', async () => {
    const lib = library({
      'csv-cleanup': skill('csv-cleanup', 'Clean a CSV export.', CSV),
      'tidy-csv': skill('tidy-csv', 'Tidy a CSV export.', CSV),
      tea: skill('tea', 'Brew green tea.', 'Heat water to 80 degrees and steep for two minutes.'),
    });
    const lister = new TwinLister(lib.skills);
    expect((await lister.list()).map((pair) => [pair.a, pair.b])).toEqual([['csv-cleanup', 'tidy-csv']]);
    expect(lib.reads.sort()).toEqual(['csv-cleanup', 'tea', 'tidy-csv']);

    lib.reads.length = 0;
    await lister.list();
    expect(lib.reads).toEqual([]);

    lib.texts['tidy-csv'] = skill('tidy-csv', 'Brew tea.', 'Steep green tea leaves in water at 80 degrees for two minutes.');
    lister.changed('tidy-csv');
    expect((await lister.list()).map((pair) => [pair.a, pair.b])).toEqual([['tea', 'tidy-csv']]);
    expect(lib.reads).toEqual(['tidy-csv']);

    lib.reads.length = 0;
    lister.changed('*');
    await lister.list();
    expect(lib.reads).toHaveLength(3);
  });

  it('forgets a deleted skill and tries a failed read again on the next list', async () => {
    const lib = library({ a: skill('a', 'Clean a CSV export.', CSV), b: skill('b', 'Tidy a CSV export.', CSV) });
    const lister = new TwinLister(lib.skills);
    lib.fail.add('b');
    await expect(lister.list()).rejects.toThrow('cannot read b');
    expect(await lister.list()).toHaveLength(1);
    delete lib.texts.b;
    expect(await lister.list()).toEqual([]);
  });
});
