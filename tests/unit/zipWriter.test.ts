import { describe, expect, it } from 'vitest';
import { strToU8, unzipSync } from 'fflate';
import { MAX_ENTRIES, writeZip } from '../../src/skills/zipWriter';
import { readCentralDirectory, readZip } from '../../src/skills/zipArchive';
import { CancelledError } from '../../src/storage/progress';

describe('writeZip', () => {
  for (const forceFallback of [false, true]) {
    it(`writes stored and deflated entries with their modes and UTF-8 names (${forceFallback ? "fflate's deflate" : 'the platform compressor'})`, async () => {
      const text = strToU8('héllo '.repeat(200));
      const png = strToU8('not really a picture, but named like one '.repeat(20));
      const zip = await writeZip(
        [
          { name: 'skill/SKILL.md', bytes: text, unixMode: 0o644 },
          { name: 'skill/scripts/run.sh', bytes: strToU8('#!/bin/sh\n'), unixMode: 0o755 },
          { name: 'skill/références/é.md', bytes: new Uint8Array(0), unixMode: 0o600 },
          { name: 'skill/assets/pic.png', bytes: png },
        ],
        { forceFallback },
      );
      const entries = unzipSync(zip);
      expect(Object.keys(entries)).toEqual(['skill/SKILL.md', 'skill/scripts/run.sh', 'skill/références/é.md', 'skill/assets/pic.png']);
      expect(entries['skill/SKILL.md']).toEqual(text);
      const read = readZip(zip);
      expect(read.error).toBeNull();
      expect(read.files.map((f) => [f.path, f.mode, f.executable])).toEqual([
        ['skill/SKILL.md', 0o644, false],
        ['skill/scripts/run.sh', 0o755, true],
        ['skill/références/é.md', 0o600, false],
        ['skill/assets/pic.png', 0o644, false],
      ]);
      const directory = readCentralDirectory(zip);
      if ('error' in directory) throw new Error(directory.error);
      // Already-compressed formats are stored even when deflate would shrink them.
      expect(Object.fromEntries(directory.entries.map((e) => [e.name, e.method]))).toMatchObject({ 'skill/SKILL.md': 8, 'skill/assets/pic.png': 0 });
      expect(zip.length).toBeLessThan(text.length);
    });
  }

  it('reports progress as entries are added, ending at the count, in the order given', async () => {
    const sources = Array.from({ length: 40 }, (_, i) => ({ name: `f${i}.md`, bytes: strToU8(`entry ${i} `.repeat(30)) }));
    const seen: number[] = [];
    const zip = await writeZip(sources, { onEntry: (done) => seen.push(done) });
    expect(seen[seen.length - 1]).toBe(40);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(Object.keys(unzipSync(zip))).toEqual(sources.map((s) => s.name));
  });

  it('writes entries that fflate and our checking reader read back byte for byte, with modes', async () => {
    const text = new TextEncoder().encode('Run the command and check the output.\n'.repeat(200));
    let state = 0x9e3779b9;
    const random = Uint8Array.from({ length: 4096 }, () => {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return state & 0xff;
    });
    const bytes = await writeZip([
      { name: 'files/a/SKILL.md', bytes: text, unixMode: 0o100644 },
      { name: 'files/a/scripts/run.sh', bytes: new TextEncoder().encode('#!/bin/sh\necho hi\n'), unixMode: 0o100755 },
      { name: 'files/a/assets/noise.bin', bytes: random, unixMode: 0o100644 },
      { name: 'empty.txt', bytes: new Uint8Array(0) },
      { name: 'secrets.json', bytes: text, store: true },
    ]);
    const unzipped = unzipSync(bytes);
    expect(unzipped['files/a/SKILL.md']).toEqual(text);
    expect(unzipped['files/a/assets/noise.bin']).toEqual(random);
    expect(unzipped['empty.txt']).toEqual(new Uint8Array(0));
    const checked = readZip(bytes);
    expect(checked.error).toBeNull();
    expect(checked.refused).toEqual([]);
    expect(checked.files.find((f) => f.path.endsWith('run.sh'))?.executable).toBe(true);
    const directory = readCentralDirectory(bytes);
    if ('error' in directory) throw new Error(directory.error);
    const methods = Object.fromEntries(directory.entries.map((e) => [e.name, e.method]));
    expect(methods).toMatchObject({ 'files/a/SKILL.md': 8, 'secrets.json': 0, 'files/a/assets/noise.bin': 0 });
    const skillMd = directory.entries.find((e) => e.name === 'files/a/SKILL.md')!;
    expect(skillMd.compressedSize).toBeLessThan(text.length / 4);
  });

  it('stops between entries when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(writeZip([{ name: 'a', bytes: new Uint8Array(10) }], { signal: controller.signal })).rejects.toBeInstanceOf(CancelledError);
  });

  it('refuses more entries than a classic zip can count, before compressing anything', async () => {
    const sources = Array.from({ length: MAX_ENTRIES + 1 }, (_, i) => ({ name: `f${i}`, bytes: new Uint8Array(0) }));
    await expect(writeZip(sources)).rejects.toThrow(new RegExp(`at most ${MAX_ENTRIES}`));
  });
});
