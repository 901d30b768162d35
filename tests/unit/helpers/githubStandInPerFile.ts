/**
 * One GitHub stand-in (tests/fixtures/githubStandIn.ts) for the calling file, reset before each of
 * its tests and closed after the last.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startGitHubStandIn, type GitHubStandIn } from '../../fixtures/githubStandIn';

/** `started` hears the stand-in once it runs (assign it to the file's variable). */
export function githubStandInPerFile(started: (standIn: GitHubStandIn) => void): void {
  let standIn: GitHubStandIn | undefined;
  beforeAll(async () => {
    standIn = await startGitHubStandIn();
    started(standIn);
  });
  afterAll(async () => {
    await standIn?.close();
  });
  beforeEach(async () => {
    await standIn?.reset();
  });
}
