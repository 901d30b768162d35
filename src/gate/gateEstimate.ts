/**
 * What a verification run would cost now, before it starts (docs/gate.md, "Caching" and
 * "Budget"): the cases are read and split as the run would, each arm's exact request is built
 * and looked up in the replay cache, and the arms not found are the requests it would send.
 * Nothing is sent and nothing is stored. An upper bound: a run that stops early after its
 * development cases sends fewer, and the noise probe (one request) is not counted.
 */
import { providerLocality, replayCacheKey } from './cacheKey';
import { parseEvalsFile, scorableCases, type ReadCaseFile } from './evalCases';
import { policyThresholds } from './policy';
import type { ParamMemory } from './replayArm';
import type { ReplayCache } from './replayCache';
import { buildReplayRequest, gateParams, type ReplayArmName } from './replayRequest';
import { splitCases } from './split';
import type { EvidencePolicy } from './types';

export interface GateEstimateInput {
  skill: { name: string; markdown: string; readFile: ReadCaseFile };
  evalsText: string | null;
  policy: EvidencePolicy;
  providerId: string;
  model: string;
  /** Refused parameters remembered per (provider, model), so the keys match what would be sent. */
  memory?: ParamMemory;
  maxTokens?: number;
  cache: ReplayCache;
}

export interface GateRunEstimate {
  /** Requests the run would send (cache hits excluded). */
  requests: number;
  /** Arms answered from the cache. */
  cached: number;
  /** The provider's host for a confirmation ("this browser" for web-llm). */
  host: string;
  /** web-llm or a server on this machine. */
  local: boolean;
}

/** The host a confirmation names: the origin's host, or "this browser". */
export function gateHostOf(providerId: string): string {
  if (providerLocality(providerId) === 'webgpu') return 'this browser';
  try {
    return new URL(providerId).host;
  } catch {
    return providerId;
  }
}

export async function estimateGateRun(input: GateEstimateInput): Promise<GateRunEstimate> {
  const host = gateHostOf(input.providerId);
  const local = providerLocality(input.providerId) !== 'remote';
  const none = { requests: 0, cached: 0, host, local };
  if (input.evalsText === null) return none;
  const parsed = parseEvalsFile(input.evalsText);
  if (!parsed.ok) return none;
  const { cases } = await scorableCases(parsed.file, input.skill.readFile);
  const split = await splitCases(cases);
  const running = [...split.dev, ...split.holdout];
  if (running.length < policyThresholds(input.policy).minCases) return none;
  const wanted = gateParams(input.maxTokens);
  const params = input.memory ? input.memory.apply(input.providerId, input.model, wanted) : wanted;
  const skill = { name: input.skill.name, markdown: input.skill.markdown };
  let requests = 0;
  let cached = 0;
  for (const testCase of running) {
    for (const arm of ['baseline', 'skill'] as ReplayArmName[]) {
      const request = buildReplayRequest(testCase, arm, arm === 'skill' ? skill : undefined, params);
      const key = await replayCacheKey({ provider: input.providerId, model: input.model, params: request.params, messages: request.messages });
      if (await input.cache.get(key)) cached++;
      else requests++;
    }
  }
  // The strict policy replays every baseline a second time, uncached.
  if (policyThresholds(input.policy).stabilityReplay) requests += running.length;
  return { requests, cached, host, local };
}
