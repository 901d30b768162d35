/**
 * The review worker handler's gate job (src/app/reviewWorkerHandler.ts `runGate`), in-thread
 * on the in-memory app services with a scripted gate model: the run, its stored record, its
 * effects on usage, ledger, skill_view and the index, cancel, a skill edited mid-run, the cache.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReviewWorkerHandler } from '../../src/app/reviewWorkerHandler';
import type { AppServices } from '../../src/app/appServices';
import type { ProviderSettings } from '../../src/providers/createProvider';
import type { GateJobOutcome } from '../../src/review/reviewWorkerApi';
import { createWriteContext } from '../../src/tools/writeContext';
import type { GateProgress } from '../../src/gate/types';
import { rollbackEntry } from '../../src/skills/skillLifecycle';
import { memoryAppServices } from './helpers/memoryAppServices';
import { inlineRegexRunner } from './helpers/nodeRegexRunner';
import { createGateModel, type GateModelOptions } from './gate/helpers/gateModel';
import { evalsText, fontBaseline, fontCases, fontGood, instantSleep, skillMarkdown } from './gate/helpers/gateRuns';

const SKILL = 'house-font';
const MARKDOWN = skillMarkdown(SKILL, ['Captions use the house font, Pretendard.', 'otherwise: @good']);

const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

async function gateSetup(world: Partial<GateModelOptions> = {}, cases = 8) {
  const { app } = await memoryAppServices('worker');
  opened.push(app);
  await app.settings.update('app', { baseUrl: 'http://localhost:8080/v1', model: 'scripted-model' });
  const registry = await app.tools();
  const user = () => createWriteContext('user');
  const created = await registry.dispatchOutcome('skill_manage', { action: 'create', name: SKILL, content: MARKDOWN }, user());
  expect(created.success).toBe(true);
  const written = await registry.dispatchOutcome('skill_manage', { action: 'write_file', name: SKILL, file_path: 'evals/evals.json', file_content: evalsText(SKILL, fontCases(cases)) }, user());
  expect(written.success).toBe(true);
  const model = createGateModel({ baseline: fontBaseline, styles: { good: fontGood }, ...world });
  const seen: ProviderSettings[] = [];
  const api = createReviewWorkerHandler(async () => app, {
    createProvider: async (settings) => {
      seen.push(settings);
      return model.provider;
    },
    regexRunner: inlineRegexRunner,
    gateTiming: { sleep: instantSleep },
  });
  const skills = await app.skills();
  return { app, api, model, seen, skills, registry, user };
}

const done = (outcome: GateJobOutcome) => {
  if (outcome.kind !== 'done') throw new Error(`expected a finished run, got ${JSON.stringify(outcome)}`);
  return outcome;
};

describe('runGate in the review worker handler', () => {
  it('promotes a useful skill with 8 cases: record stored, usage, ledger (actor gate), skill_view and the index follow', async () => {
    const { app, api, skills, registry, seen, user } = await gateSetup();
    const progress: GateProgress[] = [];
    const outcome = done(await api.runGate({ runId: 'g1', skill: SKILL }, (p) => progress.push(p)));
    expect(outcome).toMatchObject({ applied: true, superseded: false, verdictChanged: true, cacheHits: 0 });
    expect(outcome.record.verdict.verdict).toBe('promoted');
    // 16 replays and one reach request per case (docs/gate.md, "Reach").
    expect(outcome.requests).toBe(24);
    expect(outcome.record.cost.requests).toBe(16);
    expect(outcome.record.reach).toMatchObject({ triggerCases: 8, nearMisses: 0, cost: { requests: 8 } });
    expect(progress.length).toBeGreaterThan(0);
    expect(seen).toEqual([expect.objectContaining({ baseUrl: 'http://localhost:8080/v1', model: 'scripted-model' })]);

    expect(await skills.verdicts.latest(SKILL)).toMatchObject({ id: outcome.record.id, status: 'applied' });
    expect((await skills.engine.usage.get(SKILL)).verification).toBe('promoted');
    const gateEntries = (await skills.engine.ledger.list(SKILL)).filter((entry) => entry.actor === 'gate');
    expect(gateEntries).toHaveLength(1);

    const view = await registry.dispatchOutcome('skill_view', { name: SKILL }, user());
    expect(view).toMatchObject({ success: true, verification: { verdict: 'promoted', stale: false } });
    const holdoutIds = outcome.record.split.holdout.map((ref) => ref.id);
    expect(holdoutIds.length).toBeGreaterThan(0);
    const devFailing = (view.verification as { devFailingCaseIds: (string | number)[] }).devFailingCaseIds;
    for (const id of holdoutIds) expect(devFailing).not.toContain(id);

    const index = await skills.index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500 });
    expect(index).toMatch(new RegExp(`${SKILL}.*\\[verified\\]`));
    expect((await app.settings.read('gate')).usage.requests).toBe(0); // a manual run is not counted
  });

  it('a re-run of the unchanged skill sends nothing and counts an automatic run against today', async () => {
    const { app, api, model } = await gateSetup();
    const first = done(await api.runGate({ runId: 'g1', skill: SKILL }));
    expect(first.record.verdict.verdict).toBe('promoted');
    // The first run promoted the skill, and its index line in a chat now says [verified]; the reach
    // requests were built with that label already (the measured skill as if promoted), so the
    // second run sends nothing: replays and reach requests all come from the cache.
    const before = model.requests;
    const again = done(await api.runGate({ runId: 'g3', skill: SKILL, automatic: true }));
    expect(again).toMatchObject({ requests: 0, cacheHits: 24, applied: true, verdictChanged: false });
    expect(model.requests).toBe(before);
    expect((await app.settings.read('gate')).usage).toMatchObject({ requests: 0 });
  });

  it('counts the requests of an automatic run in gate.usage', async () => {
    const { app, api } = await gateSetup();
    const outcome = done(await api.runGate({ runId: 'g1', skill: SKILL, automatic: true }));
    const usage = (await app.settings.read('gate')).usage;
    expect(usage.requests).toBe(outcome.requests);
    expect(usage.day).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('cancel stops the run: cancelled, and no record is stored', async () => {
    let arrived = 0;
    // Every request waits for Stop.
    const { api, skills } = await gateSetup({
      onRequest: (request) => {
        arrived++;
        return new Promise<void>((resolve) => request.signal?.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
    const run = api.runGate({ runId: 'g1', skill: SKILL });
    await vi.waitFor(() => expect(arrived).toBeGreaterThan(0), { timeout: 4000 });
    await api.cancel('g1');
    const outcome = await run;
    expect(outcome.kind).toBe('cancelled');
    expect(await skills.verdicts.history(SKILL)).toEqual([]);
    expect((await skills.engine.usage.get(SKILL)).verification).not.toBe('promoted');
  });

  it('a skill edited during the run: the record is stored superseded and not applied', async () => {
    let edit: Promise<unknown> | null = null;
    const setup = await gateSetup({
      onRequest: async (_request, n) => {
        if (n === 1) {
          edit = setup.registry.dispatchOutcome('skill_manage', { action: 'patch', name: SKILL, old_string: 'Pretendard.', new_string: 'Pretendard, always.' }, setup.user());
          await edit;
        }
      },
    });
    const outcome = done(await setup.api.runGate({ runId: 'g1', skill: SKILL }));
    expect(edit).not.toBeNull();
    expect(outcome).toMatchObject({ applied: false, superseded: true, verdictChanged: false });
    expect((await setup.skills.verdicts.history(SKILL)).map((record) => record.status)).toEqual(['superseded']);
    expect((await setup.skills.engine.usage.get(SKILL)).verification).not.toBe('promoted');
  });

  it('after a patch, the re-run compares with the verified version from the cache (vsPrevious), paying only the new arm', async () => {
    const { api, registry, user, model } = await gateSetup();
    const first = done(await api.runGate({ runId: 'g1', skill: SKILL }));
    expect(first.record.vsPrevious).toBeUndefined();
    const patched = await registry.dispatchOutcome('skill_manage', { action: 'patch', name: SKILL, old_string: 'Pretendard.', new_string: 'Pretendard, always.' }, user());
    expect(patched.success).toBe(true);
    const before = model.requests;
    const second = done(await api.runGate({ runId: 'g2', skill: SKILL }));
    // The previous version's with-skill answers come from the cache: no request is spent on them.
    expect(second.record.vsPrevious).toMatchObject({ version: first.record.skillVersion, down: 0 });
    const { up, down, tie } = second.record.vsPrevious!;
    expect(up + down + tie).toBeGreaterThan(0);
    // 8 new skill arms, at most one noise probe, and the description trial's new proposal (its
    // request carries the patched SKILL.md; this model never loads a skill, so reach stays low).
    expect(model.requests - before).toBeLessThanOrEqual(10);
  });

  it('a rollback to the verified bytes makes the verdict fresh again (refreshFreshness on the change)', async () => {
    const { api, skills, registry, user } = await gateSetup();
    done(await api.runGate({ runId: 'g1', skill: SKILL }));
    const patched = await registry.dispatchOutcome('skill_manage', { action: 'patch', name: SKILL, old_string: 'Pretendard.', new_string: 'Pretendard, always.' }, user());
    expect(patched.success).toBe(true);
    expect((await skills.engine.usage.get(SKILL)).verification_stale).toBe(true);
    const patchEntry = (await skills.engine.ledger.list(SKILL)).find((entry) => entry.action === 'patch');
    expect(patchEntry).toBeDefined();
    const rolled = await rollbackEntry(skills.engine, patchEntry!.id, 'user');
    expect(rolled.success).toBe(true);
    await vi.waitFor(async () => expect((await skills.engine.usage.get(SKILL)).verification_stale).toBe(false), { timeout: 4000 });
    const index = await skills.index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500 });
    expect(index).toMatch(/house-font.*\[verified\]/);
  });

  it('a missing skill fails with a clear message', async () => {
    const { api } = await gateSetup();
    expect(await api.runGate({ runId: 'g1', skill: 'no-such-skill' })).toEqual({ kind: 'failed', error: expect.stringContaining('"no-such-skill"') });
  });
});
