/**
 * runGateJob: the gate as the review worker runs it, on the skill's files as they are, with
 * the superseded rule applied when SKILL.md or the cases change during the run.
 */
import { describe, expect, it } from 'vitest';
import { EVALS_FILE, runGateJob, SKILL_FILE, SkillMissingError, type GateJobServices } from '../../../src/gate/gateJob';
import { ParamMemory } from '../../../src/gate/replayArm';
import { MemoryReplayCache } from '../../../src/gate/replayCache';
import { skillHashOf } from '../../../src/gate/verdictRecord';
import { inlineRegexRunner } from '../helpers/nodeRegexRunner';
import { createGateModel } from './helpers/gateModel';
import { done, evalsText, fontBaseline, fontCases, fontGood, instantSleep, skillMarkdown } from './helpers/gateRuns';

const USEFUL = skillMarkdown('house-font', ['Captions use the house font, Pretendard.', 'otherwise: @good']);

function services(files: Map<string, string>, onRequest?: (n: number) => void): GateJobServices & { model: ReturnType<typeof createGateModel> } {
  const model = createGateModel({ baseline: fontBaseline, styles: { good: fontGood }, onRequest: (_request, n) => onRequest?.(n) });
  return {
    model,
    readSkillFile: async (skill, path) => files.get(`${skill}/${path}`) ?? null,
    provider: model.provider,
    providerId: 'http://localhost:8080/v1',
    memory: new ParamMemory(),
    poolSize: 1,
    cache: new MemoryReplayCache(),
    regexRunner: inlineRegexRunner,
    sleep: instantSleep,
  };
}

const skillFiles = () =>
  new Map([
    [`house-font/${SKILL_FILE}`, USEFUL],
    [`house-font/${EVALS_FILE}`, evalsText('house-font', fontCases(8))],
  ]);

describe('runGateJob', () => {
  it('verifies the files as stored and applies the result when nothing changed', async () => {
    const result = done(await runGateJob({ runId: 'g1', skill: 'house-font', policy: 'standard', version: 3 }, services(skillFiles())));
    expect(result.verdict.code).toBe('promoted');
    expect(result.record).toMatchObject({ id: 'g1', skillVersion: 3, skillHash: await skillHashOf(USEFUL), status: 'applied' });
  });

  it('marks the record superseded when SKILL.md changes during the run', async () => {
    const files = skillFiles();
    const result = done(
      await runGateJob({ runId: 'g2', skill: 'house-font', policy: 'standard' }, services(files, (n) => n === 5 && files.set(`house-font/${SKILL_FILE}`, `${USEFUL}\nEdited.`))),
    );
    expect(result.record.status).toBe('superseded');
    // The verdict is still about the bytes that were measured.
    expect(result.record.skillHash).toBe(await skillHashOf(USEFUL));
  });

  it('marks the record superseded when the cases change during the run', async () => {
    const files = skillFiles();
    const result = done(
      await runGateJob({ runId: 'g3', skill: 'house-font', policy: 'standard' }, services(files, (n) => n === 2 && files.set(`house-font/${EVALS_FILE}`, evalsText('house-font', fontCases(9))))),
    );
    expect(result.record.status).toBe('superseded');
  });

  it('inlines the files a case names, read from the skill folder', async () => {
    const files = skillFiles();
    const cases = fontCases(8).map((c) => ({ ...c }));
    const evals = JSON.parse(evalsText('house-font', cases)) as { evals: { files?: string[] }[] };
    evals.evals[0].files = ['references/brand.md'];
    files.set(`house-font/${EVALS_FILE}`, JSON.stringify(evals));
    files.set('house-font/references/brand.md', 'Brand book: captions are set in Pretendard.');
    const svc = services(files);
    done(await runGateJob({ runId: 'g4', skill: 'house-font', policy: 'standard' }, svc));
    expect(svc.model.log.some((entry) => entry.prompt.includes('Brand book: captions are set in Pretendard.'))).toBe(true);
  });

  it('refuses a skill without SKILL.md', async () => {
    await expect(runGateJob({ runId: 'g5', skill: 'missing', policy: 'standard' }, services(new Map()))).rejects.toBeInstanceOf(SkillMissingError);
  });
});
