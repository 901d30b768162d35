/**
 * One case of a gate run: its two arms looked up in the replay cache, the missing ones
 * replayed back to back, both answers scored, and the case's outcome (docs/gate.md, "How a run
 * goes"). The run orchestrator (gateRun.ts) decides which cases run and when to stop; this
 * module owns what happens inside one case and what it costs.
 *
 * Rules kept here:
 * - a cache hit costs no request; only answers (never errors, empties, truncations) are
 *   stored, and they are stored even when the run ignores hits ("verify again without cache");
 * - a baseline that failed, was cut off or did not fit makes the pair unmeasured whatever the
 *   skill arm says, so the skill arm is then not sent at all;
 * - a regex that timed out makes the case unscorable (flag), never a failed check;
 * - in strict mode the baseline is replayed a second time, uncached; disagreeing pass counts
 *   flag the case as unstable (it counts as a tie).
 */
import { ProviderError, type ChatMessage, type ChatProvider, type StreamPart, type ToolSpec, type Usage } from '../providers/provider';
import { replayCacheKey } from './cacheKey';
import { answerText, scoreOutput, type RegexRunner } from './checks';
import { replayArm, type ArmReplay, type ParamMemory, type Sleep } from './replayArm';
import type { ReplayCache } from './replayCache';
import { buildReplayRequest, type ReplayArmName, type ReplayParams, type ReplayRequest, type SkillUnderTest } from './replayRequest';
import { caseOutcome, UNSTABLE_BASELINE_FLAG } from './summary';
import type { ArmResult, CaseResult, SplitCase } from './types';

export const EXCERPT_CHARS = 500;
export const SKILL_TOO_LONG_FLAG = 'skill_too_long';
export const REGEX_TIMEOUT_FLAG = 'regex_timeout';
/** A case whose request does not fit the gate model's window: not sent, unmeasured (docs/context-window.md). */
export const TOO_LONG_FOR_MODEL_FLAG = 'too_long_for_model';

/**
 * Whether a request fits the gate model's window with room for `maxTokens` of answer: null when
 * it does, else the reason in words ("too long for qwen3:4b: …"). Supplied by the app, which knows
 * the window and counts tokens (src/app/modelWindows.ts).
 */
export type RequestFits = (messages: readonly ChatMessage[], maxTokens: number, tools?: readonly ToolSpec[]) => string | null;

/**
 * The gate's provider behind the window check: every request a gate job makes — replays, the
 * noise probe, reach requests, a description proposal — is checked before it is sent, and one that
 * does not fit fails as a context-length refusal would, without reaching the model
 * (docs/context-window.md, "Background work").
 */
export function windowGuardedProvider(provider: ChatProvider, fits: RequestFits): ChatProvider {
  return {
    id: provider.id,
    model: provider.model,
    nativeTools: provider.nativeTools,
    stream(request) {
      const reason = fits(request.messages, request.maxTokens ?? 0, request.tools);
      if (reason === null) return provider.stream(request);
      const refusal = new ProviderError('bad-request', reason, 'Choose a gate model with a larger window, or shorten the skill and its cases.', undefined, { contextTooLong: true });
      return { [Symbol.asyncIterator]: () => ({ next: (): Promise<IteratorResult<StreamPart>> => Promise.reject(refusal) }) };
    },
  };
}

/** What a run spent so far; shared by every case of the run. */
export interface RunMeter {
  requests: number;
  cacheHits: number;
  promptTokens: number;
  completionTokens: number;
  /** Some usage was estimated from text length because the provider reported none. */
  estimated: boolean;
}

export const newMeter = (): RunMeter => ({ requests: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0, estimated: false });

/** Everything a case needs from its run. */
export interface PairContext {
  provider: ChatProvider;
  providerId: string;
  memory: ParamMemory;
  cache: ReplayCache;
  /** false = ignore hits (answers are still stored). */
  useCache: boolean;
  regexRunner: RegexRunner;
  skill: SkillUnderTest;
  /** The parameters the gate wants; refused ones are dropped per (provider, model). */
  params: ReplayParams;
  /** Strict policy: replay the baseline twice, uncached. */
  stabilityReplay: boolean;
  /** The window check before a case is sent; absent: every request is sent. */
  fits?: RequestFits;
  meter: RunMeter;
  sleep?: Sleep;
  random?: () => number;
  retries?: number;
  timeoutMs?: number;
}

/** One arm ready to go: its exact request, its key and, when the cache had it, the answer. */
export interface PlannedArm {
  arm: ReplayArmName;
  request: ReplayRequest;
  key: string;
  cached?: { rawText: string };
}

export async function planArm(ctx: PairContext, testCase: SplitCase, arm: ReplayArmName): Promise<PlannedArm> {
  const params = ctx.memory.apply(ctx.providerId, ctx.provider.model, ctx.params);
  const request = buildReplayRequest(testCase, arm, arm === 'skill' ? ctx.skill : undefined, params);
  const key = await keyOf(ctx, request);
  if (!ctx.useCache) return { arm, request, key };
  const entry = await ctx.cache.get(key);
  return entry ? { arm, request, key, cached: { rawText: entry.rawText } } : { arm, request, key };
}

export function keyOf(ctx: Pick<PairContext, 'provider' | 'providerId'>, request: ReplayRequest): Promise<string> {
  return replayCacheKey({ provider: ctx.providerId, model: ctx.provider.model, params: request.params, messages: request.messages });
}

/** Provider-reported usage, or an estimate of about 4 characters a token when it reported none. */
function addUsage(meter: RunMeter, usage: Usage, request: ReplayRequest, rawText: string): void {
  if (usage.promptTokens === undefined && usage.completionTokens === undefined) {
    meter.estimated = true;
    const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
    meter.promptTokens += Math.ceil(promptChars / 4);
    meter.completionTokens += Math.ceil(rawText.length / 4);
    return;
  }
  meter.promptTokens += usage.promptTokens ?? 0;
  meter.completionTokens += usage.completionTokens ?? 0;
}

/**
 * Sends one request (with replayArm's retries) and keeps its answer in the cache when it is
 * one. `key` is where the answer is (or would be) stored: the hash of what was finally sent,
 * so a parameter the provider refused on the way is not in it.
 */
export async function sendArm(ctx: PairContext, planned: PlannedArm, signal: AbortSignal, store = true): Promise<{ replay: ArmReplay; key: string }> {
  const replay = await replayArm(ctx.provider, planned.request, {
    providerId: ctx.providerId,
    memory: ctx.memory,
    signal,
    answerText,
    sleep: ctx.sleep,
    random: ctx.random,
    retries: ctx.retries,
    timeoutMs: ctx.timeoutMs,
  });
  ctx.meter.requests += replay.requests;
  addUsage(ctx.meter, replay.usage, planned.request, replay.rawText);
  const key = await keyOf(ctx, { messages: planned.request.messages, params: replay.sentParams });
  if (store && replay.status === 'ok') await ctx.cache.put(key, ctx.providerId, replay);
  return { replay, key };
}

/** An arm's answer (from the cache or the provider) scored against the case's checks. */
interface ScoredArm {
  result: ArmResult;
  flags: string[];
}

async function scoreArm(ctx: PairContext, testCase: SplitCase, key: string, raw: { status: ArmResult['status']; rawText: string; error?: string }, fromCache: boolean): Promise<ScoredArm> {
  const text = answerText(raw.rawText);
  const base: ArmResult = { status: raw.status, passed: 0, checkPass: [], outputRef: key, excerpt: text.slice(0, EXCERPT_CHARS) };
  if (fromCache) base.fromCache = true;
  if (raw.error !== undefined) base.error = raw.error;
  if (raw.status !== 'ok' && raw.status !== 'empty') return { result: base, flags: [] };
  const score = await scoreOutput(text, testCase.checks, ctx.regexRunner);
  if (score.timedOut) return { result: base, flags: [REGEX_TIMEOUT_FLAG] };
  if (score.unscorable !== undefined) {
    // Not the answer's fault: the pair is unmeasured, with the reason, never a 0.
    return { result: { ...base, status: 'error', error: `could not score: ${score.unscorable}` }, flags: [] };
  }
  return { result: { ...base, passed: score.passed, checkPass: score.checkPass }, flags: [] };
}

/** A cached arm, or the arm sent now. */
async function obtainArm(ctx: PairContext, testCase: SplitCase, planned: PlannedArm, signal: AbortSignal): Promise<ScoredArm> {
  if (planned.cached) {
    ctx.meter.cacheHits++;
    await ctx.cache.touch(planned.key);
    return scoreArm(ctx, testCase, planned.key, { status: 'ok', rawText: planned.cached.rawText }, true);
  }
  const { replay, key } = await sendArm(ctx, planned, signal);
  return scoreArm(ctx, testCase, key, replay, false);
}

/** Baseline outcomes after which no with-skill answer could make the pair measurable. */
const BASELINE_DEAD_END: ReadonlySet<ArmResult['status']> = new Set(['error', 'truncated', 'too-long']);

const skippedArm = (key: string): ArmResult => ({
  status: 'error',
  passed: 0,
  checkPass: [],
  outputRef: key,
  excerpt: '',
  error: 'not sent: the baseline could not be measured',
});

/** Strict mode: does a second, uncached baseline pass the same number of checks? */
async function baselineIsStable(ctx: PairContext, testCase: SplitCase, planned: PlannedArm, first: ArmResult, signal: AbortSignal): Promise<boolean> {
  const { replay: again } = await sendArm(ctx, { ...planned, cached: undefined }, signal, false);
  const scored = await scoreArm(ctx, testCase, planned.key, again, false);
  // A second replay that failed says nothing about stability.
  return scored.result.status !== 'ok' || scored.result.passed === first.passed;
}

/** Replays one case whose arms were planned (looked up) already. */
export async function runPair(ctx: PairContext, testCase: SplitCase, arms: { base: PlannedArm; skill: PlannedArm }, signal: AbortSignal): Promise<CaseResult> {
  const tooLong = tooLongReason(ctx, arms);
  if (tooLong !== null) {
    const notSent = (planned: PlannedArm): ArmResult => ({ status: 'too-long', passed: 0, checkPass: [], outputRef: planned.key, excerpt: '', error: tooLong });
    const result: Omit<CaseResult, 'outcome'> = { id: testCase.id, side: testCase.side, checks: testCase.checks.length, base: notSent(arms.base), skill: notSent(arms.skill), flags: [TOO_LONG_FOR_MODEL_FLAG] };
    return { ...result, outcome: caseOutcome(result) };
  }
  const base = await obtainArm(ctx, testCase, arms.base, signal);
  const flags = [...base.flags];
  let skill: ScoredArm;
  if (BASELINE_DEAD_END.has(base.result.status)) {
    skill = { result: skippedArm(arms.skill.key), flags: [] };
  } else {
    skill = await obtainArm(ctx, testCase, arms.skill, signal);
    flags.push(...skill.flags.filter((flag) => !flags.includes(flag)));
  }
  if (skill.result.status === 'too-long') flags.push(SKILL_TOO_LONG_FLAG);
  if (ctx.stabilityReplay && base.result.status === 'ok' && flags.length === 0) {
    if (!(await baselineIsStable(ctx, testCase, arms.base, base.result, signal))) flags.push(UNSTABLE_BASELINE_FLAG);
  }
  const result: Omit<CaseResult, 'outcome'> = { id: testCase.id, side: testCase.side, checks: testCase.checks.length, base: base.result, skill: skill.result, flags };
  return { ...result, outcome: caseOutcome(result) };
}

/**
 * Why the case cannot be sent to this model (its with-skill request, the longer one, does not fit
 * the window), or null. Cached arms were answered before and need no check.
 */
function tooLongReason(ctx: PairContext, arms: { base: PlannedArm; skill: PlannedArm }): string | null {
  if (!ctx.fits) return null;
  for (const planned of [arms.skill, arms.base]) {
    if (planned.cached) continue;
    const reason = ctx.fits(planned.request.messages, planned.request.params.maxTokens);
    if (reason !== null) return reason;
  }
  return null;
}

/** Requests the planned arms will need (cached arms need none). */
export const missingArms = (arms: { base: PlannedArm; skill: PlannedArm }): number => (arms.base.cached ? 0 : 1) + (arms.skill.cached ? 0 : 1);
