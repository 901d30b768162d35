/**
 * `session_search` over 200,000 messages (SPEC §17: p95 ≤ 20 ms), in the page, on real
 * IndexedDB: the synthetic corpus (sessionCorpus.ts) is written to a bench-only database
 * opened with the app's migrations, the index is rebuilt from it and saved, a second
 * SessionSearch loads the saved index, and 200 queries of every kind are timed end to end
 * (index query, grouping, and the IndexedDB reads of titles and snippet messages) with the
 * tool's options; `prefixSearch` times the typed-prefix queries with prefix matching on.
 * The database is deleted afterwards.
 */
import { IdbSessionBackend } from '../../src/sessions/idbSessionBackend';
import { IdbSearchIndexPersistence } from '../../src/sessions/searchIndexPersistence';
import { SessionSearch } from '../../src/sessions/sessionSearch';
import type { KnackDb, Migration, OpenKnackDbOptions } from '../../src/storage/db';
import { buildCorpus } from './sessionCorpus';
import { sample } from './stats';
import type { BrowserBench } from './types';

const MESSAGES = 200_000;
const DB_NAME = 'knack-bench-session-search';
const WRITE_BATCH = 10_000;

type OpenDb = (options: OpenKnackDbOptions & { migrations?: readonly Migration[] }) => Promise<KnackDb>;

async function deleteDatabase(name: string): Promise<void> {
  await new Promise<void>((resolve) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  });
}

export const benches: BrowserBench[] = [
  {
    name: 'sessionSearch200k',
    async run(context) {
      const knack = await context.knack();
      const openDb = knack.openDb as OpenDb;
      await deleteDatabase(DB_NAME);
      const db = await openDb({ name: DB_NAME });
      try {
        const corpus = buildCorpus(MESSAGES);
        let started = performance.now();
        {
          const tx = db.transaction('sessions', 'readwrite');
          for (const s of corpus.sessions) void tx.store.put(s);
          await tx.done;
        }
        for (let i = 0; i < corpus.messages.length; i += WRITE_BATCH) {
          const tx = db.transaction('messages', 'readwrite');
          for (const m of corpus.messages.slice(i, i + WRITE_BATCH)) void tx.store.put(m);
          await tx.done;
        }
        const writeMs = performance.now() - started;

        const backend = new IdbSessionBackend(db);
        const persistence = new IdbSearchIndexPersistence(db);
        const building = new SessionSearch({ backend, persistence });
        started = performance.now();
        await building.ensureLoaded(); // nothing saved: rebuild from messages, then save
        const rebuildMs = performance.now() - started;
        building.dispose();

        const search = new SessionSearch({ backend, persistence });
        started = performance.now();
        await search.ensureLoaded();
        const loadSavedMs = performance.now() - started;
        if (search.stats.source !== 'saved') throw new Error(`expected the saved index to load, got ${search.stats.source}`);

        let sessionsFound = 0;
        const queries = corpus.queries;
        const summary = await sample(queries.length, async (i) => {
          const hits = await search.search(queries[((i % queries.length) + queries.length) % queries.length]!, { limit: 5 });
          if (i >= 0) sessionsFound += hits.length;
        });
        // The typed-prefix queries again with prefix matching, as a search box would send them.
        const prefixQueries = queries.filter((_, i) => i % 5 === 4);
        const prefix = await sample(prefixQueries.length, (i) =>
          search.search(prefixQueries[((i % prefixQueries.length) + prefixQueries.length) % prefixQueries.length]!, { limit: 5, prefix: true }),
        );
        search.dispose();
        if (sessionsFound === 0) throw new Error('no query found anything; the bench measured nothing');
        return {
          ...summary,
          messages: MESSAGES,
          documents: search.documentCount,
          writeMessagesMs: Math.round(writeMs),
          rebuildMs: Math.round(rebuildMs),
          loadSavedMs: Math.round(loadSavedMs),
          sessionsFound,
          prefixSearch: prefix,
        };
      } finally {
        db.close();
        await deleteDatabase(DB_NAME);
      }
    },
  },
];
