import { beforeAll, describe, expect, it } from 'vitest';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { runTool } from '../../../src/tools/forgedSandbox';
import { runRegexJob } from '../../../src/gate/checks';
import { policyThresholds } from '../../../src/gate/policy';
import { repairRule, type RepairRuleDeps } from '../../../src/gate/toolRepairRule';
import { forgedToolsForModel, type ForgedToolState } from '../../../src/skills/forgedToolState';
import { loadQuickjsInNode } from './quickjsNode';

let quickjs: QuickJSWASMModule;
beforeAll(async () => {
  quickjs = await loadQuickjsInNode();
});

const manifest = { name: 'double', description: 'Doubles n.', input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } };
const cases = { tool: 'double', cases: [1, 2, 3, 4, 5, 6].map((n) => ({ id: n, input: { n }, expect: n * 2 })) };
/** Right for n ≤ 3 only. */
const HALF_RIGHT = 'function run(i) { return i.n <= 3 ? i.n * 2 : 0; }';
const files = new Map<string, string>([
  ['tools/double.js', HALF_RIGHT],
  ['tools/double.json', JSON.stringify(manifest)],
  ['evals/tool-cases.json', JSON.stringify(cases)],
]);
const context = (origin?: 'review' | 'user') => ({
  skill: 'maths',
  origin,
  readFile: async (path: string) => (files.has(path) ? new TextEncoder().encode(files.get(path)!) : null),
});
const deps = (proven = true): RepairRuleDeps => ({
  hasProof: async () => proven,
  call: async (code, input) => runTool(quickjs, code, JSON.stringify(input), { timeMs: 200 }),
  regexRunner: async () => ({ test: async (pattern, flags, text) => runRegexJob({ pattern, flags, text }) }),
  policy: () => policyThresholds('standard'),
});

describe('the repair rule on a write', () => {
  it('keeps a review rewrite that passes more cases', async () => {
    expect(await repairRule('double', 'function run(i) { return i.n * 2; }', context('review'), deps())).toBeNull();
  });

  it('refuses a review rewrite that passes as many or fewer, saying both counts', async () => {
    const same = await repairRule('double', 'function run(i) { return i.n >= 4 ? i.n * 2 : 0; }', context('review'), deps());
    expect(same?.error).toMatch(/passes 3 of 6 cases and the current version passes 3/);
    const worse = await repairRule('double', 'function run() { return 0; }', context('review'), deps());
    expect(worse?.error).toMatch(/passes 0 of 6/);
  });

  it('leaves the user and never-proven tools alone', async () => {
    expect(await repairRule('double', 'function run() { return 0; }', context('user'), deps())).toBeNull();
    expect(await repairRule('double', 'function run() { return 0; }', context('review'), deps(false))).toBeNull();
  });
});

describe('what the model sees of a proof', () => {
  it('lists development failures only, never a held-out outcome', () => {
    const state: ForgedToolState = {
      verdict: 'rejected',
      code: 'dev_harm',
      reason: 'Rejected: …',
      hashes: { code: 'a', manifest: 'b', cases: 'c' },
      checked_at: '2026-12-01T00:00:00.000Z',
      passed: 1,
      failed: 2,
      cases: [
        { id: 1, side: 'dev', pass: false, input: { n: 4 }, expect: 8, actual: '0', error: 'expected 8, got 0' },
        { id: 2, side: 'dev', pass: true, input: { n: 1 } },
        { id: 3, side: 'holdout', pass: false, input: { n: 5 }, expect: 10, actual: '0', error: 'expected 10, got 0' },
      ],
      enabled: true,
      run_count: 0,
      last_run_at: null,
    };
    const [view] = forgedToolsForModel({ double: state });
    expect(view.development_failures).toEqual([{ id: 1, input: { n: 4 }, expect: 8, actual: '0', error: 'expected 8, got 0' }]);
    expect(JSON.stringify(view)).not.toContain('"n":5');
    expect(view.hint).toMatch(/passes more cases/);
  });
});
