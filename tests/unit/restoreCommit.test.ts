import { describe, expect, it } from 'vitest';
import { createBackup } from '../../src/app/backup';
import { openBackup } from '../../src/app/backupRead';
import { openerTables } from '../../src/app/backupTables';
import { assembleStorage, type StorageParts } from '../../src/app/openStorage';
import { applyRestore } from '../../src/app/restore';
import { isStagedRestore, stagedRestoreOf } from '../../src/app/restoreCommit';
import { planRestore } from '../../src/app/restorePlan';
import { FixedLiveness } from '../../src/storage/liveness';
import { SimulatedCrash } from '../../src/storage/journal';
import { memoryParts } from './helpers/memoryAppServices';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import type { RecordStore } from '../../src/storage/recordStore';
import type { RecordStoreName } from '../../src/storage/db';
import { makeProfile, populate } from './helpers/backupProfile';

function storageParts(parts: ReturnType<typeof memoryParts>, self: string): StorageParts {
  const open = <T>(name: RecordStoreName): RecordStore<T> => {
    if (!parts.stores.has(name)) parts.stores.set(name, new MemoryRecordStore<unknown>());
    return parts.stores.get(name) as RecordStore<T>;
  };
  return { files: parts.files, locks: parts.locks, liveness: new FixedLiveness(self), intents: parts.intents, open };
}

describe('restore commit hook', () => {
  it('recognises only restore record files', () => {
    expect(isStagedRestore({ recordsPath: '.knack-restore/x.json' })).toBe(true);
    expect(isStagedRestore({ recordsPath: 'skills/x/SKILL.md' })).toBe(false);
    expect(stagedRestoreOf({ id: 'i', kind: 'restore', owner: 'o', createdAt: 0, state: 'committed', steps: [], meta: {} })).toBeNull();
  });

  it("the app's start-up recovery finishes a dead tab's restore with its records, or drops it whole", async () => {
    const source = makeProfile();
    await populate(source);
    const bytes = (await createBackup(source)).bytes;
    const seen = new Set<string>();
    for (let step = 0; ; step++) {
      const parts = memoryParts();
      const dying = await assembleStorage(storageParts(parts, 'tab-a'), { recover: false });
      const tables = openerTables(dying.records);
      const plan = await planRestore(await openBackup(bytes), { files: dying.files, tables });
      const finished = await applyRestore(plan, { collisions: 'skip' }, { files: dying.files, tables, locks: dying.locks, journal: () => dying.journal }, { failAfterStep: step }).then(
        () => true,
        (err: unknown) => {
          expect(err).toBeInstanceOf(SimulatedCrash);
          return false;
        },
      );
      const next = await assembleStorage(storageParts(parts, 'tab-b'), { recover: true });
      const usage = await parts.stores.get('usage')?.get('commit-style');
      const skillMd = await next.files.readText('skills/git/commit-style/SKILL.md');
      // Files and records move together: both there, or neither.
      expect(usage === undefined).toBe(skillMd === null);
      expect(await parts.intents.keys()).toEqual([]);
      seen.add(usage === undefined ? 'old' : 'restored');
      if (finished) break;
    }
    expect([...seen].sort()).toEqual(['old', 'restored']);
  });
});
