import { describe, expect, it } from 'vitest';
import {
  mergeSkill,
  mergeSkillFiles,
  resolveSkillMerge,
  type ConflictChoice,
  type SkillFileSet,
} from '../../src/skills/threeWayMerge';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array | null | undefined) => (data ? new TextDecoder().decode(data) : data);
const set = (entries: Record<string, string | Uint8Array>): SkillFileSet =>
  new Map(Object.entries(entries).map(([path, value]) => [path, typeof value === 'string' ? bytes(value) : value]));

const BASE = 'title\none\ntwo\nthree\nfour\nfive\nsix\nseven\n';

describe('mergeSkillFiles', () => {
  it('merges changes that do not overlap without a conflict', () => {
    const mine = BASE.replace('two', 'TWO (mine)');
    const theirs = BASE.replace('six', 'SIX (theirs)');
    const merge = mergeSkillFiles(set({ 'SKILL.md': BASE }), set({ 'SKILL.md': mine }), set({ 'SKILL.md': theirs }));
    expect(merge.conflicts).toEqual([]);
    expect(text(merge.files.get('SKILL.md'))).toBe('title\none\nTWO (mine)\nthree\nfour\nfive\nSIX (theirs)\nseven\n');
  });

  it('reports overlapping changes as hunks with base, mine and theirs lines', () => {
    const mine = BASE.replace('three', 'three by me').replace('seven', 'seven!');
    const theirs = BASE.replace('three', 'three by them');
    const merge = mergeSkillFiles(set({ 'SKILL.md': BASE }), set({ 'SKILL.md': mine }), set({ 'SKILL.md': theirs }));
    expect(merge.files.has('SKILL.md')).toBe(false);
    expect(merge.conflicts).toHaveLength(1);
    const [conflict] = merge.conflicts;
    expect(conflict).toMatchObject({ id: 'SKILL.md', path: 'SKILL.md', kind: 'text' });
    expect(conflict.hunks).toEqual([
      { id: 'SKILL.md#1', path: 'SKILL.md', baseLines: ['three'], mineLines: ['three by me'], theirsLines: ['three by them'] },
    ]);
    // Resolving keeps mine's non-overlapping edit either way.
    const mineWins = resolveSkillMerge(merge, new Map([['SKILL.md#1', { take: 'mine' }]]));
    expect(text(mineWins.get('SKILL.md'))).toBe(mine);
    const theirsWins = resolveSkillMerge(merge, new Map([['SKILL.md#1', { take: 'theirs' }]]));
    expect(text(theirsWins.get('SKILL.md'))).toBe(BASE.replace('three', 'three by them').replace('seven', 'seven!'));
  });

  it('does not report the same change on both sides as a conflict (false conflict)', () => {
    const both = BASE.replace('four', 'FOUR');
    const merge = mergeSkillFiles(
      set({ 'SKILL.md': BASE, 'notes.md': 'a\nb\nc\n' }),
      set({ 'SKILL.md': both, 'notes.md': 'a\nB\nc\nd mine\n' }),
      set({ 'SKILL.md': both, 'notes.md': 'a\nB\nc\n' }),
    );
    expect(merge.conflicts).toEqual([]);
    expect(text(merge.files.get('SKILL.md'))).toBe(both);
    expect(text(merge.files.get('notes.md'))).toBe('a\nB\nc\nd mine\n');
  });

  it('keeps unchanged files and takes the one side that changed, deletions included', () => {
    const merge = mergeSkillFiles(
      set({ 'SKILL.md': BASE, 'references/a.md': 'a', 'references/b.md': 'b', 'scripts/x.sh': 'x' }),
      set({ 'SKILL.md': BASE, 'references/a.md': 'a', 'scripts/x.sh': 'x', 'mine.md': 'new' }),
      set({ 'SKILL.md': BASE, 'references/b.md': 'b', 'scripts/x.sh': 'x2' }),
    );
    expect(merge.conflicts).toEqual([]);
    expect(text(merge.files.get('SKILL.md'))).toBe(BASE);
    expect(merge.files.get('references/a.md')).toBeNull(); // deleted upstream, unchanged here
    expect(merge.files.get('references/b.md')).toBeNull(); // deleted here, unchanged upstream
    expect(text(merge.files.get('scripts/x.sh'))).toBe('x2');
    expect(text(merge.files.get('mine.md'))).toBe('new');
    const resolved = resolveSkillMerge(merge, new Map());
    expect([...resolved.keys()]).toEqual(['SKILL.md', 'mine.md', 'scripts/x.sh']);
  });

  it('makes a deletion on one side and an edit on the other a delete-edit conflict', () => {
    const merge = mergeSkillFiles(
      set({ 'references/a.md': 'a\n', 'references/b.md': 'b\n' }),
      set({ 'references/b.md': 'b edited\n' }),
      set({ 'references/a.md': 'a edited\n' }),
    );
    expect(merge.conflicts.map((conflict) => [conflict.id, conflict.kind, conflict.hunks.length])).toEqual([
      ['references/a.md', 'delete-edit', 0],
      ['references/b.md', 'delete-edit', 0],
    ]);
    expect(merge.conflicts[0].mine).toBeNull();
    expect(text(merge.conflicts[0].theirs)).toBe('a edited\n');
    const resolved = resolveSkillMerge(
      merge,
      new Map<string, ConflictChoice>([
        ['references/a.md', { take: 'mine' }], // keep my deletion
        ['references/b.md', { take: 'edit', text: 'b rewritten\n' }],
      ]),
    );
    expect(resolved.has('references/a.md')).toBe(false);
    expect(text(resolved.get('references/b.md'))).toBe('b rewritten\n');
  });

  it('never mixes binary files: a NUL byte or invalid UTF-8 keeps one side whole', () => {
    const base = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 1, 2, 3]);
    const mine = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 1, 2, 4]);
    const theirs = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 9, 2, 3]);
    const latinBase = new Uint8Array([0x61, 0x0a, 0xe9, 0x0a]); // 'a\né\n' in Latin-1: not UTF-8
    const merge = mergeSkillFiles(
      set({ 'assets/logo.png': base, 'assets/latin.txt': latinBase }),
      set({ 'assets/logo.png': mine, 'assets/latin.txt': new Uint8Array([0x62, 0x0a, 0xe9, 0x0a]) }),
      set({ 'assets/logo.png': theirs, 'assets/latin.txt': new Uint8Array([0x61, 0x0a, 0xe8, 0x0a]) }),
    );
    expect(merge.conflicts.map((conflict) => [conflict.path, conflict.kind])).toEqual([
      ['assets/latin.txt', 'binary'],
      ['assets/logo.png', 'binary'],
    ]);
    const choices = new Map<string, ConflictChoice>([
      ['assets/logo.png', { take: 'theirs' }],
      ['assets/latin.txt', { take: 'mine' }],
    ]);
    const resolved = resolveSkillMerge(merge, choices);
    expect(resolved.get('assets/logo.png')).toEqual(theirs);
    expect(resolved.get('assets/latin.txt')).toEqual(new Uint8Array([0x62, 0x0a, 0xe9, 0x0a]));
    expect(() => resolveSkillMerge(merge, new Map([...choices, ['assets/logo.png', { take: 'edit', text: 'x' }]]))).toThrow(
      /binary file/,
    );
  });

  it('keeps a CRLF file CRLF and compares its lines without the CR', () => {
    const crlf = (value: string) => value.replace(/\n/g, '\r\n');
    const mine = crlf(BASE.replace('one', 'ONE'));
    // Upstream changed another line and, by an editor's choice, wrote LF: the lines still line up.
    const theirs = BASE.replace('five', 'FIVE');
    const merge = mergeSkillFiles(set({ 'SKILL.md': crlf(BASE) }), set({ 'SKILL.md': mine }), set({ 'SKILL.md': theirs }));
    expect(merge.conflicts).toEqual([]);
    expect(text(merge.files.get('SKILL.md'))).toBe(crlf(BASE.replace('one', 'ONE').replace('five', 'FIVE')));

    const conflicted = mergeSkillFiles(
      set({ 'SKILL.md': crlf(BASE) }),
      set({ 'SKILL.md': crlf(BASE.replace('two', 'two mine')) }),
      set({ 'SKILL.md': crlf(BASE.replace('two', 'two theirs')) }),
    );
    expect(conflicted.conflicts[0].hunks[0]).toMatchObject({ mineLines: ['two mine'], theirsLines: ['two theirs'] });
    const edited = resolveSkillMerge(conflicted, new Map([['SKILL.md#1', { take: 'edit', text: 'two, both\nand more' }]]));
    expect(text(edited.get('SKILL.md'))).toBe(crlf(BASE.replace('two', 'two, both\nand more')));
  });

  it('merges a file added on both sides against an empty base, conflicting only where they differ', () => {
    const mine = '---\nname: x\n---\nintro\nmine says\nend\n';
    const theirs = '---\nname: x\n---\nintro\ntheirs says\nend\n';
    const merge = mergeSkillFiles(set({}), set({ 'references/new.md': mine }), set({ 'references/new.md': theirs }));
    expect(merge.conflicts).toHaveLength(1);
    expect(merge.conflicts[0].base).toBeNull();
    expect(merge.conflicts[0].hunks).toEqual([
      { id: 'references/new.md#1', path: 'references/new.md', baseLines: [], mineLines: ['mine says'], theirsLines: ['theirs says'] },
    ]);
    const resolved = resolveSkillMerge(merge, new Map([['references/new.md#1', { take: 'theirs' }]]));
    expect(text(resolved.get('references/new.md'))).toBe(theirs);

    const same = mergeSkillFiles(set({}), set({ 'a.md': 'same\n' }), set({ 'a.md': 'same\n' }));
    expect(same.conflicts).toEqual([]);
    expect(text(same.files.get('a.md'))).toBe('same\n');
  });

  it('resolves each hunk by its own choice: mine, theirs or an edit (an empty edit removes the region)', () => {
    const base = 'a\nb\nc\nd\ne\nf\ng\nh\ni\n';
    const mine = 'a\nB1\nc\nd\nE1\nf\ng\nH1\ni\n';
    const theirs = 'a\nB2\nc\nd\nE2\nf\ng\nH2\ni\n';
    const merge = mergeSkillFiles(set({ 'SKILL.md': base }), set({ 'SKILL.md': mine }), set({ 'SKILL.md': theirs }));
    expect(merge.conflicts[0].hunks.map((hunk) => hunk.id)).toEqual(['SKILL.md#1', 'SKILL.md#2', 'SKILL.md#3']);
    const resolved = resolveSkillMerge(
      merge,
      new Map<string, ConflictChoice>([
        ['SKILL.md#1', { take: 'mine' }],
        ['SKILL.md#2', { take: 'theirs' }],
        ['SKILL.md#3', { take: 'edit', text: '' }],
      ]),
    );
    expect(text(resolved.get('SKILL.md'))).toBe('a\nB1\nc\nd\nE2\nf\ng\ni\n');
  });

  it('resolves a conflict that went through a structured clone (as a view state copy does)', () => {
    const merge = mergeSkillFiles(set({ 'SKILL.md': 'x\n' }), set({ 'SKILL.md': 'mine\n' }), set({ 'SKILL.md': 'theirs\n' }));
    const copy = structuredClone(merge);
    const resolved = resolveSkillMerge(copy, new Map([['SKILL.md#1', { take: 'theirs' }]]));
    expect(text(resolved.get('SKILL.md'))).toBe('theirs\n');
  });

  it('throws naming every undecided conflict, and writes nothing partial', () => {
    const merge = mergeSkillFiles(
      set({ 'SKILL.md': 'a\nb\nc\nd\ne\n', 'logo.bin': new Uint8Array([0, 1]) }),
      set({ 'SKILL.md': 'A\nb\nc\nd\nE\n', 'logo.bin': new Uint8Array([0, 2]) }),
      set({ 'SKILL.md': 'a!\nb\nc\nd\ne!\n', 'logo.bin': new Uint8Array([0, 3]) }),
    );
    expect(() => resolveSkillMerge(merge, new Map([['SKILL.md#1', { take: 'mine' }]]))).toThrow(
      'Every conflict needs a choice before the merge is applied; undecided: SKILL.md#2, logo.bin.',
    );
  });
});

describe('mergeSkill', () => {
  const base = set({ 'SKILL.md': BASE });
  const edited = set({ 'SKILL.md': BASE.replace('one', 'ONE') });
  const upstream = set({ 'SKILL.md': BASE.replace('seven', 'SEVEN') });

  it('says unchanged when mine and theirs agree', () => {
    expect(mergeSkill(base, base, set({ 'SKILL.md': BASE }))).toEqual({ kind: 'unchanged' });
    expect(mergeSkill(base, edited, set({ 'SKILL.md': BASE.replace('one', 'ONE') }))).toEqual({ kind: 'unchanged' });
    expect(mergeSkill(base, null, null)).toEqual({ kind: 'unchanged' });
  });

  it('takes the one side that changed', () => {
    expect(mergeSkill(base, base, upstream)).toEqual({ kind: 'take-theirs' });
    expect(mergeSkill(base, edited, base)).toEqual({ kind: 'take-mine' });
    expect(mergeSkill(null, null, upstream)).toEqual({ kind: 'take-theirs' });
    expect(mergeSkill(null, edited, null)).toEqual({ kind: 'take-mine' });
  });

  it('deletes when one side deleted and the other did not change, and keeps an edited skill the other side deleted', () => {
    expect(mergeSkill(base, base, null)).toEqual({ kind: 'delete' });
    expect(mergeSkill(base, null, base)).toEqual({ kind: 'delete' });
    expect(mergeSkill(base, edited, null)).toEqual({ kind: 'keep-edited', editedSide: 'mine' });
    expect(mergeSkill(base, null, upstream)).toEqual({ kind: 'keep-edited', editedSide: 'theirs' });
  });

  it('merges per file when both sides changed, against an empty base when the skill was added on both', () => {
    const outcome = mergeSkill(base, edited, upstream);
    expect(outcome.kind).toBe('merged');
    if (outcome.kind !== 'merged') return;
    expect(outcome.merge.conflicts).toEqual([]);
    expect(text(outcome.merge.files.get('SKILL.md'))).toBe(BASE.replace('one', 'ONE').replace('seven', 'SEVEN'));

    const added = mergeSkill(null, edited, upstream);
    expect(added.kind).toBe('merged');
    if (added.kind !== 'merged') return;
    expect(added.merge.conflicts.map((conflict) => conflict.hunks.length)).toEqual([2]);
  });
});
