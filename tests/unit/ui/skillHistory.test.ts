import { describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../../src/skills/ledger';
import { AUTO_DIFF_MAX_PATHS, changedPathCount, describeEntry, diffEntry, diffText, newestFirst, pathInSkill } from '../../../src/ui/state/skillHistory';

function entry(change: Partial<LedgerEntry>): LedgerEntry {
  return { id: 'e1', ts: '2026-01-01T00:00:00.000Z', at: 0, actor: 'user', action: 'edit', skill: 'demo', before: [], after: [], evidence: {}, ...change };
}

describe('diffText', () => {
  it('marks removed and added lines and keeps nearby context', () => {
    const before = 'a\nb\nc\n';
    const after = 'a\nB\nc\n';
    expect(diffText(before, after)).toEqual([
      { kind: 'same', text: 'a' },
      { kind: 'removed', text: 'b' },
      { kind: 'added', text: 'B' },
      { kind: 'same', text: 'c' },
    ]);
  });

  it('folds long unchanged stretches', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const after = [...lines];
    after[10] = 'changed';
    const diff = diffText(lines.join('\n') + '\n', after.join('\n') + '\n', 2);
    expect(diff[0]).toEqual({ kind: 'skipped', count: 8 });
    expect(diff.filter((l) => l.kind === 'same')).toHaveLength(4);
    expect(diff.at(-1)).toEqual({ kind: 'skipped', count: 7 });
  });

  it('a new file is all additions', () => {
    expect(diffText('', 'x\ny\n')).toEqual([
      { kind: 'added', text: 'x' },
      { kind: 'added', text: 'y' },
    ]);
  });
});

describe('diffEntry', () => {
  const blobs: Record<string, string> = { h1: 'old\n', h2: 'new\n', h3: 'ref\n' };
  const text = async (hash: string) => blobs[hash] ?? null;

  it('pairs before and after by path inside the skill and says what changed', async () => {
    const diffs = await diffEntry(
      entry({
        before: [{ path: 'skills/devops/demo/SKILL.md', hash: 'h1' }],
        after: [
          { path: 'skills/devops/demo/SKILL.md', hash: 'h2' },
          { path: 'skills/devops/demo/references/a.md', hash: 'h3' },
        ],
      }),
      text,
    );
    expect(diffs.map((d) => [d.path, d.change])).toEqual([
      ['SKILL.md', 'modified'],
      ['references/a.md', 'added'],
    ]);
    expect(diffs[0]!.lines).toEqual([
      { kind: 'removed', text: 'old' },
      { kind: 'added', text: 'new' },
    ]);
  });

  it('leaves out files moved unchanged (archive) and flags missing blobs', async () => {
    const diffs = await diffEntry(
      entry({
        action: 'archive',
        before: [
          { path: 'skills/demo/SKILL.md', hash: 'h1' },
          { path: 'skills/demo/references/gone.md', hash: 'missing' },
        ],
        after: [{ path: 'skills/.archive/demo/SKILL.md', hash: 'h1' }],
      }),
      text,
    );
    expect(diffs).toEqual([{ path: 'references/gone.md', change: 'removed', lines: [], unavailable: true }]);
  });
});

describe('diffEntry keeps real paths', () => {
  const text = async (hash: string) => ({ a: 'a\n', b: 'b\n' })[hash] ?? null;

  it('a file outside the support folders keeps its folder, with the skill folder known', async () => {
    const diffs = await diffEntry(
      entry({ action: 'write_file', after: [{ path: 'skills/tools/pdf/agents/openai.yaml', hash: 'a' }] }),
      text,
      ['skills/tools/pdf'],
    );
    expect(diffs.map((d) => d.path)).toEqual(['agents/openai.yaml']);
  });

  it('same-named files and a nested skill’s SKILL.md stay apart in one change', async () => {
    const diffs = await diffEntry(
      entry({
        action: 'import',
        skill: 'pdf',
        after: [
          { path: 'skills/tools/pdf/SKILL.md', hash: 'a' },
          { path: 'skills/tools/pdf/references/notes.md', hash: 'a' },
          { path: 'skills/tools/pdf/templates/notes.md', hash: 'b' },
          { path: 'skills/tools/pdf/forms/SKILL.md', hash: 'b' },
        ],
      }),
      text,
    );
    expect(diffs.map((d) => d.path)).toEqual(['SKILL.md', 'forms/SKILL.md', 'references/notes.md', 'templates/notes.md']);
  });
});

describe('history order and words', () => {
  it('newest first', () => {
    const list = [entry({ id: 'a', at: 1 }), entry({ id: 'c', at: 3 }), entry({ id: 'b', at: 2 })];
    expect(newestFirst(list).map((e) => e.id)).toEqual(['c', 'b', 'a']);
  });

  it('paths are relative to the skill folder, category or not', () => {
    expect(pathInSkill('skills/git/git/SKILL.md')).toBe('SKILL.md');
    expect(pathInSkill('skills/x/references/x/notes.md')).toBe('references/x/notes.md');
  });

  it('describes actor, action and what a rollback undid', () => {
    expect(describeEntry(entry({ action: 'edit', actor: 'user' }))).toBe('Edited by you');
    expect(describeEntry(entry({ action: 'create', actor: 'review' }))).toBe('Created by the review agent');
    expect(describeEntry(entry({ action: 'rollback', actor: 'user', evidence: { rolled_back_action: 'edit' } }))).toBe(
      'Rolled back by you (undid: edit)',
    );
    expect(describeEntry(entry({ action: 'update', actor: 'import' }))).toBe('Updated from its source');
  });
});

describe('large entries (docs/skill-tools.md, "Opening a large skill")', () => {
  const files = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `skills/big/references/f${i}.md`, hash: `h${i}` }));

  it('counts each touched file once, before or after', () => {
    expect(changedPathCount(entry({ before: files(3), after: files(5) }))).toBe(5);
    expect(changedPathCount(entry({ action: 'import', after: files(300) }))).toBeGreaterThan(AUTO_DIFF_MAX_PATHS);
  });

  it('reads all blobs of an entry at once, not one after another', async () => {
    let inFlight = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const text = (hash: string) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      return new Promise<string>((resolve) => release.push(() => {
        inFlight -= 1;
        resolve(`text of ${hash}\n`);
      }));
    };
    const pending = diffEntry(entry({ action: 'import', after: files(30) }), text, ['skills/big']);
    await Promise.resolve();
    expect(most).toBe(30);
    for (const done of release) done();
    expect((await pending).map((diff) => diff.change)).toEqual(Array(30).fill('added'));
  });
});
