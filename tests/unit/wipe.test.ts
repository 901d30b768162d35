import { describe, expect, it } from 'vitest';
import { isAppShellCache, wipeAllData } from '../../src/app/wipe';
import { BACKUP_TABLES } from '../../src/app/backupTables';
import { makeProfile, populate } from './helpers/backupProfile';

class FakeCaches {
  names = new Set(['workbox-precache-v2-http://localhost/', 'webllm/model', 'webllm/config']);
  async keys() {
    return [...this.names];
  }
  async delete(name: string) {
    return this.names.delete(name);
  }
}

describe('wipeAllData', () => {
  it('removes every file, record, data cache and legacy setting, and keeps the app shell', async () => {
    const profile = makeProfile();
    await populate(profile);
    await profile.raw.write('.knack-restore/left.json', '[]');
    const caches = new FakeCaches();
    let cleared = false;
    const report = await wipeAllData({
      files: profile.files,
      clearRecords: async () => {
        for (const store of Object.values(profile.stores)) await store.clear();
      },
      caches: caches as unknown as CacheStorage,
      localStorage: { clear: () => void (cleared = true) },
    });
    expect(await profile.raw.walk('')).toEqual([]);
    for (const table of BACKUP_TABLES) expect(await profile.tables.entries(table)).toEqual([]);
    expect(report.files).toBe(9);
    expect(report.caches.sort()).toEqual(['webllm/config', 'webllm/model']);
    expect([...caches.names]).toEqual(['workbox-precache-v2-http://localhost/']);
    expect(cleared).toBe(true);
    expect(isAppShellCache('webllm/model')).toBe(false);
  });
});
