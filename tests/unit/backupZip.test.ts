import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { MAX_ENTRIES, writeZip } from '../../src/app/backupZip';
import { readCentralDirectory, readZip } from '../../src/skills/zipArchive';
import { CancelledError } from '../../src/storage/progress';

describe('writeZip', () => {
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
    await expect(writeZip(sources)).rejects.toThrow(/at most 65535/);
  });
});
