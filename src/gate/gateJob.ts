/**
 * The gate as a job of the review worker (docs/gate.md, "How a run goes"): read the skill's
 * SKILL.md and evals/evals.json as they are now, run the gate on exactly those bytes, then
 * read them again and mark the record superseded when either changed during the run (its
 * verdict is about bytes that no longer exist, so the caller stores it and does not apply it).
 *
 * Everything app-specific comes in through `GateJobServices`: the worker's handler builds
 * them from its settings (gate provider and model), its storage (the replay cache over the
 * `replays` store, the skill folder) and its regex runner, then calls `runGateJob`. Storing
 * the record, the ledger entry and the activity entry stay with the caller.
 */
import type { ChatProvider } from '../providers/provider';
import type { RegexRunner } from './checks';
import { parseEvalsFile, type ReadCaseFile } from './evalCases';
import { runGate, type GateBudget, type GateRunResult } from './gateRun';
import type { ParamMemory, Sleep } from './replayArm';
import type { ReplayCache } from './replayCache';
import type { EvidencePolicy, GateProgress } from './types';
import { DEFAULT_POLICY } from './policy';
import { casesHashOf, skillHashOf, withSupersession } from './verdictRecord';
import type { PreviousVersion } from './vsPrevious';

export const SKILL_FILE = 'SKILL.md';
export const EVALS_FILE = 'evals/evals.json';

/** What the tab sends: only what is particular to this run. */
export interface GateJob {
  runId: string;
  skill: string;
  /** An automatic run (after a change, or when idle): its requests count against the daily cap. */
  automatic?: boolean;
  /** Ledger sequence number of the version being verified. */
  version?: number;
  /** Absent: the gate settings' policy (the review worker fills it in), else the default. */
  policy?: EvidencePolicy;
  /** false = "Verify again without cache". */
  useCache?: boolean;
  budget?: GateBudget;
  /** The version before the last patch, for the free comparison. */
  previous?: PreviousVersion;
  /**
   * Verify on this saved provider and model (the chat's, "Verify on …" in the skill view)
   * instead of the gate settings' model (docs/gate.md, "Per-model verdicts").
   */
  model?: { providerId: string; model: string };
}

export interface GateJobServices {
  /** Reads a file of the skill's folder (relative path), null when it does not exist. */
  readSkillFile(skill: string, path: string): Promise<Uint8Array | string | null>;
  provider: ChatProvider;
  providerId: string;
  providerLabel?: string;
  memory: ParamMemory;
  poolSize?: number;
  /** max_tokens of every replay (the gate settings); the gate's default when absent. */
  maxTokens?: number;
  cache: ReplayCache;
  regexRunner: RegexRunner;
  sleep?: Sleep;
  clock?: () => number;
  random?: () => number;
}

const decoder = new TextDecoder();
const asText = (data: Uint8Array | string) => (typeof data === 'string' ? data : decoder.decode(data));

/** The hashes of the skill's files as they are now. */
async function currentHashes(services: GateJobServices, skill: string): Promise<{ skillHash: string; casesHash: string; markdown: string | null; evals: string | null }> {
  const [skillData, evalsData] = await Promise.all([services.readSkillFile(skill, SKILL_FILE), services.readSkillFile(skill, EVALS_FILE)]);
  const markdown = skillData === null ? null : asText(skillData);
  const evals = evalsData === null ? null : asText(evalsData);
  const parsed = evals === null ? undefined : parseEvalsFile(evals);
  return {
    skillHash: skillData === null ? '' : await skillHashOf(skillData),
    casesHash: await casesHashOf(evals, parsed?.ok ? parsed.file : undefined),
    markdown,
    evals,
  };
}

export class SkillMissingError extends Error {
  override readonly name = 'SkillMissingError';
}

export async function runGateJob(
  job: GateJob,
  services: GateJobServices,
  options: { signal?: AbortSignal; onProgress?: (progress: GateProgress) => void } = {},
): Promise<GateRunResult> {
  const before = await currentHashes(services, job.skill);
  if (before.markdown === null) throw new SkillMissingError(`The skill "${job.skill}" has no SKILL.md; nothing to verify.`);
  const readFile: ReadCaseFile = (path) => services.readSkillFile(job.skill, path);
  const result = await runGate(
    {
      runId: job.runId,
      skill: { name: job.skill, markdown: before.markdown, skillHash: before.skillHash, version: job.version, readFile },
      evalsText: before.evals,
      policy: job.policy ?? DEFAULT_POLICY,
      gate: { provider: services.provider, providerId: services.providerId, memory: services.memory, label: services.providerLabel, poolSize: services.poolSize, maxTokens: services.maxTokens },
      budget: job.budget,
      useCache: job.useCache,
      previous: job.previous,
      signal: options.signal,
      onProgress: options.onProgress,
      clock: services.clock,
      random: services.random,
    },
    { cache: services.cache, regexRunner: services.regexRunner, sleep: services.sleep },
  );
  if (result.kind !== 'done') return result;
  const after = await currentHashes(services, job.skill);
  return { ...result, record: withSupersession(result.record, after) };
}
