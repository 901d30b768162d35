/**
 * zipArchive: CRC-32 checking of every entry. The archives are built with fflate, then one
 * byte of an entry's stored data, or the CRC field of its central-directory record, is changed.
 * (Paths, links, limits and bombs are covered through planImport in zipImport.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { crc32, readCentralDirectory, readZip } from '../../src/skills/zipArchive';
import { planImport } from '../../src/skills/zipImport';
import { skillContent } from './helpers/skillTestEngine';
import { zipWithRepeats } from '../fixtures/repeatedZip';

const NOTES = 'These notes are stored without compression so one byte can be flipped.\n';

/** Stored (method 0) entries, so each file's bytes appear verbatim in the archive. */
function storedZip(entries: Record<string, string>): Uint8Array {
  const tree: Zippable = {};
  for (const [path, text] of Object.entries(entries)) tree[path] = [strToU8(text), { level: 0 }];
  return zipSync(tree);
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** A copy with one byte of `text`'s stored copy changed. */
function flipStoredByte(archive: Uint8Array, text: string): Uint8Array {
  const copy = archive.slice();
  const at = indexOfBytes(copy, strToU8(text));
  expect(at).toBeGreaterThan(0);
  copy[at + 5] ^= 0x20;
  return copy;
}

/** A copy whose central-directory CRC field for `name` is changed. */
function corruptDirectoryCrc(archive: Uint8Array, name: string): Uint8Array {
  const copy = archive.slice();
  const view = new DataView(copy.buffer);
  const directory = readCentralDirectory(copy);
  if ('error' in directory) throw new Error(directory.error);
  // Walk the records again to find the one for `name` (46 fixed bytes, then the name).
  let at = copy.length - 22;
  while (view.getUint32(at, true) !== 0x06054b50) at--;
  let record = view.getUint32(at + 16, true);
  for (const entry of directory.entries) {
    if (entry.name === name) {
      view.setUint32(record + 16, (entry.crc32 ^ 0x00010000) >>> 0, true);
      return copy;
    }
    record += 46 + view.getUint16(record + 28, true) + view.getUint16(record + 30, true) + view.getUint16(record + 32, true);
  }
  throw new Error(`no entry ${name}`);
}

describe('crc32', () => {
  it('matches the standard check value and the CRC fflate writes', () => {
    expect(crc32(strToU8('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    const directory = readCentralDirectory(zipSync({ 'a.txt': strToU8(NOTES) }));
    if ('error' in directory) throw new Error(directory.error);
    expect(directory.entries[0].crc32).toBe(crc32(strToU8(NOTES)));
  });
});

describe('readZip: CRC-32 of every entry', () => {
  it('keeps every entry of an intact archive, stored or deflated', () => {
    const stored = readZip(storedZip({ 'alpha/SKILL.md': skillContent('alpha'), 'alpha/notes.md': NOTES }));
    expect(stored.refused).toEqual([]);
    expect(stored.files.map((f) => f.path).sort()).toEqual(['alpha/SKILL.md', 'alpha/notes.md']);
    const deflated = readZip(zipSync({ 'alpha/notes.md': strToU8(NOTES.repeat(20)) }, { level: 6 }));
    expect(deflated.refused).toEqual([]);
    expect(deflated.files).toHaveLength(1);
  });

  it('refuses an entry whose stored bytes were changed, and keeps the others', () => {
    const archive = storedZip({ 'alpha/SKILL.md': skillContent('alpha'), 'alpha/notes.md': NOTES });
    const read = readZip(flipStoredByte(archive, NOTES));
    expect(read.error).toBeNull();
    expect(read.files.map((f) => f.path)).toEqual(['alpha/SKILL.md']);
    expect(read.refused).toHaveLength(1);
    expect(read.refused[0].path).toBe('alpha/notes.md');
    expect(read.refused[0].reason).toMatch(/do not match the archive's checksum \(CRC-32 [0-9a-f]{8}, expected [0-9a-f]{8}\)/);
  });

  it('refuses an entry whose CRC field was changed, stored or deflated', () => {
    const stored = readZip(corruptDirectoryCrc(storedZip({ 'a/SKILL.md': skillContent('a'), 'a/notes.md': NOTES }), 'a/notes.md'));
    expect(stored.refused.map((r) => r.path)).toEqual(['a/notes.md']);
    expect(stored.files.map((f) => f.path)).toEqual(['a/SKILL.md']);
    const deflated = readZip(corruptDirectoryCrc(zipSync({ 'a/notes.md': strToU8(NOTES.repeat(20)) }, { level: 6 }), 'a/notes.md'));
    expect(deflated.files).toEqual([]);
    expect(deflated.refused[0].reason).toMatch(/checksum/);
  });
});

describe('planImport: entries with a bad checksum', () => {
  it('lists the damaged file among the refused entries and warns on its skill', () => {
    const archive = storedZip({ 'alpha/SKILL.md': skillContent('alpha'), 'alpha/references/notes.md': NOTES });
    const plan = planImport(flipStoredByte(archive, NOTES));
    expect(plan.error).toBeNull();
    expect(plan.refusedEntries.map((r) => r.path)).toEqual(['alpha/references/notes.md']);
    expect(plan.skills.map((s) => s.name)).toEqual(['alpha']);
    expect(plan.skills[0].files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(plan.skills[0].warnings.join('\n')).toMatch(/notes\.md' was not imported: its contents do not match/);
  });

  it('refuses a skill whose SKILL.md is damaged, with the reason, and keeps the others', () => {
    const beta = skillContent('beta', 'Use when checking that damaged archives are refused.');
    const archive = storedZip({ 'alpha/SKILL.md': skillContent('alpha'), 'beta/SKILL.md': beta });
    const plan = planImport(flipStoredByte(archive, beta));
    expect(plan.skills.map((s) => s.name)).toEqual(['alpha']);
    expect(plan.refusedSkills).toEqual([{ archiveFolder: 'beta', reason: expect.stringMatching(/^its SKILL\.md was refused: its contents do not match/) }]);
  });

  it('says why when the only SKILL.md is damaged', () => {
    const only = skillContent('only');
    const plan = planImport(corruptDirectoryCrc(storedZip({ 'SKILL.md': only }), 'SKILL.md'));
    expect(plan.skills).toEqual([]);
    expect(plan.error).toMatch(/^No usable SKILL\.md in the archive: 'SKILL\.md' was refused because its contents do not match/);
  });
});

describe('readZip: the same path more than once', () => {
  it('keeps the first copy and refuses each repeat with a reason', () => {
    const bytes = zipWithRepeats([
      ['tea/SKILL.md', skillContent('tea', 'Use for the first tea.')],
      ['tea/SKILL.md', skillContent('tea', 'Use for the second tea.')],
      ['tea/SKILL.md', skillContent('tea', 'Use for the third tea.')],
    ]);
    const read = readZip(bytes);
    expect(read.error).toBeNull();
    expect(read.files.map((file) => file.path)).toEqual(['tea/SKILL.md']);
    expect(new TextDecoder().decode(read.files[0]!.bytes)).toContain('Use for the first tea.');
    expect(read.refused).toEqual([
      { path: 'tea/SKILL.md', reason: expect.stringMatching(/same path; only the first copy is imported/) },
      { path: 'tea/SKILL.md', reason: expect.stringMatching(/same path; only the first copy is imported/) },
    ]);
  });

  it('treats spellings of one path (./, doubled slashes) as the same path', () => {
    const read = readZip(zipWithRepeats([['tea/notes.md', 'one'], ['./tea/notes.md', 'two'], ['tea//notes.md', 'three']]));
    expect(read.files.map((file) => [file.path, new TextDecoder().decode(file.bytes)])).toEqual([['tea/notes.md', 'one']]);
    expect(read.refused.map((entry) => entry.path)).toEqual(['./tea/notes.md', 'tea//notes.md']);
  });
});
