/**
 * Sensitivity and specificity of the whole gate (docs/gate.md, "What is tested"): synthetic
 * skills whose truth is known, run through the real runGate (parse, split, replay, cache,
 * score, decide), started the way the review worker starts it (runGateJob, on the skill's
 * files in an in-memory folder), against a scripted model that decides per request: is the skill loaded, and
 * which case is asked. Which cases are dev and which are held out comes from the gate's own
 * splitCases, so a skill can be written to help exactly where the test wants it to.
 */
import { describe, expect, it } from 'vitest';
import { BREAKER_PAIRS } from '../../../src/gate/gateRun';
import { DEFAULT_RETRIES } from '../../../src/gate/replayArm';
import { MemoryReplayCache } from '../../../src/gate/replayCache';
import type { VerdictCode, VerdictWord } from '../../../src/gate/types';
import { ProviderError } from '../../../src/providers/provider';
import { createGateModel, type GateModelOptions } from './helpers/gateModel';
import {
  answering,
  done,
  evalsText,
  fontAlreadyKnown,
  fontBad,
  fontBaseline,
  fontCases,
  fontGood,
  letterCases,
  letters,
  runJob,
  skillMarkdown,
  splitOf,
  type JobOptions,
} from './helpers/gateRuns';

const FONT8 = evalsText('house-font', fontCases(8));
const FONT4 = evalsText('house-font', fontCases(4));
const FONT3 = evalsText('house-font', fontCases(3));
const LETTERS8 = evalsText('call-signs', letterCases(8));

type SplitPrompts = { dev: string[]; holdout: string[] };

interface Synthetic {
  name: string;
  evals: string;
  /** The skill's body in the scripted model's language, written knowing the gate's split. */
  body: (split: SplitPrompts) => string[];
  world?: Partial<GateModelOptions>;
  run?: Partial<JobOptions>;
  expected: { verdict: VerdictWord; code: VerdictCode };
}

const STYLES = { good: fontGood, bad: fontBad };
const unreachable = () => new ProviderError('server', 'HTTP 503 Service Unavailable', '', 503);

const SKILLS: Synthetic[] = [
  { name: 'useful', evals: FONT8, body: () => ['Captions use the house font, Pretendard.', 'otherwise: @good'], expected: { verdict: 'promoted', code: 'promoted' } },
  { name: 'useless', evals: FONT8, body: () => ['Be friendly and concise.'], expected: { verdict: 'rejected', code: 'no_dev_gain' } },
  { name: 'harmful', evals: FONT8, body: () => ['otherwise: @bad'], expected: { verdict: 'rejected', code: 'dev_harm' } },
  { name: 'memorizer', evals: FONT8, body: (split) => answering(split.dev, () => '@good'), expected: { verdict: 'staged', code: 'dev_only' } },
  {
    name: 'coin-flip holdout',
    evals: LETTERS8,
    // Dev +0.4 each; held out: one +0.4, one −0.2 (↑1 ↓1, mean +0.1).
    body: (split) => [...answering(split.dev, () => letters(4)), `case: ${split.holdout[0]} => ${letters(4)}`, `case: ${split.holdout[1]} => ${letters(1)}`],
    world: { baseline: () => letters(2) },
    expected: { verdict: 'staged', code: 'dev_only' },
  },
  {
    name: 'holdout-regressor',
    evals: FONT8,
    body: (split) => [...answering(split.dev, () => '@good'), 'otherwise: @bad'],
    expected: { verdict: 'rejected', code: 'holdout_regressed' },
  },
  { name: 'lucky-one', evals: FONT4, body: () => ['otherwise: @good'], expected: { verdict: 'staged', code: 'thin_holdout' } },
  { name: 'redundant', evals: FONT8, body: () => ['otherwise: @good'], world: { baseline: fontAlreadyKnown }, expected: { verdict: 'staged', code: 'ceiling' } },
  {
    name: 'partial',
    evals: FONT8,
    // Helps 3 of 8: two dev cases and one held-out case (held out ↑1 =1, p = 0.5).
    body: (split) => answering([split.dev[0], split.dev[1], split.holdout[0]], () => '@good'),
    expected: { verdict: 'staged', code: 'weak_holdout' },
  },
  {
    name: 'unreachable provider',
    evals: FONT8,
    body: () => ['otherwise: @good'],
    world: { failWith: unreachable },
    run: { poolSize: 1 },
    expected: { verdict: 'staged', code: 'replay_failed' },
  },
  { name: 'budget', evals: FONT8, body: () => ['otherwise: @good'], run: { budget: { maxRequests: 5 } }, expected: { verdict: 'staged', code: 'budget' } },
  { name: 'too few', evals: FONT3, body: () => ['otherwise: @good'], expected: { verdict: 'staged', code: 'too_few_cases' } },
];

const byName = (name: string) => SKILLS.find((skill) => skill.name === name)!;

/** Every call sign and both fonts: read as the answer, this reasoning would pass every check. */
const misleadingReasoning = (prompt: string) => `${prompt} Pretendard or Arial? caption 1 2 3 4 5 6 7 8; alpha bravo charlie delta echo.`;

async function measure(skill: Synthetic, world: Partial<GateModelOptions> = {}) {
  const split = await splitOf(skill.evals);
  const model = createGateModel({ baseline: fontBaseline, styles: STYLES, ...skill.world, ...world });
  const cache = new MemoryReplayCache();
  const markdown = skillMarkdown(skill.name.replace(/ /g, '-'), skill.body(split));
  const result = done(await runJob({ name: skill.name.replace(/ /g, '-'), markdown, evals: skill.evals, provider: model.provider, cache, ...skill.run }));
  return { result, model, cache, split };
}

describe('sensitivity and specificity: synthetic skills with known truth', () => {
  for (const skill of SKILLS) {
    it(`${skill.name} → ${skill.expected.verdict} · ${skill.expected.code}`, async () => {
      const { result, model } = await measure(skill);
      expect({ verdict: result.verdict.verdict, code: result.verdict.code }).toEqual(skill.expected);
      // Every request the model saw is in the record's cost, and nothing else is.
      expect(result.record.cost.requests).toBe(model.requests);
    });
  }

  it('the split the skills were written from is the one the gate used', async () => {
    const { result, split } = await measure(byName('memorizer'));
    const promptOf = (id: string | number) => fontCases(8).find((c) => c.id === id)!.prompt;
    expect(result.record.split.dev.map((ref) => promptOf(ref.id))).toEqual(split.dev);
    expect(result.record.split.holdout.map((ref) => promptOf(ref.id))).toEqual(split.holdout);
    expect(split.holdout).toHaveLength(2);
  });

  it('memorizer: the reason names the gap between dev and held-out gains', async () => {
    const { result } = await measure(byName('memorizer'));
    expect(result.verdict.reason).toContain('the gap (0.50) suggests the skill fits the cases it was written from');
  });

  it('coin-flip holdout: one held-out case up, one down, mean +0.1 is not promoted', async () => {
    const { result } = await measure(byName('coin-flip holdout'));
    expect(result.verdict.numbers.holdout).toMatchObject({ up: 1, down: 1, tie: 0 });
    expect(result.verdict.numbers.holdout.meanGain).toBeCloseTo(0.1, 10);
  });

  it('lucky-one: four perfect cases say how many to add', async () => {
    const { result } = await measure(byName('lucky-one'));
    expect(result.verdict.reason).toContain('Add 2 cases (6 in total)');
    expect(result.verdict.needed).toEqual({ cases: 2 });
  });

  it('partial: held-out p = 0.5 is too weak', async () => {
    const { result } = await measure(byName('partial'));
    expect(result.verdict.numbers.holdout).toMatchObject({ up: 1, down: 0, tie: 1 });
    expect(result.verdict.numbers.pHoldout).toBe(0.5);
  });

  it('useless and harmful: the holdout is not replayed once dev settled the verdict', async () => {
    for (const name of ['useless', 'harmful']) {
      const { result } = await measure(byName(name));
      expect(result.notes.holdoutSkipped).toEqual({ cases: 2, savedCalls: 4 });
      expect(result.record.cases.every((c) => c.side === 'dev')).toBe(true);
    }
  });

  it('unreachable provider: nothing cached, the breaker stops after 3 pairs', async () => {
    const { result, model, cache } = await measure(byName('unreachable provider'));
    expect(cache.stats.stored).toBe(0);
    expect(result.notes.stoppedBy).toBe('breaker');
    expect(result.record.cases).toHaveLength(BREAKER_PAIRS);
    // The baseline failed, so no with-skill arm was sent: each pair cost one request and its retries.
    expect(model.requests).toBe(BREAKER_PAIRS * (1 + DEFAULT_RETRIES));
    expect(model.log.every((entry) => !entry.withSkill)).toBe(true);
    expect(result.verdict.reason).toContain('HTTP 503');
  });

  it('budget: a cap of 5 requests is never passed', async () => {
    const { result, model } = await measure(byName('budget'));
    expect(model.requests).toBeLessThanOrEqual(5);
    expect(result.notes.stoppedBy).toBe('budget');
  });

  it('too few: 3 cases are not measured and cost nothing', async () => {
    const { result, model } = await measure(byName('too few'));
    expect(model.requests).toBe(0);
    expect(result.verdict.reason).toContain('Add 1 more');
  });

  it('one flaky pair: a request that fails once and then succeeds changes nothing', async () => {
    const plain = await measure(byName('useful'));
    const flaky = await measure(byName('useful'), { failOnce: new Set([3]) });
    expect(flaky.result.verdict).toEqual(plain.result.verdict);
    expect(flaky.model.requests).toBe(plain.model.requests + 1);
  });

  it('reasoning model: answers wrapped in <think> give the same verdicts as plain answers', async () => {
    for (const skill of SKILLS) {
      const { result } = await measure(skill, { reasoning: misleadingReasoning });
      expect({ skill: skill.name, verdict: result.verdict.verdict, code: result.verdict.code }).toEqual({ skill: skill.name, ...skill.expected });
    }
  });
});

describe('cost: what the replay cache saves', () => {
  const providerId = 'http://localhost:8080/v1';

  async function verify(name: string, lines: string[], options: { cache: MemoryReplayCache; evals?: string; model?: ReturnType<typeof createGateModel>; providerId?: string }) {
    const model = options.model ?? createGateModel({ baseline: fontBaseline, styles: STYLES });
    const before = model.requests;
    const result = done(
      await runJob({ name, markdown: skillMarkdown(name, lines), evals: options.evals ?? FONT8, provider: model.provider, cache: options.cache, providerId: options.providerId ?? providerId, poolSize: 1 }),
    );
    return { result, requests: model.requests - before };
  }

  it('five skills on the same 8 cases cost at most 40 requests; re-verifying is free; an edit costs the skill arm; a new model costs all', async () => {
    const cache = new MemoryReplayCache();
    const model = createGateModel({ baseline: fontBaseline, styles: STYLES });
    const down = createGateModel({ baseline: fontBaseline, failWith: unreachable });
    const useful = ['Captions use the house font, Pretendard.', 'otherwise: @good'];
    const runs = [
      await verify('useful', useful, { cache, model }),
      await verify('useless', ['Be friendly and concise.'], { cache, model }),
      await verify('harmful', ['otherwise: @bad'], { cache, model }),
      await verify('unreachable', useful, { cache, model: down, providerId: 'https://api.down.example/v1' }),
      await verify('too-few', useful, { cache, model, evals: FONT3 }),
    ];
    expect(runs.map((run) => run.result.verdict.code)).toEqual(['promoted', 'no_dev_gain', 'dev_harm', 'replay_failed', 'too_few_cases']);
    const total = runs.reduce((sum, run) => sum + run.requests, 0);
    expect(total).toBeLessThanOrEqual(40);
    expect(runs[0].requests).toBe(16);

    const again = await verify('useful', useful, { cache, model });
    expect(again.requests).toBe(0);
    expect(again.result.verdict.code).toBe('promoted');
    expect(again.result.record.cost).toMatchObject({ requests: 0, cacheHits: 16 });

    const edited = await verify('useful', [...useful, 'Keep answers short.'], { cache, model });
    // The 8 with-skill arms, plus this run's one noise probe of a cached baseline.
    expect(edited.requests - edited.result.notes.noiseProbe.requests).toBe(8);
    expect(edited.result.notes.noiseProbe).toMatchObject({ probed: true, flipped: false, requests: 1 });
    expect(edited.result.record.cost.cacheHits).toBe(8);

    const otherModel = createGateModel({ model: 'another-model', baseline: fontBaseline, styles: STYLES });
    const switched = await verify('useful', useful, { cache, model: otherModel });
    expect(switched.requests).toBe(16);
    expect(switched.result.verdict.code).toBe('promoted');
  });
});
