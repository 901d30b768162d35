/**
 * New version against the previous one after a patch (docs/gate.md, "Caching"), for free: the
 * previous version's with-skill answers are read from the replay cache only (no request is
 * ever sent for them) and compared, case by case, with the new version's with-skill answers.
 * Informational: the verdict is decide()'s alone. Cases whose previous answer is not cached
 * (the previous version was verified with another model, parameters or cases) are left out;
 * when none is cached there is no comparison.
 */
import { answerText, scoreOutput } from './checks';
import { planArm, type PairContext } from './gatePair';
import { isMeasured } from './summary';
import type { CaseResult, SplitCase, VerdictRecord } from './types';

export interface PreviousVersion {
  /** Ledger sequence number of the previous version. */
  version: number;
  /** Its whole SKILL.md. */
  markdown: string;
}

export async function compareWithPrevious(
  ctx: PairContext,
  previous: PreviousVersion,
  results: CaseResult[],
  casesById: ReadonlyMap<string, SplitCase>,
): Promise<VerdictRecord['vsPrevious']> {
  const previousCtx: PairContext = { ...ctx, useCache: true, skill: { name: ctx.skill.name, markdown: previous.markdown } };
  const counts = { version: previous.version, up: 0, down: 0, tie: 0 };
  let compared = 0;
  for (const result of results) {
    const testCase = casesById.get(String(result.id));
    if (!testCase || !isMeasured(result) || result.skill.status !== 'ok') continue;
    const planned = await planArm(previousCtx, testCase, 'skill');
    if (!planned.cached) continue;
    const score = await scoreOutput(answerText(planned.cached.rawText), testCase.checks, ctx.regexRunner);
    if (score.unscorable !== undefined) continue;
    compared++;
    if (result.skill.passed > score.passed) counts.up++;
    else if (result.skill.passed < score.passed) counts.down++;
    else counts.tie++;
  }
  return compared > 0 ? counts : undefined;
}
