/**
 * A batched import (zipImport.ts `applyImport` with a journal committer) under crashes: the
 * tab dies after every durable action of a batch's intent in turn, a fresh context recovers,
 * and each skill of the batch must then be either wholly imported — files, ledger entry and
 * usage record — or untouched, the batch as a whole (docs/storage.md, "Batched import").
 */
import { describe, expect, it } from 'vitest';
import { strToU8, zipSync } from 'fflate';
import { applyImport, planImport } from '../../src/skills/zipImport';
import { JournalCommitter } from '../../src/skills/journalCommitter';
import { applyCommitEffects, isCommitEffects, type CommitEffects } from '../../src/skills/commitEffects';
import type { ChangeBatchItem, ChangeCommitter } from '../../src/skills/fileChanges';
import { Journal, SimulatedCrash, type IntentRecord } from '../../src/storage/journal';
import { FixedLiveness } from '../../src/storage/liveness';
import { MemoryLockManager } from '../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { TEMP_SUFFIX } from '../../src/storage/fileStore';
import { createTestEngine, skillContent } from './helpers/skillTestEngine';

const OLD_REPLACED = skillContent('replaced').replace('# ', '# old ');

function archive(): Uint8Array {
  return zipSync({
    'first/SKILL.md': strToU8(skillContent('first')),
    'replaced/SKILL.md': strToU8(skillContent('replaced')),
    'replaced/references/new.md': strToU8('new reference'),
    'fresh/SKILL.md': strToU8(skillContent('fresh')),
    'fresh/scripts/run.sh': [strToU8('#!/bin/sh\necho fresh\n'), { os: 3, attrs: (0o100755 << 16) >>> 0 }],
  });
}

/**
 * An engine whose commits go through a journal; the batch of `crashBatchSize` skills dies after
 * `step` durable actions. The batch is picked by its size, not its order: two batches are written
 * side by side, so which reaches its commit first depends on timing.
 */
async function journaledEngine(crashBatchSize: number, step: number) {
  const t = createTestEngine();
  const intents = new MemoryRecordStore<IntentRecord>();
  const applyEffects = (effects: CommitEffects) => applyCommitEffects(effects, { ledger: t.engine.ledger, usage: t.engine.usage });
  const journalFor = (self: string) =>
    new Journal({
      files: t.files,
      intents,
      liveness: new FixedLiveness(self),
      locks: new MemoryLockManager(),
      onCommitted: async (intent) => {
        const effects = (intent.meta as { effects?: unknown } | undefined)?.effects;
        if (isCommitEffects(effects)) await applyEffects(effects);
      },
    });
  const inner = new JournalCommitter(t.files, journalFor('victim'), applyEffects);
  // The batches that do not crash go on after the import has failed (they were in flight beside
  // the crashing one): recovery waits for them, as a page that died would not be writing either.
  let othersLeft = 0;
  let othersDone: () => void = () => undefined;
  const quiet = new Promise<void>((resolve) => (othersDone = resolve));
  const committer: ChangeCommitter = {
    commit: (label, changes, effects) => inner.commit(label, changes, effects),
    commitMany: async (label: string, items: readonly ChangeBatchItem[]) => {
      if (items.length === crashBatchSize) return inner.commitMany(label, items, { failAfterStep: step });
      othersLeft += 1;
      try {
        return await inner.commitMany(label, items, {});
      } finally {
        if (--othersLeft === 0) othersDone();
      }
    },
  };
  // The library before the import: one skill the archive replaces, with a file the new version lacks.
  await t.files.write('skills/replaced/SKILL.md', OLD_REPLACED);
  await t.files.write('skills/replaced/references/old.md', 'old reference');
  await t.engine.catalog.rescan();
  t.engine.committer = committer;
  return { t, intents, otherBatchesDone: () => quiet, recover: () => journalFor('afterwards').recover() };
}

async function state(t: ReturnType<typeof createTestEngine>) {
  const files: Record<string, string> = {};
  for (const path of await t.files.walk('skills')) files[path] = (await t.files.readText(path))!;
  const ledger = (await t.engine.ledger.list()).filter((entry) => entry.action === 'import').map((entry) => entry.skill).sort();
  const usage = Object.fromEntries(
    await Promise.all(['first', 'replaced', 'fresh'].map(async (name) => [name, (await t.engine.usage.find(name))?.source ?? null] as const)),
  );
  return { files, ledger, usage };
}

describe('batched import under crashes', () => {
  it('leaves each skill of a crashed batch wholly imported or untouched, with its ledger entry and usage record, for every crash point', async () => {
    const outcomes: string[] = [];
    for (let step = 0; ; step++) {
      const { t, intents, recover, otherBatchesDone } = await journaledEngine(2, step);
      const plan = planImport(archive(), { exists: (name) => t.engine.catalog.findByName(name).length > 0 });
      const choices = Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, collision: 'replace' as const }]));
      const crashed = await applyImport(t.engine, plan, choices).then(
        () => false,
        (error: unknown) => {
          expect(error).toBeInstanceOf(SimulatedCrash);
          return true;
        },
      );
      if (!crashed) break;
      // The one-skill batch always commits (only the two-skill batch crashes); wait for it.
      await otherBatchesDone();
      await recover();
      const after = await state(t);
      expect(Object.keys(after.files).filter((path) => path.endsWith(TEMP_SUFFIX))).toEqual([]);
      expect(await intents.keys()).toEqual([]);
      // The first batch (one skill) was done before the crash.
      expect(after.files['skills/first/SKILL.md']).toBe(skillContent('first'));
      const imported = after.files['skills/fresh/SKILL.md'] !== undefined;
      if (imported) {
        expect(after.files).toMatchObject({
          'skills/replaced/SKILL.md': skillContent('replaced'),
          'skills/replaced/references/new.md': 'new reference',
          'skills/fresh/scripts/run.sh': '#!/bin/sh\necho fresh\n',
        });
        expect(after.files['skills/replaced/references/old.md']).toBeUndefined();
        expect(after.ledger).toEqual(['first', 'fresh', 'replaced']);
        expect(after.usage).toEqual({ first: 'import', replaced: 'import', fresh: 'import' });
      } else {
        expect(Object.keys(after.files).sort()).toEqual(['skills/first/SKILL.md', 'skills/replaced/SKILL.md', 'skills/replaced/references/old.md']);
        expect(after.files['skills/replaced/SKILL.md']).toBe(OLD_REPLACED);
        expect(after.ledger).toEqual(['first']);
        expect(after.usage).toEqual({ first: 'import', replaced: null, fresh: null });
      }
      outcomes.push(imported ? 'new' : 'old');
    }
    // Before the batch's commit record: untouched; from it on: imported.
    // intent, 4 staged writes, commit, 5 applied steps (4 writes, 1 delete): every one was a crash point.
    expect(outcomes.length).toBeGreaterThanOrEqual(11);
    const firstNew = outcomes.indexOf('new');
    expect(firstNew).toBeGreaterThan(0);
    expect(outcomes.slice(0, firstNew).every((o) => o === 'old')).toBe(true);
    expect(outcomes.slice(firstNew).every((o) => o === 'new')).toBe(true);
  });

  it('writes each batch as one intent, with one ledger entry, one usage record and one catalogue entry per skill', async () => {
    const { t, intents } = await journaledEngine(0, 0);
    const recorded = new Set<string>();
    const put = intents.put.bind(intents);
    intents.put = async (key, value) => {
      recorded.add(key);
      return put(key, value);
    };
    const plan = planImport(archive(), { exists: (name) => t.engine.catalog.findByName(name).length > 0 });
    const choices = Object.fromEntries(plan.skills.map((skill) => [skill.id, { include: true, collision: 'replace' as const }]));
    const outcomes = await applyImport(t.engine, plan, choices);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['imported', 'imported', 'imported']);
    const after = await state(t);
    expect(after.ledger).toEqual(['first', 'fresh', 'replaced']);
    expect(after.usage).toEqual({ first: 'import', replaced: 'import', fresh: 'import' });
    expect(t.engine.catalog.entries().map((entry) => entry.name).sort()).toEqual(['first', 'fresh', 'replaced']);
    expect(await intents.keys()).toEqual([]);
    // Batches of 1 and 2 skills: two intents for three skills.
    expect(recorded.size).toBe(2);
  });
});
