/**
 * Per-model verdicts (docs/gate.md, "Per-model verdicts"): a verdict belongs to the model it was
 * measured on. The usage record keeps each model's newest verdict, an edit makes all of them
 * stale, and the index a chat sends labels `[verified]` only for a skill promoted on that chat's
 * model; the newest verdict of any model is what an index without a model shows.
 */
import { describe, expect, it } from 'vitest';
import { usageIndexLabel } from '../../../src/gate/indexLabel';
import { latestPerModel, modelKeyOf, providerModelKey, verdictModelKey } from '../../../src/gate/modelKey';
import { SkillCatalog } from '../../../src/skills/skillCatalog';
import { SkillIndex } from '../../../src/skills/skillIndex';
import { UsageStore, type UsageRecord } from '../../../src/skills/usageStore';
import { storedModelKey } from '../../../src/storage/db';
import { MemoryFileStore } from '../../../src/storage/memoryFileStore';
import { MemoryRecordStore } from '../../../src/storage/memoryRecordStore';

const LOCAL = modelKeyOf({ provider: 'http://localhost:8080/v1', id: 'qwen3-1.7b' });
const HOSTED = modelKeyOf({ provider: 'https://api.example.com/v1', id: 'big-model' });

describe('model keys', () => {
  it('name where the model runs and which model; the storage migration writes the same text', () => {
    expect(providerModelKey({ kind: 'openai-compatible', baseUrl: 'http://localhost:8080/v1/', model: 'qwen3-1.7b' })).toBe(LOCAL);
    expect(providerModelKey({ kind: 'webgpu', baseUrl: '', model: 'Qwen3-1.7B-q4f16_1-MLC' })).toBe('webgpu Qwen3-1.7B-q4f16_1-MLC');
    const record = { model: { provider: 'https://api.example.com/v1', id: 'big-model' } };
    expect(verdictModelKey(record)).toBe(HOSTED);
    expect(storedModelKey(record)).toBe(HOSTED);
  });

  it('latestPerModel: the newest applied run of each model, superseded runs never', () => {
    const run = (id: string, model: string, status = 'applied') => ({ id, status, model: { provider: 'p', id: model } });
    const history = [run('r4', 'a', 'superseded'), run('r3', 'b'), run('r2', 'a'), run('r1', 'b')];
    expect(latestPerModel(history).map((record) => record.id)).toEqual(['r3', 'r2']);
  });
});

async function usageWithVerdicts() {
  const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
  await usage.recordCreated('fmt', 'review');
  await usage.applyVerdict('fmt', 'promoted', 'run-hosted', HOSTED);
  return usage;
}

describe('usage record: a verdict per model', () => {
  it('keeps each model its own verdict; the newest is the record-wide one', async () => {
    const usage = await usageWithVerdicts();
    await usage.applyVerdict('fmt', 'rejected', 'run-local', LOCAL);
    const record = await usage.get('fmt');
    expect(record.verification).toBe('rejected');
    expect(record.model_verdicts).toEqual({
      [HOSTED]: { verification: 'promoted', verdict_id: 'run-hosted', stale: false },
      [LOCAL]: { verification: 'rejected', verdict_id: 'run-local', stale: false },
    });
    const label = (await usage.labels()).get('fmt');
    expect(usageIndexLabel(label, HOSTED)).toBe('[verified]');
    expect(usageIndexLabel(label, LOCAL)).toBeNull();
    expect(usageIndexLabel(label, 'webgpu other')).toBe('[unverified]');
  });

  it('an edit makes every model verdict stale; a new run on one model refreshes only that one', async () => {
    const usage = await usageWithVerdicts();
    await usage.applyVerdict('fmt', 'promoted', 'run-local', LOCAL);
    await usage.bumpPatch('fmt');
    let label = (await usage.labels()).get('fmt');
    expect([usageIndexLabel(label, HOSTED), usageIndexLabel(label, LOCAL)]).toEqual(['[unverified]', '[unverified]']);
    await usage.applyVerdict('fmt', 'promoted', 'run-local-2', LOCAL);
    label = (await usage.labels()).get('fmt');
    expect([usageIndexLabel(label, HOSTED), usageIndexLabel(label, LOCAL)]).toEqual(['[unverified]', '[verified]']);
  });

  it('an approval is of one verdict, on its model; a re-created (learned) skill starts with none', async () => {
    const usage = await usageWithVerdicts();
    await usage.applyVerdict('fmt', 'staged', 'run-local', LOCAL);
    await usage.approveVerdict('fmt', 'run-local');
    const label = (await usage.labels()).get('fmt');
    expect([usageIndexLabel(label, LOCAL), usageIndexLabel(label, HOSTED)]).toEqual(['[approved]', '[verified]']);
    await usage.recordCreated('fmt', 'review');
    expect((await usage.get('fmt')).model_verdicts).toEqual({});
  });

  it('without a model (or for a record without per-model verdicts) the newest verdict counts, as before', async () => {
    const usage = await usageWithVerdicts();
    expect(usageIndexLabel((await usage.labels()).get('fmt'))).toBe('[verified]');
    expect(usageIndexLabel({ verification: 'promoted', state: 'active' }, LOCAL)).toBe('[verified]');
    expect(usageIndexLabel(undefined, LOCAL)).toBe('[unverified]');
  });
});

describe('the index a chat sends', () => {
  it('shows [verified] only to a chat on the model the skill was promoted on', async () => {
    const files = new MemoryFileStore();
    await files.write('skills/fmt/house-font/SKILL.md', '---\nname: house-font\ndescription: Our house font rules.\n---\n\nbody\n');
    const catalog = new SkillCatalog(files);
    await catalog.load();
    const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
    await usage.applyVerdict('house-font', 'promoted', 'run-hosted', HOSTED);
    const index = new SkillIndex(catalog, () => usage.labels(), usageIndexLabel);
    const options = { platform: null, disabled: [], available: null, tokenBudget: 2000 };
    expect(await index.render({ ...options, model: HOSTED })).toContain('house-font: Our house font rules. [verified]');
    expect(await index.render({ ...options, model: LOCAL })).toContain('house-font: Our house font rules. [unverified]');
  });

  it('a reach request shows the measured skill as if promoted on its model, so a promotion does not change it', async () => {
    const files = new MemoryFileStore();
    await files.write('skills/fmt/house-font/SKILL.md', '---\nname: house-font\ndescription: Our house font rules.\n---\n\nbody\n');
    await files.write('skills/fmt/other/SKILL.md', '---\nname: other\ndescription: Another skill.\n---\n\nbody\n');
    const catalog = new SkillCatalog(files);
    await catalog.load();
    const usage = new UsageStore(new MemoryRecordStore<UsageRecord>());
    const index = new SkillIndex(catalog, () => usage.labels(), usageIndexLabel);
    const options = { platform: null, disabled: [], available: null, tokenBudget: 2000, model: LOCAL, asPromoted: 'house-font' };
    const before = await index.render(options);
    expect(before).toContain('house-font: Our house font rules. [verified]');
    // Only the measured skill: the others keep their own labels.
    expect(before).toContain('other: Another skill. [unverified]');
    await usage.applyVerdict('house-font', 'promoted', 'run-local', LOCAL);
    index.invalidate({ labels: true });
    expect(await index.render(options)).toBe(before);
    // A chat without the option sees the real label.
    expect(await index.render({ ...options, asPromoted: undefined })).toContain('house-font: Our house font rules. [verified]');
    await usage.applyVerdict('house-font', 'rejected', 'run-local-2', LOCAL);
    index.invalidate({ labels: true });
    expect(await index.render(options)).toBe(before);
  });
});
