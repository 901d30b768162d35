/**
 * The regex check worker (docs/gate-cases.md): runs one regex job per message and answers
 * with its outcome. It exists so that a pattern with catastrophic backtracking blocks only
 * this throwaway thread; src/gate/workerRegexRunner.ts terminates it when the watchdog fires.
 */
import { runRegexJob } from '../src/gate/checks';
import { countWorkerRequests, type CountableScope } from '../src/providers/requestCounter';
import type { RegexWorkerReply, RegexWorkerRequest } from '../src/gate/workerRegexRunner';

const scope = self as unknown as DedicatedWorkerGlobalScope;
// It should make none; if it ever does, the Privacy panel shows it (docs/security.md).
countWorkerRequests(self as unknown as CountableScope, 'regex-worker');

scope.onmessage = (event: MessageEvent<RegexWorkerRequest>) => {
  const { id, pattern, flags, text } = event.data;
  const reply: RegexWorkerReply = { id, ...runRegexJob({ pattern, flags, text }) };
  scope.postMessage(reply);
};

const ready: RegexWorkerReply = { ready: true };
scope.postMessage(ready);
