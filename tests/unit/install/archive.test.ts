/** The .tar.gz reader's guards (docs/install.md, "Archives"): the zip import's limits, for tar. */
import { describe, expect, it } from 'vitest';
import { gzipSync, strToU8, zipSync } from 'fflate';
import { createTar } from 'nanotar';
import { gunzipLimited, readArchive, readTarGz, unwrapSingleFolder } from '../../../src/install/archive';
import { DEFAULT_ZIP_LIMITS } from '../../../src/skills/zipArchive';
import { concatBytes } from '../../../src/storage/bytes';

describe('readTarGz', () => {
  it('reads files with their modes, skips directories and ignores junk', () => {
    const tar = createTar([
      { name: 'skill/' },
      { name: 'skill/SKILL.md', data: strToU8('---\nname: skill\n---\n'), attrs: { mode: '644' } },
      { name: 'skill/run.sh', data: strToU8('#!/bin/sh\n'), attrs: { mode: '755' } },
      { name: 'skill/.DS_Store', data: strToU8('x') },
    ]);
    const read = readTarGz(gzipSync(tar));
    expect(read.error).toBeNull();
    expect(read.files.map((f) => [f.path, f.mode])).toEqual([
      ['skill/SKILL.md', 0o644],
      ['skill/run.sh', 0o755],
    ]);
    expect(read.ignored).toEqual(['skill/.DS_Store']);
  });

  it('refuses links and keeps names inside the archive root', () => {
    const tar = new Uint8Array(createTar([{ name: 'SKILL.md', data: strToU8('x') }, { name: 'evil', data: strToU8('') }]));
    // Make the second entry a symbolic link: type flag '2' at byte 156 of its header, checksum fixed.
    const header = tar.subarray(1024, 1536);
    header[156] = '2'.charCodeAt(0);
    header.fill(0x20, 148, 156);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.set(strToU8(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
    const read = readTarGz(gzipSync(tar));
    expect(read.files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(read.refused).toEqual([{ path: 'evil', reason: 'symbolic or hard link (links are never imported)' }]);
    const slip = readTarGz(gzipSync(createTar([{ name: '../../outside/SKILL.md', data: strToU8('x') }])));
    expect(slip.files.every((f) => !f.path.includes('..') && !f.path.startsWith('/'))).toBe(true);
  });

  it('joins a POSIX ustar prefix to its name: a path of more than 100 characters stays in its folder', () => {
    // As GNU tar and npm write a long path: the folders in `prefix` (byte 345), the rest in `name`.
    const entry = (prefix: string, name: string, data: Uint8Array) => {
      const header = new Uint8Array(512);
      header.set(strToU8(name), 0);
      header.set(strToU8('0000644\0'), 100);
      header.set(strToU8(`${data.length.toString(8).padStart(11, '0')}\0`), 124);
      header[156] = '0'.charCodeAt(0);
      header.set(strToU8('ustar\u000000'), 257);
      header.set(strToU8(prefix), 345);
      header.fill(0x20, 148, 156);
      const sum = header.reduce((total, byte) => total + byte, 0);
      header.set(strToU8(`${sum.toString(8).padStart(6, '0')}\0 `), 148);
      const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
      padded.set(data);
      return [header, padded];
    };
    const folder = 'package/dist/skills/document-skills/pptx/ooxml/schemas/ISO-IEC29500-4_2016';
    const tar = concatBytes([
      ...entry('package/dist/skills/document-skills/pptx', 'SKILL.md', strToU8('---\nname: pptx\n---\n')),
      ...entry(folder, 'shared-documentPropertiesVariantTypes.xsd', strToU8('<xsd:schema/>')),
      ...entry('package/../..', 'outside.md', strToU8('x')),
      new Uint8Array(1024),
    ]);
    const read = readTarGz(gzipSync(tar));
    expect(read.files.map((f) => f.path)).toEqual(['package/dist/skills/document-skills/pptx/SKILL.md', `${folder}/shared-documentPropertiesVariantTypes.xsd`]);
    expect(read.refused.map((r) => r.path)).toEqual(['package/../../outside.md']);
  });

  it('cuts a gzip bomb short instead of inflating it', () => {
    const bomb = gzipSync(new Uint8Array(20 * 1024 * 1024));
    const limited = gunzipLimited(bomb, 1024 * 1024);
    expect('error' in limited && limited.error).toContain('looks like a bomb');
    const read = readTarGz(bomb, { ...DEFAULT_ZIP_LIMITS, maxTotalBytes: 1024 * 1024, maxEntries: 10 });
    expect(read.error).toContain('looks like a bomb');
    expect(read.inflatedBytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('refuses an entry over the per-file limit', () => {
    const read = readTarGz(gzipSync(createTar([{ name: 'SKILL.md', data: new Uint8Array(2048) }])), { ...DEFAULT_ZIP_LIMITS, maxFileBytes: 1024 });
    expect(read.error).toContain('per-file limit');
    expect(read.files).toEqual([]);
  });
});

describe('readArchive', () => {
  it('tells zip from tar.gz by their first bytes, and refuses anything else', () => {
    expect(readArchive(zipSync({ 'SKILL.md': strToU8('x') })).files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(readArchive(gzipSync(createTar([{ name: 'SKILL.md', data: strToU8('x') }]))).files.map((f) => f.path)).toEqual(['SKILL.md']);
    expect(readArchive(strToU8('plain text')).error).toContain('neither a zip nor a .tar.gz');
  });

  it('unwraps one top folder holding SKILL.md, and nothing else', () => {
    const file = (path: string) => ({ path, bytes: new Uint8Array() });
    expect(unwrapSingleFolder([file('x/SKILL.md'), file('x/a.md')]).map((f) => f.path)).toEqual(['SKILL.md', 'a.md']);
    expect(unwrapSingleFolder([file('x/SKILL.md'), file('y/SKILL.md')]).map((f) => f.path)).toEqual(['x/SKILL.md', 'y/SKILL.md']);
    expect(unwrapSingleFolder([file('SKILL.md'), file('x/SKILL.md')]).map((f) => f.path)).toEqual(['SKILL.md', 'x/SKILL.md']);
  });
});
