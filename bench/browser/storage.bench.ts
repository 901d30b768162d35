/**
 * Storage latencies through the app's own stores (globalThis.knack), so the figures include
 * everything a skill write pays: OPFS temp file + move() publish, and idb's wrappers.
 * Everything is written under bench-only names and removed afterwards.
 */
import { sample } from './stats';
import type { BrowserBench } from './types';
import type { IDBDatabaseLike } from './knack';

const WRITES = 100;
const FILES = 10; // writes cycle over 10 paths, so most of them replace an existing file
const BENCH_DIR = 'bench-tmp';
const IDB_OPS = 200;
const IDB_KEY_PREFIX = 'bench:';

function payload(bytes: number): string {
  // Markdown-ish text, the kind of content SKILL.md files hold.
  const line = '- step: run the command, check the output, note the result.\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

function atomicWrite(name: string, bytes: number): BrowserBench {
  return {
    name,
    async run(context) {
      const { files } = await context.knack();
      const data = payload(bytes);
      const dir = `${BENCH_DIR}/${name}`;
      try {
        const summary = await sample(WRITES, (i) => files.write(`${dir}/file-${((i % FILES) + FILES) % FILES}.md`, data));
        // A bench that measured writes which did not land would be worse than none.
        const back = await files.readText(`${dir}/file-0.md`);
        if (back !== data) throw new Error('read-back after the write bench did not match');
        return { ...summary, bytes };
      } finally {
        await files.deleteTree(dir);
        if ((await files.list(BENCH_DIR)).length === 0) await files.deleteTree(BENCH_DIR);
      }
    },
  };
}

/** `blobs` has out-of-line keys (src/storage/db.ts); handle an inline keyPath too, in case it changes. */
function recordShape(db: IDBDatabaseLike, store: string): (key: string, value: string) => { value: unknown; key?: string } {
  const keyPath = db.transaction(store, 'readonly').store.keyPath;
  if (keyPath === null) return (key, value) => ({ value: { bench: true, value }, key });
  if (typeof keyPath === 'string') return (key, value) => ({ value: { [keyPath]: key, bench: true, value } });
  throw new Error(`store ${store} has a compound keyPath; pick another store for the bench`);
}

function benchStore(db: IDBDatabaseLike): string {
  for (const name of ['blobs', 'settings']) if (db.objectStoreNames.contains(name)) return name;
  throw new Error('neither a blobs nor a settings store exists');
}

async function clearKeys(db: IDBDatabaseLike, store: string, keys: string[]) {
  const tx = db.transaction(store, 'readwrite');
  await Promise.all(keys.map((key) => tx.store.delete(key)));
  await tx.done;
}

const idbPut: BrowserBench = {
  name: 'idbPut1KB',
  async run(context) {
    const { db } = await context.knack();
    const store = benchStore(db);
    const keys: string[] = [];
    const value = payload(1024);
    const recordFor = recordShape(db, store);
    try {
      // One transaction per put, as the app does for a single record update.
      const summary = await sample(IDB_OPS, async (i) => {
        const key = `${IDB_KEY_PREFIX}put:${i}`;
        keys.push(key);
        const record = recordFor(key, value);
        const tx = db.transaction(store, 'readwrite');
        await tx.store.put(record.value, record.key);
        await tx.done;
      });
      return { ...summary, store };
    } finally {
      await clearKeys(db, store, keys);
    }
  },
};

const idbGet: BrowserBench = {
  name: 'idbGet1KB',
  async run(context) {
    const { db } = await context.knack();
    const store = benchStore(db);
    const value = payload(1024);
    const keys = Array.from({ length: IDB_OPS }, (_, i) => `${IDB_KEY_PREFIX}get:${i}`);
    const recordFor = recordShape(db, store);
    try {
      const tx = db.transaction(store, 'readwrite');
      for (const key of keys) {
        const record = recordFor(key, value);
        void tx.store.put(record.value, record.key);
      }
      await tx.done;
      const summary = await sample(IDB_OPS, async (i) => {
        const got = await db.transaction(store, 'readonly').store.get(keys[((i % IDB_OPS) + IDB_OPS) % IDB_OPS]);
        if (got === undefined) throw new Error('bench record vanished');
      });
      return { ...summary, store };
    } finally {
      await clearKeys(db, store, keys);
    }
  },
};

export const benches: BrowserBench[] = [atomicWrite('atomicWrite1KB', 1024), atomicWrite('atomicWrite100KB', 100 * 1024), idbPut, idbGet];
