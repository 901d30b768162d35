import { describe, expect, it } from 'vitest';
import { providerLocality, replayCacheKey, replayKeyText, replayProviderId, type ReplayKeyInput } from '../../../src/gate/cacheKey';
import { buildReplayMessages, gateParams } from '../../../src/gate/replayRequest';
import type { ScorableCase } from '../../../src/gate/types';

const testCase: ScorableCase = {
  id: 'c1',
  prompt: 'Pick a font for the login screen.',
  messages: [{ role: 'user', content: 'Korean app.' }, { role: 'assistant', content: 'Noted.' }],
  files: [],
  checks: [{ type: 'icontains', value: 'pretendard' }],
  source: false,
};

const base: ReplayKeyInput = {
  provider: 'http://localhost:11434/v1',
  model: 'qwen3:8b',
  params: gateParams(),
  messages: buildReplayMessages(testCase, 'baseline'),
};

describe('replayCacheKey', () => {
  it('is a hex SHA-256 and the same for the same request', async () => {
    const key = await replayCacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await replayCacheKey(structuredClone(base))).toBe(key);
  });

  it.each<[string, (input: ReplayKeyInput) => ReplayKeyInput]>([
    ['provider', (input) => ({ ...input, provider: 'https://api.openai.com/v1' })],
    ['model', (input) => ({ ...input, model: 'qwen3:4b' })],
    ['temperature', (input) => ({ ...input, params: { ...input.params, temperature: 0.7 } })],
    ['temperature dropped', (input) => ({ ...input, params: { seed: 7, maxTokens: 1024 } })],
    ['seed', (input) => ({ ...input, params: { ...input.params, seed: 8 } })],
    ['seed dropped', (input) => ({ ...input, params: { temperature: 0, maxTokens: 1024 } })],
    ['max_tokens', (input) => ({ ...input, params: { ...input.params, maxTokens: 2048 } })],
    ['system', (input) => ({ ...input, messages: [{ role: 'system', content: 'other' }, ...input.messages.slice(1)] })],
    ['a frozen turn', (input) => ({ ...input, messages: input.messages.map((m, i) => (i === 1 ? { ...m, content: 'Japanese app.' } : m)) })],
    ['the prompt', (input) => ({ ...input, messages: [...input.messages.slice(0, -1), { role: 'user', content: 'Pick a font.' }] })],
  ])('changes when %s changes', async (_label, change) => {
    expect(await replayCacheKey(change(structuredClone(base)))).not.toBe(await replayCacheKey(base));
  });

  it('baseline keys of two different skills on the same case are equal; their skill keys differ', async () => {
    const forSkill = (name: string, arm: 'baseline' | 'skill') =>
      replayCacheKey({ ...base, messages: buildReplayMessages(testCase, arm, { name, markdown: `# ${name}\n\nDo it.` }) });
    expect(await forSkill('fonts', 'baseline')).toBe(await forSkill('colours', 'baseline'));
    expect(await forSkill('fonts', 'skill')).not.toBe(await forSkill('colours', 'skill'));
    expect(await forSkill('fonts', 'skill')).not.toBe(await forSkill('fonts', 'baseline'));
  });

  it('hashes a canonical text: keys sorted, the version and tools: null included', () => {
    const text = replayKeyText({ provider: 'p', model: 'm', params: { maxTokens: 5 }, messages: [{ content: 'hi', role: 'user' }] });
    expect(text).toBe(
      '{"messages":[{"content":"hi","role":"user"}],"model":"m","params":{"max_tokens":5,"seed":null,"temperature":null},"provider":"p","tools":null,"v":"gate.v1"}',
    );
  });
});

describe('replayProviderId', () => {
  it('is webgpu:model for the in-browser engine and the normalised address otherwise', () => {
    expect(replayProviderId({ kind: 'webgpu', baseUrl: '', model: 'Qwen3-0.6B-q4f32_1-MLC' })).toBe('webgpu:Qwen3-0.6B-q4f32_1-MLC');
    expect(replayProviderId({ kind: 'openai-compatible', baseUrl: ' http://localhost:11434/v1/ ', model: 'x' })).toBe('http://localhost:11434/v1');
    expect(replayProviderId({ kind: 'openai-compatible', baseUrl: 'https://user:pw@api.example.com/v1?x=1', model: 'x' })).toBe(
      'https://api.example.com/v1',
    );
  });
});

describe('providerLocality', () => {
  it.each([
    ['webgpu:Qwen3-0.6B-q4f32_1-MLC', 'webgpu'],
    ['http://localhost:11434/v1', 'local'],
    ['http://127.0.0.1:1234/v1', 'local'],
    ['http://[::1]:8080/v1', 'local'],
    ['http://ollama.localhost/v1', 'local'],
    ['http://192.168.1.20:11434/v1', 'remote'],
    ['https://api.openai.com/v1', 'remote'],
    ['not a url', 'remote'],
  ])('%s is %s', (id, locality) => {
    expect(providerLocality(id)).toBe(locality);
  });
});
