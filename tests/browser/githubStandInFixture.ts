/**
 * Playwright `test` with a `github` fixture: the one GitHub stand-in (tests/fixtures/githubStandIn.ts)
 * over HTTPS, and Chromium told to resolve api.github.com (and raw.githubusercontent.com) to it,
 * so the app keeps addressing the real host name, as gate-confirm.spec.ts does for gate.example.
 * The stand-in's certificate is self-signed, so contexts ignore certificate errors.
 *
 * One stand-in per worker (the browser's launch flags need its port); each test gets a fresh,
 * empty repository.
 */
import { test as base } from './fixtures';
import { chromiumLaunch } from '../../playwright.config';
import { startGitHubStandIn, type GitHubStandIn } from '../fixtures/githubStandIn';

export { expect } from './fixtures';

export const test = base.extend<{ github: GitHubStandIn }, { githubWorker: GitHubStandIn }>({
  githubWorker: [
    // eslint-disable-next-line no-empty-pattern -- Playwright needs the destructuring even with no dependencies
    async ({}, use) => {
      const standIn = await startGitHubStandIn({ tls: true });
      await use(standIn);
      await standIn.close();
    },
    { scope: 'worker' },
  ],
  launchOptions: [
    async ({ githubWorker }, use) => {
      const rules = `MAP api.github.com 127.0.0.1:${githubWorker.port}, MAP raw.githubusercontent.com 127.0.0.1:${githubWorker.port}`;
      await use({ ...chromiumLaunch, args: [...chromiumLaunch.args, `--host-resolver-rules=${rules}`] });
    },
    { scope: 'worker' },
  ],
  ignoreHTTPSErrors: true,
  github: async ({ githubWorker }, use) => {
    await githubWorker.reset();
    await use(githubWorker);
  },
});
