/**
 * Skill engine figures of SPEC §17: the skill index at session start from the snapshot, the
 * in-memory hit, a full rescan of OPFS, the index update after one write (1,000 and 10,000
 * skills), and `skill_manage` create/patch end to end through the app's tool registry.
 *
 * Where the bench libraries live. The catalogue always scans `skills/`, and the app's own
 * catalogue (which the end-to-end bench writes through) must not see 10,000 bench skills. So
 * the index benches run the engine's real classes (SkillCatalog, RecordCatalogSnapshot,
 * SkillIndex, UsageStore) on:
 *   - files: the app's OPFS store with every path moved under `bench-skills-<n>/`
 *     (so the catalogue's `skills/` is `bench-skills-<n>/skills/` in OPFS);
 *   - records: a separate IndexedDB database `knack-bench-skills` with the app's schema.
 * Both are removed when the bench ends. The bench page is also a throwaway browser context
 * (bench/run.mjs), so nothing reaches a real profile either way.
 *
 * Populating 10,000 skills is slow, so it writes straight to OPFS (no temp file + move: this
 * is set-up, not a measured write) in parallel batches.
 */
import { sample, summarize } from './stats';
import type { BrowserBench } from './types';
import { deleteDatabase, prefixedFiles } from './benchStorage';
import { waitForSkills } from './knack';
import type { FileStore } from '../../src/storage/fileStore';
import { openKnackDb } from '../../src/storage/db';
import { IdbRecordStore } from '../../src/storage/idbRecordStore';
import { SkillCatalog, entryFromSkillMd, scanLibrary } from '../../src/skills/skillCatalog';
import { RecordCatalogSnapshot } from '../../src/skills/catalogSnapshot';
import { CHARS_PER_TOKEN, SkillIndex, renderSkillIndex, type IndexOptions, type SkillLabel } from '../../src/skills/skillIndex';
import { UsageStore, emptyUsageRecord, type UsageRecord } from '../../src/skills/usageStore';

const BENCH_DB = 'knack-bench-skills';
const CATEGORIES = 25;
const WRITE_PARALLELISM = 64;
const INDEX_OPTIONS: IndexOptions = { platform: null, disabled: [], available: null, tokenBudget: 2500, firstUserMessage: 'deploy the web app' };

function skillName(i: number): string {
  return `skill-${String(i).padStart(5, '0')}`;
}

function categoryOf(i: number): string {
  return `category-${String(i % CATEGORIES).padStart(2, '0')}`;
}

const VERBS = ['deploying', 'reviewing', 'debugging', 'formatting', 'migrating', 'profiling', 'releasing', 'testing'];

/** A SKILL.md the size of a typical learned skill (~1 KB). */
function skillText(i: number, revision = 0): string {
  const name = skillName(i);
  const verb = VERBS[i % VERBS.length];
  return [
    '---',
    `name: ${name}`,
    `description: Use when ${verb} project ${i}.`,
    'metadata:',
    '  hermes:',
    `    tags: [${verb}, project-${i % 97}]`,
    '---',
    '',
    `# ${name}`,
    '',
    `1. Check the state of project ${i} before ${verb} it (revision ${revision}).`,
    '2. Run the checks the user asked for and read every failure.',
    '3. Write down what changed and tell the user.',
    '',
    '## Pitfalls',
    '',
    '- The staging cluster needs a manual approval step.',
    '- Never skip the changelog entry.',
    '',
  ].join('\n');
}

async function opfsDir(path: string): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.split('/')) dir = await dir.getDirectoryHandle(part, { create: true });
  return dir;
}

/** Writes `count` skills under `<root>/skills/<category>/<name>/SKILL.md` straight to OPFS. */
async function populate(root: string, count: number): Promise<void> {
  const categories = await Promise.all(Array.from({ length: CATEGORIES }, (_, c) => opfsDir(`${root}/skills/${categoryOf(c)}`)));
  let next = 0;
  await Promise.all(
    Array.from({ length: WRITE_PARALLELISM }, async () => {
      while (next < count) {
        const i = next++;
        const dir = await categories[i % CATEGORIES]!.getDirectoryHandle(skillName(i), { create: true });
        const handle = await dir.getFileHandle('SKILL.md', { create: true });
        const writable = await handle.createWritable();
        await writable.write(skillText(i));
        await writable.close();
      }
    }),
  );
}

/** OPFS calls in flight for the floor, as the catalogue's scan allows (SCAN_PARALLELISM). */
const FLOOR_PARALLELISM = 32;

/**
 * The OPFS floor of a rescan: list every directory under `<root>/skills` and read every file,
 * straight on the handles with 32 calls in flight, nothing parsed or stored. A rescan does
 * at least this much, so "rescan ≤ 1.2× floor" says how much the catalogue adds on top,
 * whatever the machine's disk and load (docs/storage.md "Rescan").
 */
async function opfsFloor(root: string): Promise<{ files: number; dirs: number }> {
  type Task = { kind: 'dir'; handle: FileSystemDirectoryHandle } | { kind: 'file'; handle: FileSystemFileHandle };
  const queue: Task[] = [{ kind: 'dir', handle: await opfsDir(`${root}/skills`) }];
  let files = 0;
  let dirs = 0;
  let active = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (active < FLOOR_PARALLELISM && queue.length) {
        const task = queue.pop()!;
        active += 1;
        run(task).then(
          () => {
            active -= 1;
            if (active === 0 && queue.length === 0) resolve();
            else pump();
          },
          reject,
        );
      }
    };
    const run = async (task: Task) => {
      if (task.kind === 'file') {
        await (await task.handle.getFile()).text();
        files += 1;
        return;
      }
      dirs += 1;
      for await (const child of (task.handle as unknown as { values(): AsyncIterable<FileSystemHandle> }).values()) {
        queue.push(child.kind === 'file' ? { kind: 'file', handle: child as FileSystemFileHandle } : { kind: 'dir', handle: child as FileSystemDirectoryHandle });
      }
    };
    pump();
  });
  return { files, dirs };
}

interface BenchLibrary {
  files: FileStore;
  snapshotRecords: IdbRecordStore<unknown>;
  usage: UsageStore;
  close(): Promise<void>;
}

/** A populated library with a written snapshot and usage records, and how to remove it. */
async function openLibrary(count: number, knackFiles: FileStore): Promise<BenchLibrary> {
  const root = `bench-skills-${count}`;
  await knackFiles.deleteTree(root);
  await deleteDatabase(BENCH_DB);
  const db = await openKnackDb({ name: BENCH_DB });
  const snapshotRecords = new IdbRecordStore<unknown>(db, 'index');
  const usageRecords = new IdbRecordStore<UsageRecord>(db, 'usage');
  await populate(root, count);
  await usageRecords.putMany(
    Array.from({ length: count }, (_, i): [string, UsageRecord] => {
      const record = { ...emptyUsageRecord(skillName(i)), source: 'foreground' as const, use_count: i % 7, verification: i % 5 === 0 ? ('promoted' as const) : ('unmeasured' as const) };
      return [record.name, record];
    }),
  );
  return {
    files: prefixedFiles(knackFiles, root),
    snapshotRecords,
    usage: new UsageStore(usageRecords),
    async close() {
      db.close();
      await deleteDatabase(BENCH_DB);
      await knackFiles.deleteTree(root);
    },
  };
}

/** The labels the way the app loads them (skillServices.ts). */
function labelsFrom(usage: UsageStore): () => Promise<Map<string, SkillLabel>> {
  return () => usage.labels();
}

/** Every figure for one library size. */
function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Session start: a fresh catalogue loads the snapshot and renders the index (with labels). Its
 * parts: the catalogue's load, and the first render (labels, sort, relevance, layout).
 */
async function sessionStartFigures(library: BenchLibrary, runs: number) {
  let lastIndex = '';
  const loads: number[] = [];
  const firstRenders: number[] = [];
  const sessionStart = await sample(
    runs,
    async (i) => {
      const started = performance.now();
      const catalog = new SkillCatalog(library.files, new RecordCatalogSnapshot(library.snapshotRecords));
      if ((await catalog.load()) !== 'snapshot') throw new Error('session start did not load from the snapshot');
      const loaded = performance.now();
      lastIndex = await new SkillIndex(catalog, labelsFrom(library.usage)).render(INDEX_OPTIONS);
      if (i >= 0) {
        loads.push(loaded - started);
        firstRenders.push(performance.now() - loaded);
      }
    },
    2,
  );
  return { sessionStart, sessionStartParts: { load: summarize(loads), render: summarize(firstRenders) }, lastIndex };
}

async function indexFigures(count: number, knackFiles: FileStore, runs: { start: number; rescan: number; rescanWarmup: number }) {
  const library = await openLibrary(count, knackFiles);
  try {
    // Full rescan from OPFS (writes the snapshot too, as a rescan does).
    const writer = new SkillCatalog(library.files, new RecordCatalogSnapshot(library.snapshotRecords));
    // The floor and the rescan alternate, so both see the same load on a shared machine.
    const floorTimes: number[] = [];
    const rescanTimes: number[] = [];
    let floorCounts = { files: 0, dirs: 0 };
    for (let i = -runs.rescanWarmup; i < runs.rescan; i++) {
      let started = performance.now();
      floorCounts = await opfsFloor(`bench-skills-${count}`);
      const floorMs = performance.now() - started;
      started = performance.now();
      await writer.rescan();
      const rescanMs = performance.now() - started;
      if (i >= 0) {
        floorTimes.push(floorMs);
        rescanTimes.push(rescanMs);
      }
    }
    if (writer.size !== count) throw new Error(`rescan found ${writer.size} of ${count} skills`);
    const rescan = summarize(rescanTimes);
    const floor = summarize(floorTimes);
    // The parts of a rescan: the scan of OPFS, the parse of every SKILL.md, the snapshot write.
    let started = performance.now();
    const scanned = await scanLibrary(library.files);
    const scanMs = performance.now() - started;
    started = performance.now();
    const parsed = scanned.skills.map(({ dir, text }) => entryFromSkillMd(dir, text));
    const parseMs = performance.now() - started;
    started = performance.now();
    await new RecordCatalogSnapshot(library.snapshotRecords).replaceAll(parsed, writer.generation);
    const snapshotMs = performance.now() - started;

    const { sessionStart, sessionStartParts, lastIndex } = await sessionStartFigures(library, runs.start);
    if (!lastIndex.includes('skill-')) throw new Error('rendered index lists no skill');

    // In-memory hit: the second render of the same options.
    const catalog = new SkillCatalog(library.files, new RecordCatalogSnapshot(library.snapshotRecords));
    await catalog.load();
    const index = new SkillIndex(catalog, labelsFrom(library.usage));
    await index.render(INDEX_OPTIONS);
    const memoryHit = await sample(200, () => index.render(INDEX_OPTIONS), 5);

    // One committed skill write: catalogue upsert (in memory + snapshot) and the re-render.
    // Its parts: the catalogue upsert (memory and the snapshot's IndexedDB commit), the render.
    const updates: number[] = [];
    const upserts: number[] = [];
    const renders: number[] = [];
    for (let i = 0; i < 30; i++) {
      const n = (i * 7919) % count;
      const dir = `skills/${categoryOf(n)}/${skillName(n)}`;
      const text = skillText(n, i + 1);
      const started = performance.now();
      await catalog.upsert(dir, text);
      const upserted = performance.now();
      await index.render(INDEX_OPTIONS);
      const rendered = performance.now();
      updates.push(rendered - started);
      upserts.push(upserted - started);
      renders.push(rendered - upserted);
    }
    return {
      skills: count,
      sessionStart,
      sessionStartParts,
      memoryHit,
      rescan,
      floor: { ...floor, ...floorCounts },
      rescanOverFloor: Math.round((rescan.p50 / floor.p50) * 100) / 100,
      // Each rescan against the floor run just before it, the median of those ratios: a load
      // that changes over the bench moves both of a pair, where it skews medians taken apart.
      rescanOverFloorPaired: Math.round(medianOf(rescanTimes.map((ms, i) => ms / floorTimes[i]!)) * 100) / 100,
      rescanParts: { scanMs: Math.round(scanMs), parseMs: Math.round(parseMs), snapshotMs: Math.round(snapshotMs) },
      indexUpdateAfterWrite: summarize(updates),
      indexUpdateParts: { upsert: summarize(upserts), render: summarize(renders) },
      indexChars: lastIndex.length,
      indexTokens: Math.ceil(lastIndex.length / CHARS_PER_TOKEN),
    };
  } finally {
    await library.close();
  }
}

const skillIndex1k: BrowserBench = {
  name: 'skillIndex1k',
  async run(context) {
    const { files } = await context.knack();
    return indexFigures(1_000, files, { start: 15, rescan: 7, rescanWarmup: 1 });
  },
};

const skillIndex10k: BrowserBench = {
  name: 'skillIndex10k',
  async run(context) {
    const { files } = await context.knack();
    // No warm-up rescan at 10,000: each takes seconds, and the bench must fit its time limit.
    return indexFigures(10_000, files, { start: 9, rescan: 3, rescanWarmup: 0 });
  },
};

const RUNS = 40;

/** create and patch through the app's registry: validation, scan, atomic write, ledger, usage, catalogue, snapshot. */
const skillManage: BrowserBench = {
  name: 'skillManageEndToEnd',
  async run(context) {
    const knack = await context.knack();
    const { registry } = await waitForSkills(knack);
    const writeContext = { origin: 'foreground' as const, readPaths: new Set<string>() };
    const names: string[] = [];
    const call = async (args: Record<string, unknown>) => {
      const result = JSON.parse(await registry.dispatch('skill_manage', args, writeContext)) as { success: boolean; error?: string };
      if (!result.success) throw new Error(`skill_manage ${String(args.action)} failed: ${result.error}`);
    };
    try {
      const create = await sample(RUNS, async (i) => {
        const name = `bench-e2e-${i < 0 ? `warm${-i}` : i}`;
        names.push(name);
        await call({ action: 'create', name, category: 'bench', content: skillText(i < 0 ? 90_000 - i : i).replace(/^name: .*$/m, `name: ${name}`) });
      });
      // Each patch flips one step of a created skill between two wordings.
      const flipped = new Set<string>();
      const wordings = ['2. Run the checks the user asked for', '2. Run the checks the user requested'];
      const patch = await sample(RUNS, async (i) => {
        const name = names[((i % names.length) + names.length) % names.length]!;
        const [from, to] = flipped.has(name) ? [wordings[1], wordings[0]] : [wordings[0], wordings[1]];
        await call({ action: 'patch', name, old_string: from, new_string: to });
        if (flipped.has(name)) flipped.delete(name);
        else flipped.add(name);
      });
      return { create, patch, catalogSize: (await waitForSkills(knack)).engine.catalog.size };
    } finally {
      for (const name of names) await call({ action: 'delete', name }).catch(() => undefined);
    }
  },
};

/**
 * SPEC §17 "skill index for 100, 1,000 and 10,000 skills ≤ 2,500 tokens at every size": the
 * rendered index of in-memory libraries whose names and descriptions are long (descriptions
 * past 60 characters), over 25 categories, counted as the renderer budgets: characters / 4.
 */
const skillIndexTokensAtScale: BrowserBench = {
  name: 'skillIndexTokensAtScale',
  async run() {
    const figures: Record<string, number> = {};
    for (const count of [100, 1_000, 10_000]) {
      const entries = Array.from({ length: count }, (_, i) => {
        const verb = VERBS[i % VERBS.length]!;
        const name = `${verb}-project-workflow-${String(i).padStart(5, '0')}`;
        const description = `Use when ${verb} project ${i}; covers the checks, pitfalls and the hand-off to the team.`;
        return entryFromSkillMd(`skills/${categoryOf(i)}/${name}`, `---\nname: ${name}\ndescription: ${description}\n---\n\nbody\n`);
      });
      const text = renderSkillIndex(entries, new Map(), INDEX_OPTIONS);
      figures[`tokens${count}`] = Math.ceil(text.length / CHARS_PER_TOKEN);
      figures[`fullLines${count}`] = text.split('\n').filter((line) => line.startsWith('    - ')).length;
    }
    return { tokenBudget: INDEX_OPTIONS.tokenBudget, ...figures };
  },
};

export const benches: BrowserBench[] = [skillIndex1k, skillIndex10k, skillManage, skillIndexTokensAtScale];
