/**
 * The noise probe (docs/gate.md, "Caching"): once per run, one baseline that came from the
 * cache is sent again, uncached, and its check results are compared with the cached answer's.
 * A flip says the model does not answer the same request the same way, which is what the
 * evidence floors of the standard policy guard against. The caller keeps the per-(provider,
 * model) counts; the cached entry is left as it was.
 *
 * A run that sent no request of its own (an unchanged skill re-verified) does not probe:
 * re-verifying what was already measured stays free.
 */
import { answerText, scoreOutput } from './checks';
import { checkKey } from './summary';
import { planArm, sendArm, type PairContext } from './gatePair';
import type { CaseResult, SplitCase } from './types';

export interface NoiseProbe {
  /** A cached baseline was sent again and scored. */
  probed: boolean;
  /** Its check results differed from the cached answer's. */
  flipped: boolean;
  /** `checkKey`s of the checks that changed (shown as flaky in the diagnostics). */
  flakyChecks: string[];
  /** Requests the probe sent (retries included). */
  requests: number;
}

/** A run that did not probe (a fresh object each time: callers may keep and change it). */
export const noProbe = (requests = 0): NoiseProbe => ({ probed: false, flipped: false, flakyChecks: [], requests });

/** Cases whose baseline was a cache hit and was scored: the ones a probe can compare with. */
export function probeCandidates(results: CaseResult[]): CaseResult[] {
  return results.filter((result) => result.base.fromCache === true && result.base.status === 'ok' && result.base.checkPass.length > 0);
}

export async function runNoiseProbe(
  ctx: PairContext,
  results: CaseResult[],
  casesById: ReadonlyMap<string, SplitCase>,
  random: () => number,
  signal: AbortSignal,
): Promise<NoiseProbe> {
  const candidates = probeCandidates(results);
  if (candidates.length === 0) return noProbe();
  const chosen = candidates[Math.min(candidates.length - 1, Math.floor(random() * candidates.length))];
  const testCase = casesById.get(String(chosen.id));
  if (!testCase) return noProbe();
  const before = ctx.meter.requests;
  const planned = await planArm({ ...ctx, useCache: false }, testCase, 'baseline');
  // Not stored: the probe measures the cache, it does not refresh it.
  const { replay } = await sendArm(ctx, planned, signal, false);
  const requests = ctx.meter.requests - before;
  if (replay.status !== 'ok') return noProbe(requests);
  const score = await scoreOutput(answerText(replay.rawText), testCase.checks, ctx.regexRunner);
  if (score.unscorable !== undefined) return noProbe(requests);
  const flakyChecks = testCase.checks.filter((_check, j) => score.checkPass[j] !== chosen.base.checkPass[j]).map(checkKey);
  return { probed: true, flipped: flakyChecks.length > 0, flakyChecks, requests };
}
