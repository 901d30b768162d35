import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChangeFeed } from '../../src/storage/changes';
import { MemoryRecordStore } from '../../src/storage/memoryRecordStore';
import { SettingsService } from '../../src/storage/settingsService';
import { holdFirstWrite } from './helpers/heldWrites';

// docs/storage.md, "No lost update": two changes to different fields of one settings key, the
// first held at its write until the second has started, both land — on disk and in memory.

interface Schema {
  color: { hue: string; level: number; count: number };
}
const DEFAULTS = { hue: 'blue', level: 1, count: 0 };

const feeds: ChangeFeed[] = [];
afterEach(() => {
  for (const f of feeds.splice(0)) f.close();
});

function service(records: MemoryRecordStore<unknown>, channel: string | null = null, migrate?: () => Promise<unknown>) {
  const changes = channel ? new ChangeFeed(channel) : null;
  if (changes) feeds.push(changes);
  return new SettingsService<Schema>(records, changes, {
    color: {
      record: 'colour',
      defaults: { ...DEFAULTS },
      normalize: (stored) => ({ ...DEFAULTS, ...(stored && typeof stored === 'object' ? (stored as object) : {}) }),
      ...(migrate ? { migrate } : {}),
    },
  });
}

describe('SettingsService: no lost update', () => {
  it('same context: a change made while an earlier one is being written keeps both, in order', async () => {
    const hold = holdFirstWrite();
    const records = new MemoryRecordStore<unknown>({ beforeWrite: hold.beforeWrite });
    const settings = service(records);
    await settings.load();
    const first = settings.update('color', { hue: 'red' });
    await hold.held;
    const second = settings.update('color', { level: 7 });
    const third = settings.update('color', { hue: 'green' });
    hold.release();
    await Promise.all([first, second, third]);
    expect(await records.get('colour')).toEqual({ hue: 'green', level: 7, count: 0 });
    expect(settings.get('color')).toEqual({ hue: 'green', level: 7, count: 0 });
  });

  it('two contexts: each changes its own field while the other writes, and both see both', async () => {
    const hold = holdFirstWrite();
    const records = new MemoryRecordStore<unknown>({ beforeWrite: hold.beforeWrite });
    const channel = `settings-${crypto.randomUUID()}`;
    const here = service(records, channel);
    const there = service(records, channel);
    await Promise.all([here.load(), there.load()]);
    const held = here.update('color', { hue: 'red' });
    await hold.held;
    await there.update('color', { level: 7 });
    hold.release();
    await held;
    const both = { hue: 'red', level: 7, count: 0 };
    expect(await records.get('colour')).toEqual(both);
    expect(here.get('color')).toEqual(both);
    await vi.waitFor(() => expect(there.get('color')).toEqual(both), { timeout: 2000 });
  });

  it('a change computed from the current value counts every change of two contexts', async () => {
    const hold = holdFirstWrite();
    const records = new MemoryRecordStore<unknown>({ beforeWrite: hold.beforeWrite });
    const here = service(records);
    const there = service(records);
    await Promise.all([here.load(), there.load()]);
    const held = here.update('color', (current) => ({ count: current.count + 1 }));
    await hold.held;
    await there.update('color', (current) => ({ count: current.count + 1 }));
    hold.release();
    expect((await held).count).toBe(2);
    expect(await records.get('colour')).toMatchObject({ count: 2 });
  });

  it('a migration does not write away a value another context stored while it ran', async () => {
    const records = new MemoryRecordStore<unknown>();
    let finishMigration!: (value: unknown) => void;
    const migration = new Promise<unknown>((resolve) => (finishMigration = resolve));
    let migrationStarted = false;
    const migrating = service(records, null, () => {
      migrationStarted = true;
      return migration;
    });
    const loading = migrating.load();
    await vi.waitFor(() => expect(migrationStarted).toBe(true));
    await service(records).update('color', { level: 4 });
    finishMigration({ hue: 'old' });
    await loading;
    expect(await records.get('colour')).toEqual({ hue: 'blue', level: 4, count: 0 });
    expect(migrating.get('color')).toEqual({ hue: 'blue', level: 4, count: 0 });
  });
});
