/**
 * Playwright `test` with a `scripted` fixture: a fresh scripted OpenAI-compatible server
 * (tests/fixtures/scriptedServer.ts) per test, closed after it. Browser tests import
 * `test` and `expect` from here instead of '@playwright/test'.
 *
 * Randomized tests take the `seed` fixture and draw from `prng(seed)`
 * (tests/fixtures/seededRandom.ts). The seed is `KNACK_SEED` when set, else fresh; it is
 * recorded as an annotation, and a failed test prints and attaches it so the same plan
 * can be replayed: `KNACK_SEED=<seed> npx playwright test <spec>`.
 *
 *   import { test, expect } from './fixtures';
 *   test('streams a reply', async ({ page, scripted }) => {
 *     scripted.script({ text: 'Hello from the model' });
 *     // point the app's Base URL at scripted.baseUrl, send a message, assert…
 *   });
 *
 * Start-up options (CORS mode, models, turns) per file or describe block:
 *   test.use({ scriptedOptions: { cors: 'refuse' } });
 */
import { test as base, expect } from '@playwright/test';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '../fixtures/scriptedServer';
import { SEED_ENV, chooseSeed } from '../fixtures/seededRandom';
import { startGitServer, type GitServer } from '../fixtures/gitServer';

export interface ScriptedFixtures {
  /** Options passed to startScriptedServer; override with test.use({ scriptedOptions }). */
  scriptedOptions: ScriptedServerOptions;
  scripted: ScriptedServer;
  /** The seed of this run of a randomized test. */
  seed: number;
  /** A real git server (git http-backend) on 127.0.0.1 for sync tests (tests/fixtures/gitServer.ts). */
  gitServer: GitServer;
}

export const test = base.extend<ScriptedFixtures>({
  scriptedOptions: [{}, { option: true }],
  scripted: async ({ scriptedOptions }, use, testInfo) => {
    const server = await startScriptedServer(scriptedOptions);
    try {
      await use(server);
    } finally {
      // On failure, the request log is the first thing one wants to see.
      if (testInfo.status !== testInfo.expectedStatus) {
        const log = server.requests.map(({ seq, method, path, status, aborted, served, body }) => ({
          seq,
          method,
          path,
          status,
          aborted,
          served,
          body,
        }));
        await testInfo.attach('scripted-server-requests.json', {
          body: JSON.stringify(log, null, 2),
          contentType: 'application/json',
        });
      }
      await server.close();
    }
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright needs the destructuring even with no dependencies
  gitServer: async ({}, use) => {
    const server = await startGitServer();
    try {
      await use(server);
    } finally {
      await server.close();
    }
  },
  // eslint-disable-next-line no-empty-pattern -- Playwright needs the destructuring even with no dependencies
  seed: async ({}, use, testInfo) => {
    const seed = chooseSeed();
    const replay = `${SEED_ENV}=${seed}`;
    testInfo.annotations.push({ type: 'seed', description: replay });
    await use(seed);
    if (testInfo.status !== testInfo.expectedStatus) {
      console.log(`"${testInfo.title}" failed with ${replay}; run it again with ${replay} to replay the same plan.`);
      await testInfo.attach('seed', { body: `${replay}\n`, contentType: 'text/plain' });
    }
  },
});

export { expect };
export type { ScriptedServer, ScriptedServerOptions, GitServer };
