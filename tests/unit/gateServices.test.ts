/**
 * The tab's gate services (src/app/gateServices.ts) on the in-memory app services: evidence
 * after a run made by the worker's handler, approve, the cases as the user edits them, "Try
 * these checks" with the watchdog regex runner on Node threads, and the estimate.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGateServices } from '../../src/app/gateServices';
import { createReviewWorkerHandler } from '../../src/app/reviewWorkerHandler';
import type { AppServices } from '../../src/app/appServices';
import { createWriteContext } from '../../src/tools/writeContext';
import { memoryAppServices, memoryParts } from './helpers/memoryAppServices';
import { createNodeRegexRunner, inlineRegexRunner } from './helpers/nodeRegexRunner';
import { createGateModel } from './gate/helpers/gateModel';
import { evalsText, fontBaseline, fontCases, fontGood, instantSleep, skillMarkdown } from './gate/helpers/gateRuns';
import { parseEvalsFile } from '../../src/gate/evalCases';
import { addCandidate, candidateKey, type CandidateCase } from '../../src/skills/candidateCases';

const SKILL = 'house-font';
const opened: AppServices[] = [];
afterEach(() => {
  for (const app of opened.splice(0)) app.changes.close();
});

async function setup(options: { body?: string[]; cases?: number } = {}) {
  const parts = memoryParts();
  const { app } = await memoryAppServices('worker', parts);
  opened.push(app);
  await app.settings.update('app', { baseUrl: 'http://localhost:8080/v1', model: 'scripted-model' });
  const registry = await app.tools();
  const markdown = skillMarkdown(SKILL, options.body ?? ['Captions use the house font, Pretendard.', 'otherwise: @good']);
  expect((await registry.dispatchOutcome('skill_manage', { action: 'create', name: SKILL, content: markdown }, createWriteContext('user'))).success).toBe(true);
  const text = evalsText(SKILL, fontCases(options.cases ?? 8));
  expect((await registry.dispatchOutcome('skill_manage', { action: 'write_file', name: SKILL, file_path: 'evals/evals.json', file_content: text }, createWriteContext('user'))).success).toBe(true);
  const model = createGateModel({ baseline: fontBaseline, styles: { good: fontGood } });
  const worker = createReviewWorkerHandler(async () => app, { createProvider: async () => model.provider, regexRunner: inlineRegexRunner, gateTiming: { sleep: instantSleep } });
  const regexRunner = createNodeRegexRunner();
  const gate = await createGateServices({ settings: app.settings, skills: app.skills, tools: app.tools, replays: app.storage.stores.replays, regexRunner });
  return { app, gate, worker, model, registry, text };
}

describe('createGateServices', () => {
  it('evidence: none before a run; after one the latest record, fresh, then stale after an edit; the gate model now when it changed', async () => {
    const { app, gate, worker, registry } = await setup();
    expect(await gate.evidence(SKILL)).toMatchObject({ latest: null, history: [], stale: false, gateModelNow: null, noise: null, byModel: [] });
    const outcome = await worker.runGate({ runId: 'g1', skill: SKILL });
    if (outcome.kind !== 'done') throw new Error(outcome.kind);
    const evidence = await gate.evidence(SKILL);
    expect(evidence).toMatchObject({ stale: false, gateModelNow: null });
    expect(evidence.latest?.id).toBe(outcome.record.id);
    expect(evidence.history.map((record) => record.id)).toEqual([outcome.record.id]);
    // The verdict belongs to the model it was measured on.
    expect(evidence.byModel.map((entry) => [entry.key, entry.record.id, entry.stale])).toEqual([[`${outcome.record.model.provider} ${outcome.record.model.id}`, outcome.record.id, false]]);

    await registry.dispatchOutcome('skill_manage', { action: 'patch', name: SKILL, old_string: 'Pretendard.', new_string: 'Pretendard, always.' }, createWriteContext('user'));
    expect((await gate.evidence(SKILL)).stale).toBe(true);
    await app.settings.update('gate', { provider: { baseUrl: '', model: 'other-model' } });
    expect((await gate.evidence(SKILL)).gateModelNow).toBe('other-model');
  });

  it('approve: only a staged current verdict; the label becomes [approved]', async () => {
    // Four cases: too few held out to promote under the standard policy, so the run stages.
    const { app, gate, worker } = await setup({ cases: 4 });
    const outcome = await worker.runGate({ runId: 'g1', skill: SKILL });
    if (outcome.kind !== 'done') throw new Error(outcome.kind);
    expect(outcome.record.verdict.verdict).toBe('staged');
    expect(await gate.approve(SKILL, 'no-such-run')).toMatchObject({ success: false });
    expect(await gate.approve(SKILL, outcome.record.id)).toMatchObject({ success: true });
    const skills = await app.skills();
    const index = await skills.index.render({ platform: null, disabled: [], available: null, tokenBudget: 2500 });
    expect(index).toMatch(/house-font.*\[approved\]/);
  });

  it('readCases and saveCases: the stored file, written back through skill_manage as the user', async () => {
    const { app, gate, text } = await setup();
    const read = await gate.readCases(SKILL);
    expect(read.text).toBe(text);
    expect(read.file?.evals).toHaveLength(8);
    const file = read.file!;
    const saved = await gate.saveCases(SKILL, { ...file, evals: file.evals.slice(0, 5) });
    expect(saved).toMatchObject({ success: true });
    const again = await gate.readCases(SKILL);
    expect(again.file?.evals).toHaveLength(5);
    const entries = await (await app.skills()).engine.ledger.list(SKILL);
    expect(entries.at(-1)?.actor).toBe('user');
    // An invalid file is refused with the validator's problems.
    const refused = await gate.saveCases(SKILL, { ...file, evals: [{ ...file.evals[0], prompt: '' }] });
    expect(refused).toMatchObject({ success: false, problems: expect.any(Array) });
    expect(await gate.readCases(SKILL)).toMatchObject({ file: { evals: expect.any(Array) } });
    expect((await gate.readCases('no-such-skill')).text).toBeNull();
  });

  it('AppServices.gate() builds the services once per context', async () => {
    const { app } = await setup();
    const first = await app.gate();
    expect(await app.gate()).toBe(first);
    expect((await first.readCases(SKILL)).file?.evals).toHaveLength(8);
  });

  it('readCases reports a file that does not parse', async () => {
    const { app, gate } = await setup();
    const skills = await app.skills();
    const dir = skills.engine.catalog.findByName(SKILL)[0].dir;
    await skills.engine.files.write(`${dir}/evals/evals.json`, new TextEncoder().encode('{ not json'));
    expect(await gate.readCases(SKILL)).toMatchObject({ text: '{ not json', file: null, error: expect.any(String) });
  });

  it('validateCase: per-field problems, duplicate ids included', async () => {
    const { gate, text } = await setup();
    const parsed = parseEvalsFile(text);
    if (!parsed.ok) throw new Error(parsed.error);
    const [first, ...others] = parsed.file.evals;
    expect(gate.validateCase(first, others)).toEqual({});
    expect(gate.validateCase({ ...first, id: others[0].id }, others)).toHaveProperty('id');
    expect(gate.validateCase({ ...first, prompt: '' }, others)).toHaveProperty('prompt');
  });

  it('tryChecks: each check against the answer text, reasoning removed, regex under the watchdog', async () => {
    const { gate } = await setup();
    const results = await gate.tryChecks('<think>Arial</think>\nUse Pretendard for caption 2.', [
      { type: 'icontains', value: 'pretendard' },
      { type: 'icontains', value: 'arial' },
      { type: 'regex', value: 'caption \\d' },
      { type: 'regex', value: '(a+)+$', flags: 'z' },
    ]);
    expect(results.map((result) => result.pass)).toEqual([true, false, true, false]);
    expect(results[3].reason).toEqual(expect.any(String));
  });

  it('estimate: every arm before a run, nothing after it; host and locality from the provider', async () => {
    const { app, gate, worker } = await setup();
    expect(await gate.estimate(SKILL)).toEqual({ requests: 16, cached: 0, host: 'localhost:8080', local: true });
    await worker.runGate({ runId: 'g1', skill: SKILL });
    expect(await gate.estimate(SKILL)).toEqual({ requests: 0, cached: 16, host: 'localhost:8080', local: true });
    await app.settings.update('gate', { policy: 'strict' });
    expect((await gate.estimate(SKILL)).requests).toBe(8);
    await app.settings.update('app', { baseUrl: 'https://api.example.com/v1' });
    expect(await gate.estimate(SKILL)).toMatchObject({ requests: 24, cached: 0, host: 'api.example.com', local: false });
  });
});

describe('Add as case (docs/gate.md, "Independent cases")', () => {
  const candidate: CandidateCase = { prompt: 'Caption the launch photo.', session_id: 's2', session_title: 'Launch', at: '', via: 'skill_view' };

  it('opens the editor on an unsaved case with the drafted checks; the candidate leaves only once the editor saved it', async () => {
    const { app, gate } = await setup();
    const skills = await app.skills();
    await skills.engine.usage.update(SKILL, (record, now) => addCandidate(record, { ...candidate, at: now }));
    const key = candidateKey(candidate);

    const made = await gate.candidateAsCase(SKILL, key, { checks: [{ type: 'icontains', value: 'Pretendard' }], expectedOutput: 'Uses the house font.', dropped: 0 });
    expect(made).toMatchObject({ success: true, case: { id: 9, prompt: candidate.prompt, expected_output: 'Uses the house font.', checks: [{ type: 'icontains', value: 'Pretendard' }], knack: { origin: 'chat', session_id: 's2' } } });
    // Nothing is saved yet: the candidate stays, and settling finds no case.
    expect(await gate.settleCandidate(SKILL, key)).toBe(false);
    expect(await gate.candidates(SKILL)).toHaveLength(1);
    if (!made.success) return;

    const before = (await gate.readCases(SKILL)).file!;
    const written = await gate.saveCases(SKILL, { ...before, evals: [...before.evals, made.case] });
    expect(written.success, JSON.stringify(written)).toBe(true);
    expect(await gate.settleCandidate(SKILL, key)).toBe(true);
    expect(await gate.candidates(SKILL)).toEqual([]);
    // It left the list without being dismissed: the same request from another chat may come again.
    expect((await skills.engine.usage.get(SKILL)).dismissed_candidates ?? []).toEqual([]);
  });

  it('says what to do when the request is no longer a candidate', async () => {
    const { gate } = await setup();
    expect(await gate.candidateAsCase(SKILL, 'no-such-key', null)).toEqual({ success: false, error: 'That request is no longer a candidate of this skill.' });
    expect(await gate.settleCandidate(SKILL, 'no-such-key')).toBe(false);
  });
});
