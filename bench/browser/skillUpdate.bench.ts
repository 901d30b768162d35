/**
 * Updates from a skill's source (docs/install.md, "Updates" and "The three-way merge"):
 *
 * - `threeWayMerge100KB`: the three-way merge of a 100 KB SKILL.md (about 2,000 lines) edited on
 *   both sides — 40 edits here, 40 upstream, 3 lines edited on both sides — through
 *   `mergeSkillFiles`, and the resolve of its conflicts (SPEC §17 budget: ≤ 50 ms).
 * - `checkForUpdates1000`: Check for updates over 1,000 installed skills from 20 sources on the
 *   real OPFS and IndexedDB (a bench-only folder and database, removed afterwards): the calls to
 *   `readUpstream` (one per source: ≤ 20) and the time. The upstream listings are answered in the
 *   page (no network): the figure is Knack's own work — grouping, reading every installed
 *   skill's files and hashing them — not a host's latency. `readFilesFloor` is the time to only read
 *   those files, so `overFloor` holds on a loaded machine where milliseconds do not.
 */
import { sample } from './stats';
import type { BrowserBench } from './types';
import { deleteDatabase, prefixedFiles } from './benchStorage';
import type { FileStore } from '../../src/storage/fileStore';
import { openKnackDb } from '../../src/storage/db';
import { IdbRecordStore } from '../../src/storage/idbRecordStore';
import { SkillCatalog } from '../../src/skills/skillCatalog';
import { UsageStore, emptyUsageRecord, type UsageRecord } from '../../src/skills/usageStore';
import { captureFiles, Ledger, type BlobRecord, type LedgerEntry } from '../../src/skills/ledger';
import { skillContentHash, type InstalledSource } from '../../src/skills/installedSource';
import { mergeSkillFiles, resolveSkillMerge, type ConflictChoice } from '../../src/skills/threeWayMerge';
import { checkForUpdates } from '../../src/install/update';
import type { ReadUpstream, UpstreamSkill } from '../../src/install/upstream';
import type { SkillEngine } from '../../src/skills/skillEngine';

const encoder = new TextEncoder();

function largeSkill(): string {
  const lines = ['---', 'name: big-skill', 'description: Use for the merge bench.', '---', ''];
  for (let i = 0; lines.join('\n').length < 100_000; i++) lines.push(`Step ${i}: read the input, check the config, run the command and note the output.`);
  return lines.join('\n') + '\n';
}

function edit(text: string, every: number, offset: number, mark: string): string {
  return text
    .split('\n')
    .map((line, i) => (i > 10 && (i - offset) % every === 0 ? `${line} (${mark})` : line))
    .join('\n');
}

async function benchMerge(): Promise<unknown> {
  const base = largeSkill();
  const lines = base.split('\n').length;
  // 40 edits on each side, spread out; three lines edited on both sides differently.
  const every = Math.floor(lines / 40);
  let mine = edit(base, every, 0, 'mine');
  const theirs = edit(base, every, Math.floor(every / 2), 'theirs').replace('Step 100:', 'Step 100 (theirs too):').replace('Step 700:', 'Step 700 (theirs too):').replace('Step 1000:', 'Step 1000 (theirs too):');
  mine = mine.replace('Step 100:', 'Step 100 (mine too):').replace('Step 700:', 'Step 700 (mine too):').replace('Step 1000:', 'Step 1000 (mine too):');
  const sides = [base, mine, theirs].map((text) => new Map([['SKILL.md', encoder.encode(text)]]));
  const merge = mergeSkillFiles(sides[0]!, sides[1]!, sides[2]!);
  const hunks = merge.conflicts.flatMap((conflict) => conflict.hunks);
  const choices = new Map<string, ConflictChoice>(hunks.map((hunk) => [hunk.id, { take: 'theirs' }]));
  const mergeTime = await sample(20, () => mergeSkillFiles(sides[0]!, sides[1]!, sides[2]!), 3);
  const resolveTime = await sample(20, () => resolveSkillMerge(merge, choices), 3);
  return { bytes: base.length, lines, conflicts: hunks.length, merge: mergeTime, resolve: resolveTime };
}

const SKILLS = 1000;
const SOURCES = 20;
const ROOT = 'bench-updates';
const BENCH_DB = 'knack-bench-updates';

const skillName = (i: number) => `bench-update-${i}`;
const sourceOf = (i: number) => i % SOURCES;
const skillFiles = (i: number) =>
  new Map([
    ['SKILL.md', encoder.encode(`---\nname: ${skillName(i)}\ndescription: Use for update bench skill ${i}.\n---\n\n# Skill ${i}\n\n` + 'Step: read, check, run, note.\n'.repeat(40))],
    ['references/notes.md', encoder.encode(`Notes for skill ${i}.\n`.repeat(30))],
  ]);

/** Writes the 1,000 installed skills and returns their usage records (source records included). */
async function populate(files: FileStore): Promise<[string, UsageRecord][]> {
  const records: [string, UsageRecord][] = [];
  for (let start = 0; start < SKILLS; start += 50) {
    const batch = Array.from({ length: Math.min(50, SKILLS - start) }, (_, j) => start + j);
    await Promise.all(
      batch.map(async (i) => {
        const dir = `skills/source-${sourceOf(i)}/${skillName(i)}`;
        const contents = skillFiles(i);
        await Promise.all([...contents].map(([path, bytes]) => files.write(`${dir}/${path}`, bytes)));
        const installed: InstalledSource = {
          kind: 'github',
          url: `https://github.com/bench/source-${sourceOf(i)}/tree/main/${skillName(i)}`,
          sourceKey: `github:bench/source-${sourceOf(i)}@main`,
          path: skillName(i),
          revision: 'rev-1',
          upstreamDigest: `sha256:rev-1-${i}`,
          installedHash: await skillContentHash(contents),
          installedAt: '2026-12-01T00:00:00.000Z',
        };
        records.push([skillName(i), { ...emptyUsageRecord(skillName(i)), source: 'import', installed_from: installed }]);
      }),
    );
  }
  return records;
}

async function benchCheck(knackFiles: FileStore): Promise<unknown> {
  await knackFiles.deleteTree(ROOT);
  await deleteDatabase(BENCH_DB);
  const db = await openKnackDb({ name: BENCH_DB });
  try {
    const files = prefixedFiles(knackFiles, ROOT);
    const records = await populate(files);
    const usageRecords = new IdbRecordStore<UsageRecord>(db, 'usage');
    await usageRecords.putMany(records);
    const catalog = new SkillCatalog(files);
    await catalog.rescan();
    const engine = {
      files,
      catalog,
      usage: new UsageStore(usageRecords),
      ledger: new Ledger(new IdbRecordStore<LedgerEntry>(db, 'ledger'), new IdbRecordStore<BlobRecord>(db, 'blobs')),
    } as unknown as SkillEngine;

    // Every tenth skill has a new version upstream.
    let requests = 0;
    const readUpstream: ReadUpstream = async (source) => {
      requests++;
      const k = Number(source.sourceKey.replace(/^github:bench\/source-(\d+)@main$/, '$1'));
      const skills = new Map<string, UpstreamSkill>();
      for (let i = k; i < SKILLS; i += SOURCES) {
        const digest = i % 10 === 0 ? `sha256:rev-2-${i}` : `sha256:rev-1-${i}`;
        skills.set(skillName(i), { path: skillName(i), revision: 'rev-2', upstreamDigest: digest, fetchFiles: async () => ({ files: skillFiles(i), modes: new Map() }) });
      }
      return { sourceKey: source.sourceKey, revision: 'rev-2', skills };
    };
    let last: Awaited<ReturnType<typeof checkForUpdates>> | null = null;
    const time = await sample(
      3,
      async () => {
        requests = 0;
        last = await checkForUpdates(engine, readUpstream);
      },
      1,
    );
    // The floor: only reading every installed skill's files, 16 skills in flight as the check has.
    const dirs = catalog.entries().map((entry) => entry.dir);
    const floor = await sample(
      3,
      async () => {
        for (let start = 0; start < dirs.length; start += 16) await Promise.all(dirs.slice(start, start + 16).map((dir) => captureFiles(files, dir)));
      },
      1,
    );
    const result = last as Awaited<ReturnType<typeof checkForUpdates>> | null;
    return {
      skills: result?.skills.length ?? 0,
      sources: SOURCES,
      requests,
      updateAvailable: result?.skills.filter((state) => state.status === 'update available').length ?? 0,
      time,
      readFilesFloor: floor,
      overFloor: Math.round((time.p50 / floor.p50) * 100) / 100,
    };
  } finally {
    db.close();
    await deleteDatabase(BENCH_DB);
    await knackFiles.deleteTree(ROOT);
  }
}

export const benches: BrowserBench[] = [
  { name: 'threeWayMerge100KB', run: () => benchMerge() },
  { name: 'checkForUpdates1000', run: async (context) => benchCheck((await context.knack()).files) },
];
