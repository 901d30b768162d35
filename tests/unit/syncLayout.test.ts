// The synced layout: which remote paths are skills, which are records, and what a place can never write.
import { describe, expect, it } from 'vitest';
import { encodeRecord, isSafeRelativePath, parseRecord, readLayout, RECORD_FORMAT } from '../../src/sync/syncLayout';

const entry = { id: 'x', mode: 0o644 };

describe('sync layout', () => {
  it('finds skills (top-level folders with SKILL.md) and records, and ignores the rest', () => {
    const layout = readLayout(
      new Map([
        ['pdf/SKILL.md', entry],
        ['pdf/scripts/run.sh', { id: 'y', mode: 0o755 }],
        ['README.md', entry],
        ['notes/todo.md', entry],
        ['.knack/skills/pdf.json', entry],
        ['.git/config', entry],
        ['.archive/old/SKILL.md', entry],
        ['bad name/SKILL.md', entry],
      ]),
    );
    expect([...layout.skills.keys()]).toEqual(['pdf']);
    expect([...layout.skills.get('pdf')!.keys()]).toEqual(['SKILL.md', 'scripts/run.sh']);
    expect([...layout.records.keys()]).toEqual(['pdf']);
    expect(layout.ignored.sort()).toEqual(['.archive/old/SKILL.md', '.git/config', 'README.md', 'bad name/SKILL.md', 'notes/todo.md']);
  });

  it('refuses paths that would leave the skill folder', () => {
    for (const path of ['../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\\b', 'a//b', './a', 'a/\u0000b', '']) expect(isSafeRelativePath(path), path).toBe(false);
    for (const path of ['SKILL.md', 'scripts/run.sh', 'references/a b.md', '.hidden']) expect(isSafeRelativePath(path), path).toBe(true);
  });

  it('encodes records canonically and reads back only its own format', () => {
    const record = { format: RECORD_FORMAT, version: 1 as const, installed_from: null, verdicts: [{ model: 'b', verification: 'promoted' as const, contentHash: 'sha256:1' }, { model: 'a', verification: 'rejected' as const, contentHash: 'sha256:2' }] };
    const bytes = encodeRecord(record);
    expect(parseRecord(bytes)?.verdicts.map((v) => v.model)).toEqual(['a', 'b']);
    expect(encodeRecord(parseRecord(bytes)!)).toEqual(bytes);
    expect(parseRecord(new TextEncoder().encode('{"format":"other"}'))).toBeNull();
    expect(parseRecord(new TextEncoder().encode('not json'))).toBeNull();
  });
});
