/**
 * One verification run, start to finish (docs/gate.md, "How a run goes"): read the cases,
 * split them, replay the development cases, stop early when the holdout cannot change the
 * verdict, replay the held-out cases, probe replay noise once, and ask decide() once for the
 * verdict. The result is the evidence record; storing it, applying it and telling the UI are
 * the caller's (the review worker's gate job is a thin wrapper around `runGate`).
 *
 * Plain TypeScript with every effect injected (provider, cache, regex runner, sleep, clock,
 * random), so the whole run is tested in-thread with a scripted provider.
 *
 * A cancelled run returns `cancelled` and no verdict: the previous verdict stays as it was.
 */
import type { ChatProvider } from '../providers/provider';
import type { RegexRunner } from './checks';
import { providerLocality } from './cacheKey';
import { decide, settledBeforeHoldout } from './decide';
import { parseEvalsFile, scorableCases, type ReadCaseFile } from './evalCases';
import { newMeter, planArm, type PairContext, type RequestFits, type RunMeter } from './gatePair';
import { newScheduleState, runSchedule, type GateBudget, type ScheduleState } from './gateSchedule';
import { noProbe, runNoiseProbe, type NoiseProbe } from './noiseProbe';
import { policyThresholds } from './policy';
import { isReplayAborted, recordedParams, type ParamMemory, type Sleep } from './replayArm';
import type { ReplayCache } from './replayCache';
import { LOCAL_POOL_SIZE, REMOTE_POOL_SIZE, ReplayPool, WEBGPU_POOL_SIZE } from './replayPool';
import { gateParams } from './replayRequest';
import { DEFAULT_HOLDOUT_RATIO, splitCases } from './split';
import { buildEvidence, checkDiagnostics, type RunFacts } from './summary';
import type { CaseResult, EvidencePolicy, ExcludedCase, GateProgress, Split, SplitCase, Verdict, VerdictRecord } from './types';
import { buildVerdictRecord, casesHashOf } from './verdictRecord';
import { compareWithPrevious, type PreviousVersion } from './vsPrevious';

/** Consecutive unmeasured pairs after which the run stops (the provider is not answering). */
export const BREAKER_PAIRS = 3;

export interface GateSkillInput {
  name: string;
  /** The whole SKILL.md as stored. */
  markdown: string;
  /** skillHashOf(SKILL.md bytes), as read together with `markdown`. */
  skillHash: string;
  /** Ledger sequence number of this version (0 when unknown). */
  version?: number;
  /** Reads a file of the skill folder, for the files a case names. */
  readFile: ReadCaseFile;
}

export interface GateProviderInput {
  provider: ChatProvider;
  /** replayProviderId(settings): part of every cache key. */
  providerId: string;
  /** Parameters this (provider, model) refused before; the run adds what it learns. */
  memory: ParamMemory;
  /** How the provider is named in reasons ("verify again when … answers"); the id by default. */
  label?: string;
  /** Cases in flight at once; by default 1 in the browser engine, 2 on loopback, 4 hosted. */
  poolSize?: number;
  maxTokens?: number;
  /** Retries per request after transport failures (replayArm's default when absent). */
  retries?: number;
  timeoutMs?: number;
  /** The window check: a case that does not fit the gate model is not sent (docs/context-window.md). */
  fits?: RequestFits;
}

export type { GateBudget } from './gateSchedule';

export interface GateRunInput {
  runId: string;
  skill: GateSkillInput;
  /** evals/evals.json as text, or null when the skill has none. */
  evalsText: string | null;
  policy: EvidencePolicy;
  gate: GateProviderInput;
  budget?: GateBudget;
  /** false = "Verify again without cache": hits are ignored, answers still stored. */
  useCache?: boolean;
  /** One noise probe per run (default true). */
  noiseProbe?: boolean;
  /** The version before a patch: its with-skill answers are read from the cache only. */
  previous?: PreviousVersion;
  signal?: AbortSignal;
  onProgress?: (progress: GateProgress) => void;
  /** Epoch milliseconds. */
  clock?: () => number;
  /** In [0, 1): backoff jitter and the noise probe's pick. */
  random?: () => number;
}

export interface GateRunDeps {
  cache: ReplayCache;
  regexRunner: RegexRunner;
  sleep?: Sleep;
}

/** What the record has no field for, for the run's log and the caller's counters. */
export interface GateRunNotes {
  /** The holdout was not replayed because dev already settled the verdict. */
  holdoutSkipped?: { cases: number; savedCalls: number };
  /** Why the run stopped before its last case, when it did. */
  stoppedBy?: 'breaker' | 'budget';
  /** Per-model noise counters are the caller's: add `probed` and `flipped` to them. */
  noiseProbe: NoiseProbe;
}

export type GateRunResult =
  | { kind: 'done'; record: VerdictRecord; verdict: Verdict; notes: GateRunNotes }
  | { kind: 'cancelled'; pairsDone: number; pairsTotal: number };

function defaultPoolSize(providerId: string): number {
  const locality = providerLocality(providerId);
  return locality === 'webgpu' ? WEBGPU_POOL_SIZE : locality === 'local' ? LOCAL_POOL_SIZE : REMOTE_POOL_SIZE;
}

/** What reading the cases gave: a split to run, or facts that already decide. */
type CasesRead =
  | { kind: 'settled'; facts: Omit<RunFacts, 'providerLabel'> }
  | { kind: 'run'; split: Split; parseExcluded: ExcludedCase[] };

async function readCases(input: GateRunInput, minCases: number): Promise<CasesRead> {
  if (input.evalsText === null) return { kind: 'settled', facts: { hasCasesFile: false, results: [] } };
  const parsed = parseEvalsFile(input.evalsText);
  if (!parsed.ok) return { kind: 'settled', facts: { hasCasesFile: true, casesError: parsed.error, results: [] } };
  const { cases, excluded } = await scorableCases(parsed.file, input.skill.readFile);
  const split = await splitCases(cases, DEFAULT_HOLDOUT_RATIO);
  const facts = { hasCasesFile: true, split, parseExcluded: excluded, results: [], splitRatio: DEFAULT_HOLDOUT_RATIO };
  if (split.dev.length + split.holdout.length + (split.notRun?.length ?? 0) < minCases) return { kind: 'settled', facts };
  return { kind: 'run', split, parseExcluded: excluded };
}

interface RunContext {
  input: GateRunInput;
  deps: GateRunDeps;
  pair: PairContext;
  meter: RunMeter;
  startedAt: number;
  clock: () => number;
  random: () => number;
  providerLabel: string;
}

function createContext(input: GateRunInput, deps: GateRunDeps): RunContext {
  const clock = input.clock ?? Date.now;
  const random = input.random ?? Math.random;
  const meter = newMeter();
  const { gate } = input;
  const pair: PairContext = {
    provider: gate.provider,
    providerId: gate.providerId,
    memory: gate.memory,
    cache: deps.cache,
    useCache: input.useCache !== false,
    regexRunner: deps.regexRunner,
    skill: { name: input.skill.name, markdown: input.skill.markdown },
    params: gateParams(gate.maxTokens),
    stabilityReplay: policyThresholds(input.policy).stabilityReplay,
    meter,
    sleep: deps.sleep,
    random,
    retries: gate.retries,
    timeoutMs: gate.timeoutMs,
    ...(gate.fits ? { fits: gate.fits } : {}),
  };
  return { input, deps, pair, meter, startedAt: clock(), clock, random, providerLabel: gate.label ?? gate.providerId };
}

/** Runs the verification of one skill version; see the module comment. */
export async function runGate(input: GateRunInput, deps: GateRunDeps): Promise<GateRunResult> {
  const ctx = createContext(input, deps);
  const thresholds = policyThresholds(input.policy);
  const read = await readCases(input, thresholds.minCases);
  if (read.kind === 'settled') {
    if (input.signal?.aborted) return { kind: 'cancelled', pairsDone: 0, pairsTotal: 0 };
    return finish(ctx, { ...read.facts, providerLabel: ctx.providerLabel }, undefined, { noiseProbe: noProbe() });
  }
  const { split } = read;
  const pool = new ReplayPool(input.gate.poolSize ?? defaultPoolSize(input.gate.providerId), input.signal);
  const state = newScheduleState();
  const pairsTotal = split.dev.length + split.holdout.length;
  const progress = (phase: GateProgress['phase']) =>
    input.onProgress?.({
      runId: input.runId,
      skill: input.skill.name,
      phase,
      casesDone: state.casesDone,
      casesTotal: pairsTotal,
      requests: ctx.meter.requests,
      cacheHits: ctx.meter.cacheHits,
    });
  const facts = (): RunFacts => ({
    hasCasesFile: true,
    split,
    parseExcluded: read.parseExcluded,
    results: orderedResults(split, state.results),
    breaker: state.stoppedBy === 'breaker' ? true : undefined,
    budget: state.stoppedBy === 'budget' ? budgetFacts(ctx, state, split) : undefined,
    providerLabel: ctx.providerLabel,
    splitRatio: DEFAULT_HOLDOUT_RATIO,
  });
  try {
    const schedule = { pool, pair: ctx.pair, budget: input.budget, breakerPairs: BREAKER_PAIRS, onCase: () => progress(state.phase ?? 'dev') };
    progress('dev');
    await runSchedule(schedule, split.dev, state);
    const notes: GateRunNotes = { noiseProbe: noProbe() };
    if (!state.stoppedBy && split.holdout.length > 0) {
      if (settledBeforeHoldout(decide(buildEvidence(facts()), thresholds))) {
        notes.holdoutSkipped = { cases: split.holdout.length, savedCalls: await uncachedArms(ctx, split.holdout) };
      } else {
        state.phase = 'holdout';
        progress('holdout');
        await runSchedule(schedule, split.holdout, state);
      }
    }
    if (state.stoppedBy) notes.stoppedBy = state.stoppedBy;
    notes.noiseProbe = await probeIfWorthIt(ctx, state, split, pool.signal);
    if (input.signal?.aborted) return { kind: 'cancelled', pairsDone: state.results.length, pairsTotal };
    const result = await finish(ctx, facts(), split, notes);
    progress('done');
    return result;
  } catch (error) {
    if (isReplayAborted(error) || input.signal?.aborted) {
      pool.cancel();
      return { kind: 'cancelled', pairsDone: state.results.length, pairsTotal };
    }
    throw error;
  }
}

/** Results in split order (dev, then holdout, each in key order), whatever order they finished in. */
function orderedResults(split: Split, results: CaseResult[]): CaseResult[] {
  const order = new Map<string, number>();
  [...split.dev, ...split.holdout].forEach((testCase, i) => order.set(String(testCase.id), i));
  return [...results].sort((a, b) => (order.get(String(a.id)) ?? 0) - (order.get(String(b.id)) ?? 0));
}

function budgetFacts(ctx: RunContext, state: ScheduleState, split: Split): NonNullable<RunFacts['budget']> {
  return {
    requests: ctx.meter.requests,
    tokens: ctx.meter.promptTokens + ctx.meter.completionTokens,
    casesRun: state.results.length,
    casesPlanned: split.dev.length + split.holdout.length,
  };
}

/** Requests the skipped holdout would have sent: its arms the cache does not hold. */
async function uncachedArms(ctx: RunContext, holdout: SplitCase[]): Promise<number> {
  let missing = 0;
  for (const testCase of holdout) {
    for (const arm of ['baseline', 'skill'] as const) {
      if (!(await planArm(ctx.pair, testCase, arm)).cached) missing++;
    }
  }
  return missing;
}

/**
 * One probe per run, only when the run paid for requests of its own (re-verifying an unchanged
 * skill stays free) and the provider was answering (not after the breaker opened).
 */
async function probeIfWorthIt(ctx: RunContext, state: ScheduleState, split: Split, signal: AbortSignal): Promise<NoiseProbe> {
  if (ctx.input.noiseProbe === false || ctx.meter.requests === 0 || state.stoppedBy === 'breaker') return noProbe();
  const byId = new Map<string, SplitCase>([...split.dev, ...split.holdout].map((testCase) => [String(testCase.id), testCase]));
  return runNoiseProbe(ctx.pair, orderedResults(split, state.results), byId, ctx.random, signal);
}

/** The one decide() of the run, and the record written from it. */
async function finish(ctx: RunContext, facts: RunFacts, split: Split | undefined, notes: GateRunNotes): Promise<GateRunResult> {
  const { input } = ctx;
  const evidence = buildEvidence(facts);
  const verdict = decide(evidence, policyThresholds(input.policy));
  const casesById = new Map<string, SplitCase>([...(split?.dev ?? []), ...(split?.holdout ?? [])].map((c) => [String(c.id), c]));
  const flaky = new Set(notes.noiseProbe.flakyChecks);
  const vsPrevious = input.previous ? await compareWithPrevious(ctx.pair, input.previous, facts.results, casesById) : undefined;
  const finishedAt = ctx.clock();
  const params = recordedParams(input.gate.memory.apply(input.gate.providerId, input.gate.provider.model, ctx.pair.params));
  const record = buildVerdictRecord({
    id: input.runId,
    skill: input.skill.name,
    skillHash: input.skill.skillHash,
    casesHash: await casesHashOf(input.evalsText, parsedFile(input.evalsText)),
    skillVersion: input.skill.version ?? 0,
    policy: input.policy,
    provider: providerLocality(input.gate.providerId) === 'webgpu' ? 'webgpu' : input.gate.providerId,
    modelId: input.gate.provider.model,
    params,
    verdict,
    startedAt: ctx.startedAt,
    finishedAt,
    split,
    excluded: evidence.excluded,
    cases: facts.results,
    meter: ctx.meter,
    checkDiagnostics: checkDiagnostics(facts.results, (id) => casesById.get(String(id))?.checks, flaky),
    vsPrevious,
  });
  return { kind: 'done', record, verdict, notes };
}

function parsedFile(evalsText: string | null) {
  if (evalsText === null) return undefined;
  const parsed = parseEvalsFile(evalsText);
  return parsed.ok ? parsed.file : undefined;
}
