/**
 * Regex runners for unit tests. `createNodeRegexRunner` is the app's watchdog
 * (src/gate/workerRegexRunner.ts) over Node worker threads instead of browser Workers, so the
 * timeout path is tested for real: the thread is terminated mid-backtrack. The thread runs
 * the very `runRegexJob` the browser check worker runs, shipped as source text (the function
 * is self-contained for this reason), so no TypeScript loader is needed inside the thread.
 *
 * `inlineRegexRunner` runs patterns on the calling thread with no watchdog: only for tests
 * whose patterns are written by the test itself.
 */
import { Worker } from 'node:worker_threads';
import { runRegexJob, type RegexRunner } from '../../../src/gate/checks';
import {
  createWatchdogRegexRunner,
  type RegexWorkerPort,
  type RegexWorkerReply,
  type WatchdogOptions,
} from '../../../src/gate/workerRegexRunner';

const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const runRegexJob = ${runRegexJob.toString()};
parentPort.on('message', (request) => {
  const { id, pattern, flags, text } = request;
  parentPort.postMessage({ id, ...runRegexJob({ pattern, flags, text }) });
});
parentPort.postMessage({ ready: true });
`;

export function spawnNodeRegexWorker(): RegexWorkerPort {
  const thread = new Worker(THREAD_SOURCE, { eval: true });
  return {
    post: (request) => thread.postMessage(request),
    listen(onReply, onError) {
      thread.on('message', (reply: RegexWorkerReply) => onReply(reply));
      thread.on('error', (error: Error) => onError(error.message));
    },
    terminate: () => void thread.terminate(),
  };
}

export function createNodeRegexRunner(options: WatchdogOptions = {}): Required<RegexRunner> {
  return createWatchdogRegexRunner(spawnNodeRegexWorker, options);
}

/** No watchdog: trusted, test-written patterns only. */
export const inlineRegexRunner: RegexRunner = {
  async test(pattern, flags, text) {
    return runRegexJob({ pattern, flags, text });
  },
};
