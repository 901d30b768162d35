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
import type { EvidencePolicy, GateProgress, ReachRecord, VerdictRecord } from './types';
import { measureReach, reachCasesOf, reachIsLow, reachNote } from './reach';
import { proposeDescription, proposerMessages, runDescriptionTrial, type DescriptionTrial } from './descriptionTrial';
import type { FirstChatRequestBuilder } from './reachRequest';
import { gateParams } from './replayRequest';
import { DEFAULT_POLICY } from './policy';
import { casesHashOf, skillHashOf, withSupersession } from './verdictRecord';
import type { PreviousVersion } from './vsPrevious';
import { windowGuardedProvider, type RequestFits } from './gatePair';

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
  /** The gate model's window check (docs/context-window.md); absent: every case is sent. */
  fits?: RequestFits;
  cache: ReplayCache;
  regexRunner: RegexRunner;
  sleep?: Sleep;
  clock?: () => number;
  random?: () => number;
  /** Measure reach too (docs/gate.md, "Reach"); absent: replays only. */
  reach?: ReachServices;
}

export interface ReachServices {
  /** The one builder of first-chat-shaped requests (reachRequest.ts). */
  buildRequest: FirstChatRequestBuilder;
  /** The gate model's key: the index in each request is labelled for it. */
  modelKey: string;
  /** The router's pick for a prompt, to measure its reach beside the model's. */
  route?: (prompt: string) => string | null;
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
  given: GateJobServices,
  options: { signal?: AbortSignal; onProgress?: (progress: GateProgress) => void } = {},
): Promise<GateRunResult> {
  // Every request of the job passes the gate model's window check (docs/context-window.md).
  const services = given.fits ? { ...given, provider: windowGuardedProvider(given.provider, given.fits) } : given;
  const before = await currentHashes(services, job.skill);
  if (before.markdown === null) throw new SkillMissingError(`The skill "${job.skill}" has no SKILL.md; nothing to verify.`);
  const readFile: ReadCaseFile = (path) => services.readSkillFile(job.skill, path);
  const result = await runGate(
    {
      runId: job.runId,
      skill: { name: job.skill, markdown: before.markdown, skillHash: before.skillHash, version: job.version, readFile },
      evalsText: before.evals,
      policy: job.policy ?? DEFAULT_POLICY,
      gate: { provider: services.provider, providerId: services.providerId, memory: services.memory, label: services.providerLabel, poolSize: services.poolSize, maxTokens: services.maxTokens, ...(services.fits ? { fits: services.fits } : {}) },
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
  let record = result.record;
  // A run that measured nothing (too few cases, the provider not answering) measures no reach either.
  if (services.reach && before.evals !== null && record.verdict.sub !== 'not_measured') {
    const reach = await reachOf(job, services, services.reach, before.markdown, before.evals, options.signal);
    if (reach === 'cancelled') return { kind: 'cancelled', pairsDone: record.cases.length, pairsTotal: record.cases.length };
    if (reach) record = withReach(record, reach);
    if (reach && reachIsLow(reach)) {
      const trial = await trialOf(job, services, services.reach, before.markdown, before.evals, options.signal);
      if (trial === 'cancelled') return { kind: 'cancelled', pairsDone: record.cases.length, pairsTotal: record.cases.length };
      if (trial) record = { ...record, descriptionTrial: trial };
    }
  }
  const after = await currentHashes(services, job.skill);
  return { ...result, record: withSupersession(record, after), verdict: record.verdict };
}

/** The name the index shows for the skill (its frontmatter name), when it has one. */
function frontmatterName(markdown: string): string | null {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(markdown)?.[1] ?? '';
  return /^name:\s*["']?([^"'\r\n]+?)["']?\s*$/m.exec(block)?.[1] ?? null;
}

/** Reach on the skill's cases after its replays; null when the cases file has none to measure. */
async function reachOf(job: GateJob, services: GateJobServices, reach: ReachServices, markdown: string, evals: string, signal?: AbortSignal): Promise<ReachRecord | null | 'cancelled'> {
  const parsed = parseEvalsFile(evals);
  if (!parsed.ok) return null;
  const cases = reachCasesOf(parsed.file);
  if (cases.length === 0) return null;
  const names = [job.skill, frontmatterName(markdown)].filter((name): name is string => !!name);
  try {
    return await measureReach({
      names,
      cases,
      provider: services.provider,
      providerId: services.providerId,
      modelKey: reach.modelKey,
      params: services.memory.apply(services.providerId, services.provider.model, gateParams(services.maxTokens)),
      buildRequest: reach.buildRequest,
      cache: services.cache,
      useCache: job.useCache,
      route: reach.route,
      signal,
    });
  } catch (error) {
    if (signal?.aborted) return 'cancelled';
    throw error;
  }
}

/** The frontmatter description (one line), or null. */
function frontmatterDescription(markdown: string): string | null {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(markdown)?.[1] ?? '';
  return /^description:\s*["']?([^\r\n]*?)["']?\s*$/m.exec(block)?.[1] ?? null;
}

/** The description trial when reach is low (docs/gate.md, "Description trial"); null when none ran. */
async function trialOf(job: GateJob, services: GateJobServices, reach: ReachServices, markdown: string, evals: string, signal?: AbortSignal): Promise<DescriptionTrial | null | 'cancelled'> {
  const parsed = parseEvalsFile(evals);
  const description = frontmatterDescription(markdown);
  if (!parsed.ok || !description) return null;
  const params = services.memory.apply(services.providerId, services.provider.model, gateParams(services.maxTokens));
  const indexName = frontmatterName(markdown) ?? job.skill;
  try {
    return await runDescriptionTrial({
      reach: { names: [job.skill, indexName], provider: services.provider, providerId: services.providerId, modelKey: reach.modelKey, params, buildRequest: reach.buildRequest, cache: services.cache, useCache: job.useCache, signal },
      indexName,
      description,
      cases: reachCasesOf(parsed.file),
      propose: (train) =>
        proposeDescription({ provider: services.provider, providerId: services.providerId, params, cache: services.cache, signal }, proposerMessages({ name: indexName, description, markdown }, train)),
    });
  } catch (error) {
    if (signal?.aborted) return 'cancelled';
    throw error;
  }
}

/** The record with its reach, and the reason saying so when the skill helps but is not reached. */
function withReach(record: VerdictRecord, reach: ReachRecord): VerdictRecord {
  const note = reachNote(record.verdict, reach);
  const verdict = note ? { ...record.verdict, reason: `${record.verdict.reason} ${note}` } : record.verdict;
  return { ...record, reach, verdict };
}
