/**
 * Regex checks under a watchdog (docs/gate-cases.md). A batch of regex jobs goes to a fresh,
 * short-lived worker one job at a time; each job gets REGEX_TIMEOUT_MS from the moment it is
 * sent. A pattern that backtracks past that is stopped the only way JavaScript allows, by
 * terminating the worker, and its case becomes unscorable for the run (never a failed check).
 * The worker is terminated after every batch, so a runaway pattern can never outlive it.
 *
 * The watchdog logic talks to a `RegexWorkerPort`, so it runs the same with a browser Worker
 * (spawnBrowserRegexWorker) and with a Node worker thread in unit tests.
 */
import { REGEX_TIMEOUT_MS, type RegexJob, type RegexOutcome, type RegexRunner } from './checks';
import { workerName } from '../providers/requestCounter';

/** Sent to the check worker: one job, tagged with its position in the batch. */
export interface RegexWorkerRequest extends RegexJob {
  id: number;
}

/** From the check worker: `ready` once it has loaded, then one outcome per request. */
export type RegexWorkerReply = { ready: true } | ({ id: number } & RegexOutcome);

/** The little a watchdog needs of a worker. */
export interface RegexWorkerPort {
  post(request: RegexWorkerRequest): void;
  /** Registers the handlers; called once, right after the port is spawned. */
  listen(onReply: (reply: RegexWorkerReply) => void, onError: (reason: string) => void): void;
  terminate(): void;
}

export type RegexWorkerFactory = () => RegexWorkerPort;

export interface WatchdogOptions {
  /** Per job, from the moment it is posted. */
  timeoutMs?: number;
  /** For the worker to load and say it is ready (module loading is not the pattern's fault). */
  startTimeoutMs?: number;
}

const DEFAULT_START_TIMEOUT_MS = 10_000;

function timeoutReason(timeoutMs: number): string {
  return (
    `the regex ran longer than ${timeoutMs.toLocaleString('en-US')} ms and was stopped (catastrophic backtracking). ` +
    'Simplify the pattern: avoid nested quantifiers such as (a+)+ or (.*)*.'
  );
}

/** Runs one batch in one worker; resolves with one outcome per job, in order. */
function runBatch(spawn: RegexWorkerFactory, jobs: readonly RegexJob[], timeoutMs: number, startTimeoutMs: number): Promise<RegexOutcome[]> {
  return new Promise((resolve) => {
    const outcomes: RegexOutcome[] = [];
    let port: RegexWorkerPort | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const finish = (rest?: RegexOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      port?.terminate();
      while (outcomes.length < jobs.length) outcomes.push(rest ?? { ok: false, reason: 'regex check was not run' });
      resolve(outcomes);
    };
    const arm = (ms: number, onTimeout: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(onTimeout, ms);
    };
    const sendNext = () => {
      const id = outcomes.length;
      if (id >= jobs.length) return finish();
      const { pattern, flags, text } = jobs[id];
      arm(timeoutMs, () => {
        outcomes.push({ ok: false, reason: timeoutReason(timeoutMs), timedOut: true });
        finish({ ok: false, reason: 'not run: an earlier regex check of this answer timed out' });
      });
      port?.post({ id, pattern, flags, text });
    };
    arm(startTimeoutMs, () => finish({ ok: false, reason: `the regex check worker did not start within ${startTimeoutMs / 1000} s` }));
    try {
      port = spawn();
      port.listen(
        (reply) => {
          if (done) return;
          if ('ready' in reply) return sendNext();
          if (reply.id !== outcomes.length) return;
          const { id: _id, ...outcome } = reply;
          outcomes.push(outcome as RegexOutcome);
          sendNext();
        },
        (reason) => finish({ ok: false, reason: `the regex check worker failed: ${reason}` }),
      );
    } catch (error) {
      finish({ ok: false, reason: `the regex check worker could not start: ${error instanceof Error ? error.message : String(error)}` });
    }
  });
}

/** A RegexRunner whose every batch runs in a fresh worker from `spawn`, under the watchdog. */
export function createWatchdogRegexRunner(spawn: RegexWorkerFactory, options: WatchdogOptions = {}): Required<RegexRunner> {
  const timeoutMs = options.timeoutMs ?? REGEX_TIMEOUT_MS;
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  const testMany = async (jobs: readonly RegexJob[]) => (jobs.length === 0 ? [] : runBatch(spawn, jobs, timeoutMs, startTimeoutMs));
  return {
    testMany,
    async test(pattern, flags, text) {
      const [outcome] = await testMany([{ pattern, flags, text }]);
      return outcome;
    },
  };
}

/** A module Worker running workers/regexCheck.worker.ts (usable from the page and from workers). */
export function spawnBrowserRegexWorker(): RegexWorkerPort {
  const worker = new Worker(new URL('../../workers/regexCheck.worker.ts', import.meta.url), { type: 'module', name: workerName('knack-regex-check') });
  return {
    post: (request) => worker.postMessage(request),
    listen(onReply, onError) {
      worker.onmessage = (event: MessageEvent<RegexWorkerReply>) => onReply(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        onError(event.message || 'worker error');
      };
      worker.onmessageerror = () => onError('a message could not be read');
    },
    terminate: () => worker.terminate(),
  };
}

/** The app's regex runner: browser workers under the watchdog. */
export function createWorkerRegexRunner(options: WatchdogOptions = {}): Required<RegexRunner> {
  return createWatchdogRegexRunner(spawnBrowserRegexWorker, options);
}
