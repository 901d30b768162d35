/**
 * Re-reading a synced folder of 1,423 skills (docs/sync.md, "Folder on this computer"): what a
 * sync does when the app comes back into focus. An OPFS directory stands in for the picked folder
 * (the same FileSystemDirectoryHandle interface). Each skill is a SKILL.md, every fourth has a
 * script, and `.knack/` holds one record per skill, as the sync writes it.
 *
 * - `cold`: a fresh transport (after a reload): list, then read and hash every file once.
 * - `warm`: the same transport again with nothing changed: list only (the ids are remembered).
 * - `oneEdited`: one SKILL.md changed by another agent: list, and hash only that file.
 * - `floor`: the same folder listed with a bare walk (every folder, getFile on every file, 32 in
 *   flight), in the same run: `warmOverFloor` holds on a loaded machine where milliseconds do not.
 * The folder is written through the transport's own commit (not measured) and removed after.
 */
import { summarize } from './stats';
import type { BrowserBench } from './types';
import { FolderTransport } from '../../src/sync/folderTransport';

const SKILLS = 1_423;
const RUNS = 3;
const FOLDER = 'bench-tmp-sync-folder';

function skillText(i: number): string {
  return `---\nname: synced-${i}\ndescription: Use when checking synced project ${i}.\n---\n\n# Synced ${i}\n\n1. Check project ${i}.\n2. Run the checks and read every failure.\n`;
}

async function timeFloor(folder: FileSystemDirectoryHandle): Promise<number> {
  const start = performance.now();
  const handles: FileSystemFileHandle[] = [];
  const walk = async (directory: FileSystemDirectoryHandle): Promise<void> => {
    const folders: Promise<void>[] = [];
    for await (const [, handle] of (directory as unknown as { entries(): AsyncIterable<[string, FileSystemHandle]> }).entries()) {
      if (handle.kind === 'directory') folders.push(walk(handle as FileSystemDirectoryHandle));
      else handles.push(handle as FileSystemFileHandle);
    }
    await Promise.all(folders);
  };
  await walk(folder);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < handles.length) await handles[next++]!.getFile();
    }),
  );
  return performance.now() - start;
}

async function timeRead(transport: FolderTransport): Promise<{ ms: number; files: number }> {
  const start = performance.now();
  const head = await transport.readHead();
  const tree = await transport.readTree(head!);
  return { ms: performance.now() - start, files: tree.entries.size };
}

export const benches: BrowserBench[] = [
  {
    name: 'syncFolderReread1423',
    async run() {
      const opfs = await navigator.storage.getDirectory();
      await opfs.removeEntry(FOLDER, { recursive: true }).catch(() => undefined);
      const folder = await opfs.getDirectoryHandle(FOLDER, { create: true });
      try {
        const encoder = new TextEncoder();
        const writes = new Map<string, { bytes: Uint8Array; mode: number }>();
        for (let i = 0; i < SKILLS; i += 1) {
          writes.set(`synced-${i}/SKILL.md`, { bytes: encoder.encode(skillText(i)), mode: 0o644 });
          if (i % 4 === 0) writes.set(`synced-${i}/scripts/check.sh`, { bytes: encoder.encode(`#!/bin/sh\necho ${i}\n`), mode: 0o755 });
          writes.set(`.knack/skills/synced-${i}.json`, { bytes: encoder.encode(`{"name":"synced-${i}","verdicts":[]}\n`), mode: 0o644 });
        }
        await new FolderTransport(folder).commit({ expectedHead: null, writes, deletes: [], message: 'bench' });

        const cold: number[] = [];
        const warm: number[] = [];
        const oneEdited: number[] = [];
        const floor: number[] = [];
        let files = 0;
        for (let run = 0; run < RUNS; run += 1) {
          const transport = new FolderTransport(folder);
          const first = await timeRead(transport);
          cold.push(first.ms);
          files = first.files;
          warm.push((await timeRead(transport)).ms);
          floor.push(await timeFloor(folder));
          const edited = await (await folder.getDirectoryHandle(`synced-${run}`)).getFileHandle('SKILL.md');
          const writable = await edited.createWritable();
          await writable.write(encoder.encode(`${skillText(run)}\nEdited by another agent, run ${run}.\n`));
          await writable.close();
          oneEdited.push((await timeRead(transport)).ms);
        }
        const summaries = { cold: summarize(cold), warm: summarize(warm), oneEdited: summarize(oneEdited), floor: summarize(floor) };
        return { skills: SKILLS, files, ...summaries, warmOverFloor: Math.round((summaries.warm.p50 / summaries.floor.p50) * 100) / 100 };
      } finally {
        await opfs.removeEntry(FOLDER, { recursive: true }).catch(() => undefined);
      }
    },
  },
];
