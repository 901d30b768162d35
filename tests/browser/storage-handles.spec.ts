/**
 * The OPFS file store caches directory handles by path. Another tab can remove a directory
 * this tab holds a cached handle for; every operation must then behave as if there were no
 * cache: reads see the removal, writes recreate the directory, listings are current.
 */
import { expect, test } from '@playwright/test';
import { openApp } from './storageHarness';

const ROOT = 'test-handles';

test('a directory removed in another tab is seen as removed, and writing there recreates it', async ({ context }) => {
  const [holder, remover] = [await context.newPage(), await context.newPage()];
  await openApp(holder);
  await openApp(remover);

  // The holder caches handles for test-handles, …/a and …/a/b by using them.
  await holder.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    await files.deleteTree(root);
    await files.write(`${root}/a/b/one.txt`, 'one');
    await files.write(`${root}/a/b/two.txt`, 'two');
    await files.list(`${root}/a`);
  }, ROOT);

  await remover.evaluate((root) => globalThis.knack!.files!.deleteTree(`${root}/a`), ROOT);

  const afterRemoval = await holder.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    return {
      read: await files.readText(`${root}/a/b/one.txt`),
      exists: await files.exists(`${root}/a/b`),
      list: await files.list(`${root}/a/b`),
      walk: await files.walk(`${root}/a`),
      deleted: await files.delete(`${root}/a/b/two.txt`),
    };
  }, ROOT);
  expect(afterRemoval).toEqual({ read: null, exists: false, list: [], walk: [], deleted: false });

  // Writing through the stale path recreates the directories, and both tabs see the file.
  await holder.evaluate((root) => globalThis.knack!.files!.write(`${root}/a/b/three.txt`, 'three'), ROOT);
  expect(await remover.evaluate((root) => globalThis.knack!.files!.readText(`${root}/a/b/three.txt`), ROOT)).toBe('three');
  expect(await holder.evaluate((root) => globalThis.knack!.files!.walk(root), ROOT)).toEqual([`${ROOT}/a/b/three.txt`]);

  // Removed and recreated by the other tab: the holder reads the new file through its cache.
  await remover.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    await files.deleteTree(`${root}/a`);
    await files.write(`${root}/a/b/four.txt`, 'four');
  }, ROOT);
  expect(await holder.evaluate((root) => globalThis.knack!.files!.readText(`${root}/a/b/four.txt`), ROOT)).toBe('four');
  expect(await holder.evaluate((root) => globalThis.knack!.files!.readText(`${root}/a/b/three.txt`), ROOT)).toBeNull();

  // The move source and target directories can be stale too.
  await remover.evaluate((root) => globalThis.knack!.files!.deleteTree(`${root}/a`), ROOT);
  await holder.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    await files.write(`${root}/c/src.txt`, 'moved');
    await files.move(`${root}/c/src.txt`, `${root}/a/b/dst.txt`);
  }, ROOT);
  expect(await remover.evaluate((root) => globalThis.knack!.files!.walk(root), ROOT)).toEqual([`${ROOT}/a/b/dst.txt`]);

  await holder.evaluate((root) => globalThis.knack!.files!.deleteTree(root), ROOT);
});

test('walkFiles hands out a reader per file that needs no lookup; a file removed since the walk reads null', async ({ page }) => {
  await openApp(page);
  const result = await page.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    await files.deleteTree(`${root}-walk`);
    await files.write(`${root}-walk/s/SKILL.md`, 'skill');
    await files.write(`${root}-walk/s/references/notes.md`, 'notes');
    await files.write(`${root}-walk/s/scripts/run.sh`, '#!/bin/sh\n');
    const walked = await files.walkFiles!(`${root}-walk/s`);
    await files.delete(`${root}-walk/s/scripts/run.sh`);
    const read = await Promise.all(walked.map(async (file) => [file.path, (b => (b ? new TextDecoder().decode(b) : null))(await file.read())] as const));
    const missing = await files.walkFiles!(`${root}-walk/none`);
    await files.deleteTree(`${root}-walk`);
    return { read, missing, paths: walked.map((file) => file.path) };
  }, ROOT);
  expect(result.paths).toEqual([`${ROOT}-walk/s/SKILL.md`, `${ROOT}-walk/s/references/notes.md`, `${ROOT}-walk/s/scripts/run.sh`]);
  expect(result.read).toEqual([
    [`${ROOT}-walk/s/SKILL.md`, 'skill'],
    [`${ROOT}-walk/s/references/notes.md`, 'notes'],
    [`${ROOT}-walk/s/scripts/run.sh`, null],
  ]);
  expect(result.missing).toEqual([]);
});

test('listAndRead lists a folder and reads just the named files through the listing', async ({ page }) => {
  await openApp(page);
  const result = await page.evaluate(async (root) => {
    const files = globalThis.knack!.files!;
    await files.deleteTree(`${root}-list`);
    await files.write(`${root}-list/s/SKILL.md`, '---\nname: s\n---\n');
    await files.write(`${root}-list/s/other.md`, 'not read');
    await files.write(`${root}-list/s/references/notes.md`, 'notes');
    const listed = await files.listAndRead!(`${root}-list/s`, ['SKILL.md', 'DESCRIPTION.md']);
    const missing = await files.listAndRead!(`${root}-list/none`, ['SKILL.md']);
    await files.deleteTree(`${root}-list`);
    return { entries: listed.entries, texts: [...listed.texts], missing: { entries: missing.entries, texts: [...missing.texts] } };
  }, ROOT);
  expect(result.entries).toEqual([
    { name: 'SKILL.md', kind: 'file' },
    { name: 'other.md', kind: 'file' },
    { name: 'references', kind: 'directory' },
  ]);
  expect(result.texts).toEqual([['SKILL.md', '---\nname: s\n---\n']]);
  expect(result.missing).toEqual({ entries: [], texts: [] });
});
