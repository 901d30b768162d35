import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type FileData, type FileEntry, type FileStore, TEMP_SUFFIX } from '../../src/storage/fileStore';
import { Journal, type IntentRecord, type JournalOp, SimulatedCrash } from '../../src/storage/journal';
import { FixedLiveness } from '../../src/storage/liveness';
import { MemoryFileStore, MemoryLockManager } from '../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../src/storage/recordStore';
import { StorageFullError } from '../../src/storage/quota';

/**
 * Counts every mutating call on the file and record stores together and fails call number
 * `failAt`. In "crash" mode every later call fails too (the context is dead, so no in-process
 * cleanup can run); in "transient" mode only that one call fails.
 */
class FaultPlan {
  calls = 0;
  dead = false;
  fired = false;
  constructor(
    readonly failAt: number,
    readonly mode: 'crash' | 'transient',
    readonly error: () => Error = () => new Error('injected fault'),
  ) {}
  mutation(): void {
    if (this.dead) throw new Error('context is dead');
    const n = this.calls++;
    if (n === this.failAt) {
      this.fired = true;
      if (this.mode === 'crash') this.dead = true;
      throw this.error();
    }
  }
  access(): void {
    if (this.dead) throw new Error('context is dead');
  }
}

class FaultyFileStore implements FileStore {
  constructor(
    private readonly inner: FileStore,
    private readonly plan: FaultPlan,
  ) {}
  async read(path: string) { this.plan.access(); return this.inner.read(path); }
  async readText(path: string) { this.plan.access(); return this.inner.readText(path); }
  async write(path: string, data: FileData) { this.plan.mutation(); return this.inner.write(path, data); }
  async delete(path: string) { this.plan.mutation(); return this.inner.delete(path); }
  async deleteTree(path: string) { this.plan.mutation(); return this.inner.deleteTree(path); }
  async move(from: string, to: string) { this.plan.mutation(); return this.inner.move(from, to); }
  async exists(path: string) { this.plan.access(); return this.inner.exists(path); }
  async list(dir: string): Promise<FileEntry[]> { this.plan.access(); return this.inner.list(dir); }
  async walk(dir: string) { this.plan.access(); return this.inner.walk(dir); }
}

class FaultyRecordStore<T> implements RecordStore<T> {
  constructor(
    private readonly inner: RecordStore<T>,
    private readonly plan: FaultPlan,
  ) {}
  async get(key: string) { this.plan.access(); return this.inner.get(key); }
  async put(key: string, value: T) { this.plan.mutation(); return this.inner.put(key, value); }
  async putMany(entries: Iterable<[string, T]>) {
    this.plan.mutation();
    for (const [key, value] of entries) await this.inner.put(key, value);
  }
  async updateMany(keys: string[], change: Parameters<RecordStore<T>['updateMany']>[1]) { this.plan.mutation(); return this.inner.updateMany(keys, change); }
  async delete(key: string) { this.plan.mutation(); return this.inner.delete(key); }
  async getAll() { this.plan.access(); return this.inner.getAll(); }
  async keys() { this.plan.access(); return this.inner.keys(); }
  async clear() { this.plan.mutation(); return this.inner.clear(); }
}

const OLD = {
  'skills/demo/SKILL.md': 'old skill',
  'skills/demo/references/a.md': 'old a',
  'skills/demo/scripts/gone.sh': 'old gone',
  'skills/other/SKILL.md': 'untouched',
};
const NEW = {
  'skills/demo/SKILL.md': 'new skill',
  'skills/demo/references/a.md': 'new a',
  'skills/demo/templates/b.md': 'new b',
  'skills/other/SKILL.md': 'untouched',
};
// Supporting files first, SKILL.md last (a directory without SKILL.md is not a skill).
const OPS: JournalOp[] = [
  { op: 'write', path: 'skills/demo/references/a.md', data: 'new a' },
  { op: 'write', path: 'skills/demo/templates/b.md', data: 'new b' },
  { op: 'delete', path: 'skills/demo/scripts/gone.sh' },
  { op: 'write', path: 'skills/demo/SKILL.md', data: 'new skill' },
];

async function seed(): Promise<{ files: MemoryFileStore; intents: MemoryRecordStore<IntentRecord> }> {
  const files = new MemoryFileStore();
  for (const [path, text] of Object.entries(OLD)) await files.write(path, text);
  return { files, intents: new MemoryRecordStore<IntentRecord>() };
}

async function snapshot(files: FileStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await files.walk('')) out[path] = (await files.readText(path))!;
  return out;
}

/** Recovers as a fresh context would after a crash, then checks all-or-nothing. */
async function recoverAndCheck(files: MemoryFileStore, intents: MemoryRecordStore<IntentRecord>) {
  const journal = new Journal({ files, intents, liveness: new FixedLiveness('afterwards'), locks: new MemoryLockManager() });
  const report = await journal.recover();
  const state = await snapshot(files);
  expect(Object.keys(state).filter((p) => p.endsWith(TEMP_SUFFIX))).toEqual([]);
  expect(await intents.keys()).toEqual([]);
  expect([OLD, NEW]).toContainEqual(state);
  return { report, outcome: JSON.stringify(state) === JSON.stringify(NEW) ? 'new' : 'old' };
}

describe('Journal', () => {
  // Recovery explains itself with console.warn; the assertions here are on the stores.
  beforeEach(() => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });

  it('applies a multi-file operation and leaves no trace', async () => {
    const { files, intents } = await seed();
    const journal = new Journal({ files, intents, liveness: new FixedLiveness('me') });
    const id = await journal.run('skill-update', OPS);
    expect(id).toMatch(/^[a-z0-9]+$/);
    expect(await snapshot(files)).toEqual(NEW);
    expect(await intents.keys()).toEqual([]);
  });

  for (const mode of ['crash', 'transient'] as const) {
    it(`ends all-or-nothing when mutation k fails (${mode}), for every k`, async () => {
      const outcomes = new Set<string>();
      let k = 0;
      for (; ; k++) {
        const { files, intents } = await seed();
        const plan = new FaultPlan(k, mode);
        const journal = new Journal({
          files: new FaultyFileStore(files, plan),
          intents: new FaultyRecordStore(intents, plan),
          liveness: new FixedLiveness('victim'),
        });
        const result = await journal.run('skill-update', OPS).then(
          () => 'resolved',
          () => 'rejected',
        );
        if (!plan.fired) {
          expect(result).toBe('resolved');
          expect(await snapshot(files)).toEqual(NEW);
          break;
        }
        expect(result).toBe('rejected');
        const { outcome } = await recoverAndCheck(files, intents);
        outcomes.add(outcome);
      }
      // intent + 3 staged writes + commit + 4 applies + finish: 10 fault points.
      expect(k).toBe(10);
      expect([...outcomes].sort()).toEqual(['new', 'old']);
    });
  }

  it('ends all-or-nothing when failAfterStep stops it at every durable action', async () => {
    const outcomes: string[] = [];
    for (let step = 0; ; step++) {
      const { files, intents } = await seed();
      const journal = new Journal({ files, intents, liveness: new FixedLiveness('victim') });
      const crashed = await journal.run('skill-update', OPS, { failAfterStep: step }).then(
        () => false,
        (err) => {
          expect(err).toBeInstanceOf(SimulatedCrash);
          return true;
        },
      );
      if (!crashed) break;
      outcomes.push((await recoverAndCheck(files, intents)).outcome);
    }
    // Before the commit record: old; from it on: new.
    const firstNew = outcomes.indexOf('new');
    expect(firstNew).toBeGreaterThan(0);
    expect(outcomes.slice(0, firstNew).every((o) => o === 'old')).toBe(true);
    expect(outcomes.slice(firstNew).every((o) => o === 'new')).toBe(true);
  });

  it('applies grouped steps group by group, each in its order, and stays all-or-nothing at every durable action', async () => {
    // Two groups, as a batch of two skills would be: each group's SKILL.md comes last in it.
    const grouped: JournalOp[] = [
      { op: 'write', path: 'skills/demo/references/a.md', data: 'new a', group: 0 },
      { op: 'write', path: 'skills/demo/templates/b.md', data: 'new b', group: 1 },
      { op: 'delete', path: 'skills/demo/scripts/gone.sh', group: 1 },
      { op: 'write', path: 'skills/demo/SKILL.md', data: 'new skill', group: 0 },
    ];
    const outcomes: string[] = [];
    for (let step = 0; ; step++) {
      const { files, intents } = await seed();
      const journal = new Journal({ files, intents, liveness: new FixedLiveness('victim') });
      const crashed = await journal.run('import', grouped, { failAfterStep: step }).then(
        () => false,
        (err) => {
          expect(err).toBeInstanceOf(SimulatedCrash);
          return true;
        },
      );
      if (!crashed) {
        expect(await snapshot(files)).toEqual(NEW);
        break;
      }
      outcomes.push((await recoverAndCheck(files, intents)).outcome);
    }
    const firstNew = outcomes.indexOf('new');
    expect(firstNew).toBeGreaterThan(0);
    expect(outcomes.slice(0, firstNew).every((o) => o === 'old')).toBe(true);
    expect(outcomes.slice(firstNew).every((o) => o === 'new')).toBe(true);
  });

  it('applies a run of unordered writes side by side, SKILL.md after all of them, and stays all-or-nothing', async () => {
    const unordered: JournalOp[] = [
      ...Array.from({ length: 20 }, (_, i): JournalOp => ({ op: 'write', path: `skills/big/references/${i}.md`, data: `ref ${i}`, group: 0, unordered: true })),
      { op: 'write', path: 'skills/big/SKILL.md', data: 'big skill', group: 0 },
    ];
    const { files, intents } = await seed();
    const moves: string[] = [];
    let inFlight = 0;
    let mostInFlight = 0;
    const watched = Object.assign(Object.create(files) as MemoryFileStore, {
      move: async (from: string, to: string) => {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 0));
        await files.move(from, to);
        moves.push(to);
        inFlight -= 1;
      },
    });
    await new Journal({ files: watched, intents, liveness: new FixedLiveness('writer') }).run('import', unordered);
    expect(moves).toHaveLength(21);
    expect(moves[moves.length - 1]).toBe('skills/big/SKILL.md');
    expect(mostInFlight).toBeGreaterThan(1);
    expect(await files.readText('skills/big/SKILL.md')).toBe('big skill');
    expect(await intents.keys()).toEqual([]);

    // A crash at any durable action still ends with all of it or none of it after recovery.
    let completed = false;
    for (let step = 0; step <= 45 && !completed; step++) {
      const fresh = await seed();
      const crashed = await new Journal({ files: fresh.files, intents: fresh.intents, liveness: new FixedLiveness('victim') })
        .run('import', unordered, { failAfterStep: step })
        .then(() => false, () => true);
      await new Journal({ files: fresh.files, intents: fresh.intents, liveness: new FixedLiveness('afterwards'), locks: new MemoryLockManager() }).recover();
      const state = await snapshot(fresh.files);
      const bigFiles = Object.keys(state).filter((path) => path.startsWith('skills/big/'));
      expect([0, 21]).toContain(bigFiles.length);
      expect(Object.keys(state).some((path) => path.endsWith(TEMP_SUFFIX))).toBe(false);
      completed = !crashed;
    }
    expect(completed).toBe(true);
  });

  it('takes previous bytes the caller read instead of reading each target, and undoes to them', async () => {
    const { files, intents } = await seed();
    const reads: string[] = [];
    const watched = Object.assign(Object.create(files) as MemoryFileStore, {
      read: async (path: string) => {
        reads.push(path);
        return files.read(path);
      },
    });
    const enc = (text: string) => new TextEncoder().encode(text);
    const withPrevious: JournalOp[] = [
      { op: 'write', path: 'skills/demo/references/a.md', data: 'new a', previous: enc('old a') },
      { op: 'write', path: 'skills/demo/templates/b.md', data: 'new b', previous: null },
      { op: 'delete', path: 'skills/demo/scripts/gone.sh', previous: enc('old gone') },
      { op: 'write', path: 'skills/demo/SKILL.md', data: 'new skill', previous: enc('old skill') },
    ];
    await new Journal({ files: watched, intents, liveness: new FixedLiveness('writer') }).run('skill-update', withPrevious);
    expect(reads).toEqual([]);
    expect(await snapshot(files)).toEqual(NEW);

    // When the change cannot be completed, it is undone from the bytes the caller gave.
    const again = await seed();
    const failing = Object.assign(Object.create(again.files) as MemoryFileStore, {
      move: async (from: string, to: string) => {
        if (to.endsWith('SKILL.md')) throw new Error('move refused for good');
        return again.files.move(from, to);
      },
    });
    await expect(new Journal({ files: failing, intents: again.intents, liveness: new FixedLiveness('writer') }).run('skill-update', withPrevious)).rejects.toThrow();
    await new Journal({ files: again.files, intents: again.intents, liveness: new FixedLiveness('afterwards'), locks: new MemoryLockManager() }).recover();
    expect(await snapshot(again.files)).toEqual(OLD);
  });

  it('resumes an interrupted undo instead of rolling forward again', async () => {
    const { files, intents } = await seed();
    const journal = new Journal({ files, intents, liveness: new FixedLiveness('victim') });
    // Crash after the first applied step, then make the undo itself die half-way.
    await expect(journal.run('skill-update', OPS, { failAfterStep: 8 })).rejects.toBeInstanceOf(SimulatedCrash);
    const [intent] = await intents.getAll();
    expect(intent!.state).toBe('committed');
    await intents.put(intent!.id, { ...intent!, state: 'undoing' });
    const { outcome } = await recoverAndCheck(files, intents);
    expect(outcome).toBe('old');
  });

  it('undoes from the recorded previous bytes when the operation cannot be completed', async () => {
    const { files, intents } = await seed();
    // Publishing SKILL.md fails every time (say, the engine refuses the move for good).
    const stubborn = Object.assign(Object.create(files) as MemoryFileStore, {
      move: async (from: string, to: string) => {
        if (to === 'skills/demo/SKILL.md') throw new DOMException('refused', 'InvalidStateError');
        return files.move(from, to);
      },
    });
    const journal = new Journal({ files: stubborn, intents, liveness: new FixedLiveness('me') });
    await expect(journal.run('skill-update', OPS)).rejects.toThrow('refused');
    expect(await snapshot(files)).toEqual(OLD);
    expect(await intents.keys()).toEqual([]);
  });

  it('leaves the intent and temp files of a live writer alone', async () => {
    const { files, intents } = await seed();
    const writer = new Journal({ files, intents, liveness: new FixedLiveness('writer') });
    await expect(writer.run('skill-update', OPS, { failAfterStep: 5 })).rejects.toBeInstanceOf(SimulatedCrash);
    const temps = (await files.walk('')).filter((p) => p.endsWith(TEMP_SUFFIX));
    expect(temps.length).toBeGreaterThan(0);

    const otherTab = new Journal({ files, intents, liveness: new FixedLiveness('reader', ['writer']) });
    const report = await otherTab.recover();
    expect(report.skippedLive).toHaveLength(1);
    expect(report.sweptTempFiles).toEqual([]);
    expect((await files.walk('')).filter((p) => p.endsWith(TEMP_SUFFIX))).toEqual(temps);

    // Once the writer is gone the same recovery finishes the job.
    await recoverAndCheck(files, intents);
  });

  it("settles a dead writer's intent before touching the same files", async () => {
    const { files, intents } = await seed();
    const victim = new Journal({ files, intents, liveness: new FixedLiveness('victim') });
    // The victim died after applying every step but before clearing its record.
    await expect(victim.run('skill-update', OPS, { failAfterStep: 9 })).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await intents.keys()).toHaveLength(1);

    // A live tab recreates the deleted script; a later recovery must not delete it again.
    const survivor = new Journal({ files, intents, liveness: new FixedLiveness('survivor') });
    await survivor.run('write-file', [{ op: 'write', path: 'skills/demo/scripts/gone.sh', data: 'back again' }]);
    expect(await intents.keys()).toEqual([]);
    await survivor.recover();
    expect(await files.readText('skills/demo/scripts/gone.sh')).toBe('back again');
    expect(await files.readText('skills/demo/SKILL.md')).toBe('new skill');
  });

  it('drops a malformed intent record instead of failing every start-up', async () => {
    const { files, intents } = await seed();
    await intents.put('junk', { id: 'junk', nonsense: true } as unknown as IntentRecord);
    const journal = new Journal({ files, intents, liveness: new FixedLiveness('me') });
    await journal.run('skill-update', OPS);
    const report = await journal.recover();
    expect(report.failed).toEqual([{ id: 'junk', error: 'malformed intent record dropped' }]);
    expect(await intents.keys()).toEqual([]);
    expect(await snapshot(files)).toEqual(NEW);
  });

  it('turns a quota failure while staging into StorageFullError and changes nothing', async () => {
    const { files, intents } = await seed();
    const quota = () => new DOMException('quota', 'QuotaExceededError');
    const plan = new FaultPlan(2, 'transient', quota);
    const journal = new Journal({
      files: new FaultyFileStore(files, plan),
      intents: new FaultyRecordStore(intents, plan),
      liveness: new FixedLiveness('me'),
    });
    const err = await journal.run('import', OPS).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageFullError);
    expect((err as Error).message).toMatch(/storage for Knack is full/);
    expect(await snapshot(files)).toEqual(OLD);
    expect(await intents.keys()).toEqual([]);
  });

  it('rejects operations it cannot make all-or-nothing', async () => {
    const { files, intents } = await seed();
    const journal = new Journal({ files, intents, liveness: new FixedLiveness('me') });
    await expect(journal.run('x', [])).rejects.toThrow(/at least one step/);
    await expect(
      journal.run('x', [
        { op: 'write', path: 'a', data: '1' },
        { op: 'write', path: 'a', data: '2' },
      ]),
    ).rejects.toThrow(/twice/);
    await expect(
      journal.run('x', [
        { op: 'deleteTree', path: 'skills/demo' },
        { op: 'delete', path: 'skills/other/SKILL.md' },
      ]),
    ).rejects.toThrow(/deleteTree steps must come after/);
    expect(await snapshot(files)).toEqual(OLD);
  });

  it('deletes a whole skill: files first, then the directory', async () => {
    const { files, intents } = await seed();
    const journal = new Journal({ files, intents, liveness: new FixedLiveness('me') });
    await journal.run('skill-delete', [
      { op: 'delete', path: 'skills/demo/SKILL.md' },
      { op: 'delete', path: 'skills/demo/references/a.md' },
      { op: 'delete', path: 'skills/demo/scripts/gone.sh' },
      { op: 'deleteTree', path: 'skills/demo' },
    ]);
    expect(await snapshot(files)).toEqual({ 'skills/other/SKILL.md': 'untouched' });
    expect(await files.exists('skills/demo')).toBe(false);
  });
});
