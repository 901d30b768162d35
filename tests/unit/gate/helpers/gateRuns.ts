/** Case sets, synthetic skills and a runGate wrapper for the gate's run-level tests. */
import { parseEvalsFile, scorableCases } from '../../../../src/gate/evalCases';
import { EVALS_FILE, runGateJob, SKILL_FILE } from '../../../../src/gate/gateJob';
import { runGate, type GateBudget, type GateRunInput, type GateRunResult } from '../../../../src/gate/gateRun';
import { ParamMemory, ReplayAbortedError, type Sleep } from '../../../../src/gate/replayArm';
import { MemoryReplayCache, type ReplayCache } from '../../../../src/gate/replayCache';
import { splitCases } from '../../../../src/gate/split';
import type { Check, EvidencePolicy } from '../../../../src/gate/types';
import { skillHashOf } from '../../../../src/gate/verdictRecord';
import type { ChatProvider } from '../../../../src/providers/provider';
import { inlineRegexRunner } from '../../helpers/nodeRegexRunner';
import { mulberry32 } from './cases';

export interface CaseSpec {
  id: number;
  prompt: string;
  checks: Check[];
  source?: boolean;
}

export function evalsText(skillName: string, cases: CaseSpec[]): string {
  const evals = cases.map((spec) => ({
    id: spec.id,
    prompt: spec.prompt,
    expected_output: 'Names the house font.',
    checks: spec.checks,
    ...(spec.source ? { knack: { origin: 'review', source: true } } : {}),
  }));
  return JSON.stringify({ skill_name: skillName, evals }, null, 2);
}

export const fontPrompt = (i: number) => `Pick a font for caption ${i} of the quarterly report.`;

/** n cases, two checks each: the house font, and naming the caption asked about. */
export const fontCases = (n: number): CaseSpec[] =>
  Array.from({ length: n }, (_, k) => ({
    id: k + 1,
    prompt: fontPrompt(k + 1),
    checks: [
      { type: 'icontains', value: 'Pretendard' },
      { type: 'icontains', value: `caption ${k + 1}` },
    ],
  }));

const captionOf = (prompt: string) => /caption (\d+)/.exec(prompt)?.[1] ?? '?';

/** Without the skill the model names the caption but picks Arial: 1 of 2 checks. */
export const fontBaseline = (prompt: string) => `For caption ${captionOf(prompt)}, use Arial.`;
/** What a skill that knows the house font makes it say: 2 of 2. */
export const fontGood = (prompt: string) => `For caption ${captionOf(prompt)}, use Pretendard.`;
/** What a harmful skill makes it say: 0 of 2. */
export const fontBad = () => 'Use Comic Sans for everything.';
/** A world where the model already knows the house font. */
export const fontAlreadyKnown = fontGood;

export const LETTERS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'] as const;
export const letterPrompt = (i: number) => `List the call signs for convoy ${i}.`;
/** n cases with five checks each (one per call sign). */
export const letterCases = (n: number): CaseSpec[] =>
  Array.from({ length: n }, (_, k) => ({ id: k + 1, prompt: letterPrompt(k + 1), checks: LETTERS.map((value) => ({ type: 'icontains', value }) as Check) }));
/** An answer that passes exactly `count` of the five checks. */
export const letters = (count: number) => (count === 0 ? 'No call signs.' : `Call signs: ${LETTERS.slice(0, count).join(', ')}.`);

/** The split the gate will use for this file, from the gate's own functions. */
export async function splitOf(text: string): Promise<{ dev: string[]; holdout: string[] }> {
  const parsed = parseEvalsFile(text);
  if (!parsed.ok) throw new Error(parsed.error);
  const { cases } = await scorableCases(parsed.file, async () => null);
  const split = await splitCases(cases);
  return { dev: split.dev.map((c) => c.prompt), holdout: split.holdout.map((c) => c.prompt) };
}

export function skillMarkdown(name: string, lines: string[]): string {
  return `---\nname: ${name}\ndescription: Synthetic skill ${name} for the gate tests.\n---\n\n# ${name}\n\n${lines.join('\n')}\n`;
}

/** Body lines answering each of `prompts` with `answer(prompt)`. */
export const answering = (prompts: string[], answer: (prompt: string) => string) => prompts.map((prompt) => `case: ${prompt} => ${answer(prompt)}`);

export const instantSleep: Sleep = async (_ms, signal) => {
  if (signal?.aborted) throw new ReplayAbortedError();
};

export interface RunOptions {
  name: string;
  markdown: string;
  evals: string | null;
  provider: ChatProvider;
  providerId?: string;
  cache?: ReplayCache;
  memory?: ParamMemory;
  policy?: EvidencePolicy;
  overrides?: Partial<GateRunInput>;
  gate?: Partial<GateRunInput['gate']>;
}

let runCounter = 0;

/** runGate with test defaults: in-memory cache, no waiting, a fixed clock and a seeded random. */
export async function runSkill(options: RunOptions): Promise<GateRunResult> {
  let now = Date.UTC(2026, 11, 1, 12, 0, 0);
  return runGate(
    {
      runId: `run-${++runCounter}`,
      skill: { name: options.name, markdown: options.markdown, skillHash: await skillHashOf(options.markdown), version: 1, readFile: async () => null },
      evalsText: options.evals,
      policy: options.policy ?? 'standard',
      gate: {
        provider: options.provider,
        providerId: options.providerId ?? 'http://localhost:8080/v1',
        memory: options.memory ?? new ParamMemory(),
        label: 'the test server',
        poolSize: 2,
        ...options.gate,
      },
      clock: () => (now += 5),
      random: mulberry32(7),
      ...options.overrides,
    },
    { cache: options.cache ?? new MemoryReplayCache(), regexRunner: inlineRegexRunner, sleep: instantSleep },
  );
}

export interface JobOptions {
  name: string;
  markdown: string;
  evals: string | null;
  provider: ChatProvider;
  providerId?: string;
  cache?: ReplayCache;
  memory?: ParamMemory;
  policy?: EvidencePolicy;
  budget?: GateBudget;
  poolSize?: number;
}

/**
 * The run as the review worker's gate job makes it (runGateJob): the skill's files in an
 * in-memory folder, read, hashed and replayed, with the same test defaults as `runSkill`.
 */
export async function runJob(options: JobOptions): Promise<GateRunResult> {
  let now = Date.UTC(2026, 11, 1, 12, 0, 0);
  const files = new Map<string, string>([[SKILL_FILE, options.markdown]]);
  if (options.evals !== null) files.set(EVALS_FILE, options.evals);
  return runGateJob(
    { runId: `job-${++runCounter}`, skill: options.name, version: 1, policy: options.policy ?? 'standard', budget: options.budget },
    {
      readSkillFile: async (_skill, path) => files.get(path) ?? null,
      provider: options.provider,
      providerId: options.providerId ?? 'http://localhost:8080/v1',
      providerLabel: 'the test server',
      memory: options.memory ?? new ParamMemory(),
      poolSize: options.poolSize ?? 2,
      cache: options.cache ?? new MemoryReplayCache(),
      regexRunner: inlineRegexRunner,
      sleep: instantSleep,
      clock: () => (now += 5),
      random: mulberry32(7),
    },
  );
}

/** The verdict of a finished run; fails the test for a cancelled one. */
export function done(result: GateRunResult) {
  if (result.kind !== 'done') throw new Error(`expected a finished run, got ${result.kind}`);
  return result;
}
