/**
 * runGate as an orchestrator (docs/gate.md, "How a run goes"): what it records, in which order
 * it replays, what the cache and the noise probe do, budget, cancellation, and the
 * superseded and previous-version helpers. The verdict table itself is sensitivity.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import type { RegexRunner } from '../../../src/gate/checks';
import { ParamMemory } from '../../../src/gate/replayArm';
import { MemoryReplayCache } from '../../../src/gate/replayCache';
import { checkKey } from '../../../src/gate/summary';
import { BREAKER_PAIRS } from '../../../src/gate/gateRun';
import { windowGuardedProvider } from '../../../src/gate/gatePair';
import type { GateProgress } from '../../../src/gate/types';
import { ProviderError, type ChatProvider } from '../../../src/providers/provider';
import { casesHashOf, isSuperseded, NO_CASES_HASH, skillHashOf, withSupersession } from '../../../src/gate/verdictRecord';
import { createGateModel } from './helpers/gateModel';
import { answering, done, evalsText, fontBad, fontBaseline, fontCases, fontGood, fontPrompt, runSkill, skillMarkdown, splitOf, type CaseSpec } from './helpers/gateRuns';

const FONT8 = evalsText('house-font', fontCases(8));
const USEFUL = skillMarkdown('house-font', ['Captions use the house font, Pretendard.', 'otherwise: @good']);
const styles = { good: fontGood, bad: fontBad };
const fontModel = () => createGateModel({ baseline: fontBaseline, styles });

describe('runGate: cases that settle before any request', () => {
  it('no evals file: staged no_cases, nothing sent, hashed as "none"', async () => {
    const model = fontModel();
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: null, provider: model.provider }));
    expect(result.verdict.code).toBe('no_cases');
    expect(model.requests).toBe(0);
    expect(result.record).toMatchObject({ casesHash: NO_CASES_HASH, protocol: 'gate.v1', cases: [], split: { dev: [], holdout: [], excluded: [] } });
  });

  it('an invalid file: staged invalid_cases with the parser\'s words', async () => {
    const model = fontModel();
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: '{"evals": [', provider: model.provider }));
    expect(result.verdict.code).toBe('invalid_cases');
    expect(result.verdict.reason).toContain('not valid JSON');
    expect(model.requests).toBe(0);
  });

  it('excluded cases carry their reasons into the record and the verdict', async () => {
    const cases: CaseSpec[] = [...fontCases(3), { id: 4, prompt: 'No checks here.', checks: [] }];
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: evalsText('house-font', cases), provider: fontModel().provider }));
    expect(result.verdict.code).toBe('too_few_cases');
    expect(result.record.split.excluded).toEqual([{ id: 4, reason: expect.stringContaining('no checks') }]);
    expect(result.verdict.reason).toContain('case 4 (no checks');
  });
});

describe('runGate: the evidence record', () => {
  it('records the split by reference, both arms of every case, cost, model, params and diagnostics', async () => {
    const model = fontModel();
    const cache = new MemoryReplayCache();
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache }));
    const { record } = result;
    expect(record).toMatchObject({
      skill: 'house-font',
      skillHash: await skillHashOf(USEFUL),
      casesHash: await casesHashOf(FONT8, JSON.parse(FONT8)),
      skillVersion: 1,
      protocol: 'gate.v1',
      policy: 'standard',
      context: 'isolated',
      status: 'applied',
      model: { provider: 'http://localhost:8080/v1', id: 'scripted-model', params: { temperature: 0, seed: 7, maxTokens: 1024 } },
      cost: { requests: 16, cacheHits: 0, promptTokens: 16 * 40, completionTokens: 16 * 10, estimated: false, usd: null },
    });
    expect(record.verdict).toBe(result.verdict);
    expect(record.split.dev).toHaveLength(6);
    expect(record.split.holdout).toHaveLength(2);
    expect(record.split.dev[0]).toEqual({ id: expect.any(Number), key: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(record.cases).toHaveLength(8);
    for (const c of record.cases) {
      expect(c).toMatchObject({ checks: 2, outcome: 'up', flags: [], base: { status: 'ok', passed: 1, checkPass: [false, true] }, skill: { status: 'ok', passed: 2, checkPass: [true, true] } });
      expect(await cache.get(c.base.outputRef)).toBeDefined();
      expect(await cache.get(c.skill.outputRef)).toBeDefined();
    }
    expect(Date.parse(record.finishedAt)).toBeGreaterThan(Date.parse(record.startedAt));
    expect(record.cost.ms).toBe(Date.parse(record.finishedAt) - Date.parse(record.startedAt));
    const kinds = Object.fromEntries(record.checkDiagnostics.map((d) => [String(d.check.value), d.diagnostics.map((x) => x.kind)]));
    expect(kinds.Pretendard).toEqual(['helps_here']);
  });

  it('a file beyond the cost cap runs 24 cases; the ones left out stay on their side in the stored split', async () => {
    const model = fontModel();
    const evals = evalsText('house-font', fontCases(30));
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals, provider: model.provider }));
    expect(result.record.cases).toHaveLength(24);
    expect(model.requests).toBe(48);
    expect(result.record.split.dev.length + result.record.split.holdout.length).toBe(30);
    expect(result.record.split.holdout).toHaveLength(8);
    expect(result.verdict.code).toBe('promoted');
  });

  it('replays dev first, the two arms of each case back to back', async () => {
    const model = fontModel();
    const { dev, holdout } = await splitOf(FONT8);
    await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, gate: { poolSize: 1 } });
    const expected = [...dev, ...holdout].flatMap((prompt) => [
      { prompt, withSkill: false },
      { prompt, withSkill: true },
    ]);
    expect(model.log.map(({ prompt, withSkill }) => ({ prompt, withSkill }))).toEqual(expected);
    expect(model.log.every((entry) => entry.params.temperature === 0 && entry.params.seed === 7)).toBe(true);
  });

  it('reports progress per case and phase', async () => {
    const seen: GateProgress[] = [];
    await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: fontModel().provider, overrides: { onProgress: (p) => seen.push({ ...p }) } });
    expect(seen[0]).toMatchObject({ phase: 'dev', casesDone: 0, casesTotal: 8, requests: 0 });
    expect(seen.findIndex((p) => p.phase === 'holdout')).toBeGreaterThan(seen.findLastIndex((p) => p.phase === 'dev'));
    expect(seen.at(-1)).toMatchObject({ phase: 'done', casesDone: 8, casesTotal: 8, requests: 16, cacheHits: 0 });
  });

  it('a refused temperature is dropped, remembered and recorded as provider-default; its answers are cached under what was sent', async () => {
    const memory = new ParamMemory();
    const cache = new MemoryReplayCache();
    const model = createGateModel({ baseline: fontBaseline, styles, refuses: new Set(['temperature']) });
    const first = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache, memory, gate: { poolSize: 1 } }));
    expect(first.verdict.code).toBe('promoted');
    expect(first.record.model.params).toEqual({ temperature: 'provider-default', seed: 7, maxTokens: 1024 });
    expect(model.requests).toBe(17); // one refusal, then 16 without temperature
    const again = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache, memory }));
    expect(again.record.cost.requests).toBe(0);
  });
});

describe('runGate: cache and noise probe', () => {
  it('"verify again without cache" ignores hits but still stores answers', async () => {
    const cache = new MemoryReplayCache();
    const model = fontModel();
    await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache });
    const stored = cache.stats.stored;
    const fresh = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache, overrides: { useCache: false } }));
    expect(fresh.record.cost).toMatchObject({ requests: 16, cacheHits: 0 });
    expect(cache.stats.stored).toBe(stored + 16);
  });

  it('a probe that answers differently from the cache is counted as a flip and marks the check flaky', async () => {
    const cache = new MemoryReplayCache();
    let drifted = false;
    const model = createGateModel({ baseline: (prompt) => (drifted ? fontGood(prompt) : fontBaseline(prompt)), styles });
    await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache });
    drifted = true;
    const edited = skillMarkdown('house-font', ['Captions use Pretendard.', 'otherwise: @good']);
    const result = done(await runSkill({ name: 'house-font', markdown: edited, evals: FONT8, provider: model.provider, cache }));
    expect(result.notes.noiseProbe).toEqual({ probed: true, flipped: true, flakyChecks: [checkKey({ type: 'icontains', value: 'Pretendard' })], requests: 1 });
    const pretendard = result.record.checkDiagnostics.find((d) => d.check.value === 'Pretendard')!;
    expect(pretendard.diagnostics.map((d) => d.kind)).toContain('flaky');
    // The cached baseline is kept as it was: the verdict used it.
    expect(result.record.cases.every((c) => c.base.passed === 1 && c.base.fromCache)).toBe(true);
  });

  it('no probe when nothing was cached, or when the run sent nothing', async () => {
    const cache = new MemoryReplayCache();
    const model = fontModel();
    const first = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache }));
    expect(first.notes.noiseProbe.probed).toBe(false);
    const again = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache }));
    expect(again.notes.noiseProbe).toMatchObject({ probed: false, requests: 0 });
  });
});

describe('runGate: limits', () => {
  it('a token budget stops starting cases once it is used up', async () => {
    const model = fontModel();
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, gate: { poolSize: 1 }, overrides: { budget: { maxTokens: 100 } } }));
    expect(result.verdict.code).toBe('budget');
    expect(model.requests).toBe(2);
    expect(result.verdict.reason).toContain('(2 requests, 100 tokens) after 1/8 cases');
  });

  it('with several cases in flight the breaker still stops the run: at most the breaker plus the slots in flight', async () => {
    const model = createGateModel({ baseline: fontBaseline, failWith: () => new ProviderError('server', 'HTTP 502 Bad Gateway', '', 502) });
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, gate: { poolSize: 2, retries: 0 } }));
    expect(result.verdict.code).toBe('replay_failed');
    expect(result.notes.stoppedBy).toBe('breaker');
    expect(model.requests).toBeGreaterThanOrEqual(BREAKER_PAIRS);
    expect(model.requests).toBeLessThanOrEqual(BREAKER_PAIRS + 1);
  });

  it('a provider that reports no usage gets its tokens estimated, and the record says so', async () => {
    const base = createGateModel({ baseline: fontBaseline, styles });
    const silent: ChatProvider = {
      ...base.provider,
      async *stream(request) {
        for await (const part of base.provider.stream(request)) if (part.type !== 'usage') yield part;
      },
    };
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: silent }));
    expect(result.record.cost.estimated).toBe(true);
    expect(result.record.cost.promptTokens).toBeGreaterThan(0);
    expect(result.record.cost.completionTokens).toBeGreaterThan(0);
  });

  it('a regex that times out makes its case unscorable, not a failure of the provider', async () => {
    const timingOut: RegexRunner = { test: async () => ({ ok: false, reason: 'timed out after 1000 ms', timedOut: true }) };
    const cases: CaseSpec[] = fontCases(8).map((c) => ({ ...c, checks: [{ type: 'regex', value: '(a+)+$' }] }));
    const { runGate } = await import('../../../src/gate/gateRun');
    const model = fontModel();
    const result = await runGate(
      {
        runId: 'r',
        skill: { name: 'house-font', markdown: USEFUL, skillHash: 'h', readFile: async () => null },
        evalsText: evalsText('house-font', cases),
        policy: 'standard',
        gate: { provider: model.provider, providerId: 'http://localhost:8080/v1', memory: new ParamMemory(), poolSize: 1 },
      },
      { cache: new MemoryReplayCache(), regexRunner: timingOut },
    );
    const finished = done(result);
    expect(finished.notes.stoppedBy).toBeUndefined();
    expect(finished.record.cases).toHaveLength(6);
    expect(finished.record.cases.every((c) => c.outcome === 'unmeasured' && c.flags.includes('regex_timeout'))).toBe(true);
    expect(finished.verdict.code).toBe('replay_failed');
  });

  it('strict policy replays each baseline a second time, uncached', async () => {
    const model = fontModel();
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, policy: 'strict', gate: { poolSize: 1 } }));
    expect(model.requests).toBe(24);
    expect(result.record.cases.every((c) => c.flags.length === 0 && c.outcome === 'up')).toBe(true);
  });
});

describe('runGate: cancellation', () => {
  it('Stop ends the run at once with no verdict, and a rerun reuses what was cached', async () => {
    const cache = new MemoryReplayCache();
    const controller = new AbortController();
    const model = createGateModel({
      baseline: fontBaseline,
      styles,
      // The third request never answers on its own: it waits for Stop.
      onRequest: (request, n) =>
        n === 3
          ? new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }))
          : undefined,
    });
    const pending = runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache, gate: { poolSize: 1 }, overrides: { signal: controller.signal } });
    await vi.waitFor(() => expect(model.requests).toBe(3));
    controller.abort();
    expect(await pending).toEqual({ kind: 'cancelled', pairsDone: 1, pairsTotal: 8 });
    const rerun = createGateModel({ baseline: fontBaseline, styles });
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: rerun.provider, cache, overrides: { noiseProbe: false } }));
    // Case 1's two answers were kept; the request cut off by Stop was not.
    expect(result.record.cost).toMatchObject({ requests: 14, cacheHits: 2 });
  });

  it('a signal aborted before the start cancels without a request', async () => {
    const model = fontModel();
    const controller = new AbortController();
    controller.abort();
    const result = await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, overrides: { signal: controller.signal } });
    expect(result).toEqual({ kind: 'cancelled', pairsDone: 0, pairsTotal: 8 });
    expect(model.requests).toBe(0);
  });
});

describe('superseded and the previous version', () => {
  it('a record is superseded when SKILL.md or the cases changed since the run read them', async () => {
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: fontModel().provider }));
    const current = { skillHash: await skillHashOf(USEFUL), casesHash: await casesHashOf(FONT8, JSON.parse(FONT8)) };
    expect(isSuperseded(result.record, current)).toBe(false);
    expect(isSuperseded(result.record, { ...current, skillHash: await skillHashOf(`${USEFUL}\nmore`) })).toBe(true);
    const edited = evalsText('house-font', fontCases(9));
    expect(isSuperseded(result.record, { ...current, casesHash: await casesHashOf(edited, JSON.parse(edited)) })).toBe(true);
    expect(withSupersession(result.record, { ...current, skillHash: 'x' }).status).toBe('superseded');
    // Re-indenting the file is not a change of the cases.
    const reindented = JSON.stringify(JSON.parse(FONT8));
    expect(await casesHashOf(reindented, JSON.parse(reindented))).toBe(current.casesHash);
  });

  it('compares the new version with the previous one from the cache alone', async () => {
    const cache = new MemoryReplayCache();
    const model = fontModel();
    await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, cache });
    const { dev } = await splitOf(FONT8);
    const patched = skillMarkdown('house-font', answering(dev, () => '@good'));
    const before = model.requests;
    const result = done(
      await runSkill({ name: 'house-font', markdown: patched, evals: FONT8, provider: model.provider, cache, overrides: { previous: { version: 1, markdown: USEFUL }, noiseProbe: false } }),
    );
    expect(model.requests - before).toBe(8);
    expect(result.record.vsPrevious).toEqual({ version: 1, up: 0, down: 2, tie: 6 });
  });

  it('no comparison when the previous version was never replayed here', async () => {
    const result = done(
      await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: fontModel().provider, overrides: { previous: { version: 1, markdown: 'old' } } }),
    );
    expect(result.record.vsPrevious).toBeUndefined();
    expect(fontPrompt(1)).toContain('caption 1');
  });
});

describe('runGate: the gate model’s window', () => {
  it('a case whose request does not fit is not sent: unmeasured, with the reason', async () => {
    const model = fontModel();
    const seen: number[] = [];
    const fits = (messages: readonly { content: string }[], maxTokens: number) => {
      seen.push(maxTokens);
      // The with-skill request carries the skill: say that one does not fit a tiny window.
      return messages.some((message) => message.content.includes('Pretendard')) ? 'too long for tiny-model: 900 tokens and 1,024 for the answer do not fit its 1,024-token window' : null;
    };
    const result = done(await runSkill({ name: 'house-font', markdown: USEFUL, evals: FONT8, provider: model.provider, gate: { fits } }));
    expect(model.requests).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    for (const c of result.record.cases) {
      expect(c.outcome).toBe('unmeasured');
      expect(c.flags).toEqual(['too_long_for_model']);
      expect(c.skill.error).toContain('too long for tiny-model');
    }
    expect(result.verdict.verdict).toBe('staged');
  });

  it('every other request of a job (noise probe, reach, a proposal) passes the same check: one that does not fit never reaches the model', async () => {
    const model = fontModel();
    const guarded = windowGuardedProvider(model.provider, (_messages, maxTokens, tools) => (maxTokens > 100 || tools?.length ? 'too long for tiny-model' : null));
    const drain = async (request: Parameters<ChatProvider['stream']>[0]) => {
      for await (const _part of guarded.stream(request)) void _part;
    };
    await expect(drain({ messages: [{ role: 'user', content: fontPrompt(1) }], maxTokens: 1024 })).rejects.toMatchObject({ contextTooLong: true, message: 'too long for tiny-model' });
    await expect(drain({ messages: [{ role: 'user', content: fontPrompt(1) }], maxTokens: 50, tools: [{ name: 'skill_view', description: 'd', parameters: {} }] })).rejects.toBeInstanceOf(ProviderError);
    expect(model.requests).toBe(0);
    await drain({ messages: [{ role: 'user', content: fontPrompt(1) }], maxTokens: 50 });
    expect(model.requests).toBe(1);
    expect(guarded.model).toBe(model.provider.model);
  });
});
