/**
 * SPEC §3.2: a versioned schema with additive migrations. A populated version-1 database
 * is upgraded to the app's version 4 (the `activity` store, per-model verdicts, the `sync` store) and then by a
 * test-only next migration without losing a record, and a migration that would delete a store is
 * refused with the data left as it was.
 */
import { expect, test } from '@playwright/test';
import { openApp } from './storageHarness';

test('the app database has the documented stores and indexes', async ({ page }) => {
  await openApp(page);
  const shape = await page.evaluate(() => {
    const db = globalThis.knack!.db!;
    const tx = db.transaction(Array.from(db.objectStoreNames), 'readonly');
    return {
      name: db.name,
      version: db.version,
      stores: Object.fromEntries(
        Array.from(db.objectStoreNames).map((name) => {
          const store = tx.objectStore(name);
          return [name, { keyPath: store.keyPath, indexes: Array.from(store.indexNames) }];
        }),
      ),
    };
  });
  expect(shape.name).toBe('knack');
  expect(shape.version).toBe(4);
  expect(shape.stores).toEqual({
    blobs: { keyPath: null, indexes: [] },
    index: { keyPath: null, indexes: [] },
    journal: { keyPath: null, indexes: [] },
    ledger: { keyPath: null, indexes: ['bySkill', 'byTime'] },
    messages: { keyPath: 'id', indexes: ['bySessionSeq'] },
    pending: { keyPath: null, indexes: [] },
    replays: { keyPath: null, indexes: [] },
    searchIndex: { keyPath: null, indexes: [] },
    sessions: { keyPath: 'id', indexes: ['byUpdated'] },
    settings: { keyPath: null, indexes: [] },
    usage: { keyPath: null, indexes: [] },
    verdicts: { keyPath: null, indexes: ['bySkill'] },
    activity: { keyPath: null, indexes: ['byStarted'] },
    sync: { keyPath: null, indexes: [] },
  });
});

test('a populated v1 database upgrades to the app version and a test next version without losing records', async ({ page }) => {
  await openApp(page);
  const result = await page.evaluate(async () => {
    const k = globalThis.knack!;
    const name = `knack-migration-test-${Date.now()}`;
    const v1 = await k.openDb({ name, migrations: k.migrations.slice(0, 1) });
    const outOfLine = ['usage', 'ledger', 'blobs', 'pending', 'verdicts', 'replays', 'settings', 'journal', 'index', 'searchIndex'] as const;

    // Populate every store through one transaction per store.
    for (let s = 0; s < 5; s++) {
      await v1.put('sessions', { id: `s${s}`, title: `Session ${s}`, createdAt: s, updatedAt: 100 + s });
      for (let m = 0; m < 40; m++) {
        await v1.put('messages', { id: `s${s}-m${m}`, sessionId: `s${s}`, seq: m, role: m % 2 ? 'assistant' : 'user', content: `message ${m} of ${s}` });
      }
    }
    for (const store of outOfLine) {
      for (let r = 0; r < 10; r++) await v1.put(store, { skill: `skill-${r % 3}`, at: r, payload: `${store}-${r}` }, `${store}-key-${r}`);
    }
    const dump = async (db: typeof v1) => {
      const out: Record<string, [IDBValidKey, unknown][]> = {};
      for (const store of ['sessions', 'messages', ...outOfLine] as const) {
        const keys = await db.getAllKeys(store);
        const values = await db.getAll(store);
        out[store] = keys.map((key, i): [IDBValidKey, unknown] => [key, values[i]]);
      }
      return out;
    };
    const beforeUpgrade = await dump(v1);
    v1.close();

    // The app's own v2 only adds the activity store.
    const appV2 = await k.openDb({ name, migrations: k.migrations });
    const appUpgrade = {
      version: appV2.version,
      activityIndexes: Array.from(appV2.transaction('activity').store.indexNames),
      unchanged: JSON.stringify(await dump(appV2)) === JSON.stringify(beforeUpgrade),
    };
    appV2.close();

    // Test-only v3: a new store, a new index, and a data migration that only adds a field.
    const appVersion = k.migrations.length;
    const testV3Migration = {
      version: appVersion + 1,
      description: 'test: attachments store, messages by role, sessions get a flag',
      async apply(db: IDBPDatabaseLike, tx: UpgradeTxLike) {
        db.createObjectStore('attachments', { keyPath: 'id' });
        tx.objectStore('messages').createIndex('byRole', 'role');
        const sessions = tx.objectStore('sessions');
        for (const session of await sessions.getAll()) await sessions.put({ ...session, migratedToV3: true });
      },
    };
    type IDBPDatabaseLike = { createObjectStore(name: string, options?: IDBObjectStoreParameters): unknown };
    type UpgradeTxLike = {
      objectStore(name: string): {
        createIndex(name: string, keyPath: string): unknown;
        getAll(): Promise<Record<string, unknown>[]>;
        put(value: unknown): Promise<unknown>;
      };
    };
    const v3 = await k.openDb({ name, migrations: [...k.migrations, testV3Migration as never] });
    const afterUpgrade = await dump(v3);
    const sessionsAfter = afterUpgrade.sessions.map(([key, value]) => {
      const { migratedToV3, ...rest } = value as Record<string, unknown>;
      return { key, migratedToV3, rest };
    });
    const secondSession = (await v3.getAllFromIndex('messages', 'bySessionSeq', IDBKeyRange.bound(['s1', 0], ['s1', Infinity]))).map((m) => m.seq);
    const assistantCount = (await (v3 as unknown as { getAllFromIndex(s: string, i: string, q: string): Promise<unknown[]> }).getAllFromIndex('messages', 'byRole', 'assistant')).length;
    const stores = Array.from(v3.objectStoreNames);
    const version = v3.version;

    // A v4 that deletes a store breaks the additive rule: the upgrade is refused.
    v3.close();
    const badV4 = {
      version: appVersion + 2,
      description: 'test: illegal store deletion',
      apply(db: { deleteObjectStore(name: string): void }) {
        db.deleteObjectStore('ledger');
      },
    };
    const badUpgrade = await k.openDb({ name, migrations: [...k.migrations, testV3Migration as never, badV4 as never] }).then(
      (db) => {
        db.close();
        return 'opened';
      },
      (err: Error) => `${err.name}: ${err.message}`,
    );
    const v3Again = await k.openDb({ name, migrations: [...k.migrations, testV3Migration as never] });
    const afterRefusal = { version: v3Again.version, ledger: (await v3Again.getAllKeys('ledger')).length };
    v3Again.close();
    await new Promise<void>((resolve) => {
      const request = indexedDB.deleteDatabase(name);
      request.onsuccess = request.onerror = () => resolve();
    });

    return { appVersion, appUpgrade, beforeUpgrade, afterUpgrade, sessionsAfter, secondSession, assistantCount, stores, version, badUpgrade, afterRefusal };
  });

  // v3 (per-model verdicts) only adds fields to verdict and usage records that name a model.
  expect(result.appVersion).toBe(4);
  expect(result.appUpgrade).toEqual({ version: 4, activityIndexes: ['byStarted'], unchanged: true });
  expect(result.version).toBe(5);
  expect(result.stores).toContain('sync');
  expect(result.stores).toContain('attachments');
  expect(result.stores).toContain('activity');
  for (const store of Object.keys(result.beforeUpgrade)) {
    if (store === 'sessions') continue;
    expect(result.afterUpgrade[store], store).toEqual(result.beforeUpgrade[store]);
  }
  expect(result.beforeUpgrade.messages).toHaveLength(200);
  expect(result.beforeUpgrade.ledger).toHaveLength(10);
  expect(result.sessionsAfter.map((s) => s.rest)).toEqual(result.beforeUpgrade.sessions.map(([, value]) => value));
  expect(result.sessionsAfter.every((s) => s.migratedToV3 === true)).toBe(true);
  expect(result.secondSession).toEqual(Array.from({ length: 40 }, (_, i) => i));
  expect(result.assistantCount).toBe(100);
  expect(result.badUpgrade).toMatch(/^MigrationError: .*deleted the store "ledger"/);
  expect(result.afterRefusal).toEqual({ version: 5, ledger: 10 });
});
