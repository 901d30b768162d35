import { beforeAll, describe, expect, it } from 'vitest';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { runTool } from '../../../src/tools/forgedSandbox';
import { runRegexJob, type RegexRunner } from '../../../src/gate/checks';
import { policyThresholds } from '../../../src/gate/policy';
import { developmentFailures, judgeCase, keepRepair, proveTool, sameJsonValue, type ToolCaller } from '../../../src/gate/toolProof';
import type { ToolCase } from '../../../src/gate/toolCases';
import { loadQuickjsInNode } from './quickjsNode';

let quickjs: QuickJSWASMModule;
let calls = 0;
const call: ToolCaller = async (code, input) => {
  calls++;
  return runTool(quickjs, code, JSON.stringify(input), { timeMs: 200 });
};
const regexRunner: RegexRunner = { test: async (pattern, flags, text) => runRegexJob({ pattern, flags, text }) };
const standard = policyThresholds('standard');

beforeAll(async () => {
  quickjs = await loadQuickjsInNode();
});

const manifest = {
  name: 'vat-total',
  description: 'Price after discount and VAT, rounded to cents.',
  input_schema: { type: 'object', properties: { net: { type: 'number' }, discount_pct: { type: 'number' }, vat_pct: { type: 'number' } }, required: ['net', 'discount_pct', 'vat_pct'] },
  output_schema: { type: 'number' },
};
const RIGHT = 'function run(i) { const cents = Math.round(i.net * (1 - i.discount_pct / 100) * (1 + i.vat_pct / 100) * 100); return cents / 100; }';
/** Forgets the discount: right only when there is none. */
const NO_DISCOUNT = 'function run(i) { return Math.round(i.net * (1 + i.vat_pct / 100) * 100) / 100; }';
const total = (net: number, d: number, v: number) => Math.round(net * (1 - d / 100) * (1 + v / 100) * 100) / 100;
const inputs: [number, number, number][] = [
  [100, 10, 19],
  [1037.5, 0, 19],
  [250, 15, 7],
  [19.99, 0, 20],
  [1000, 5, 21],
  [80, 0, 10],
  [42, 25, 19],
  [12.5, 0, 7],
];
const cases: ToolCase[] = inputs.map(([net, d, v], index) => ({ id: index + 1, input: { net, discount_pct: d, vat_pct: v }, expect: total(net, d, v) }));
const tool = (code: string, list = cases) => ({ code, manifest, cases: { tool: 'vat-total', cases: list } });

describe('the case runner', () => {
  it('proves a right tool with zero model calls: every case up, promoted by decide', async () => {
    calls = 0;
    const proof = await proveTool(tool(RIGHT), call, regexRunner, standard);
    expect(calls).toBe(cases.length); // one sandbox call per case, nothing else
    expect(proof).toMatchObject({ passed: 8, failed: 0, verdict: { verdict: 'promoted', code: 'promoted' } });
    expect(proof.cases.filter((c) => c.side === 'holdout')).toHaveLength(2);
    expect(proof.verdict.numbers.pooled).toMatchObject({ up: 8, down: 0, tie: 0 });
  });

  it('rejects a broken tool and names each failing case with expected and actual', async () => {
    const proof = await proveTool(tool('function run() { return 0; }'), call, regexRunner, standard);
    expect(proof.verdict.verdict).toBe('rejected');
    expect(proof.verdict.numbers.pooled).toMatchObject({ up: 0, down: 8, tie: 0 });
    expect(proof.cases[0]).toMatchObject({ pass: false, actual: '0', error: expect.stringMatching(/^expected [\d.]+, got 0$/) });
  });

  it('maps a tool that passes only some cases through the same decide (no ties)', async () => {
    const proof = await proveTool(tool(NO_DISCOUNT), call, regexRunner, standard);
    const { pooled } = proof.verdict.numbers;
    expect(pooled.up + pooled.down).toBe(8);
    expect(pooled.tie).toBe(0);
    expect(proof.passed).toBe(4);
    expect(proof.verdict.verdict).not.toBe('promoted');
  });

  it('leaves too few cases unmeasured, with the reason', async () => {
    const proof = await proveTool(tool(RIGHT, cases.slice(0, 3)), call, regexRunner, standard);
    expect(proof.verdict).toMatchObject({ verdict: 'staged', code: 'too_few_cases' });
  });

  it('splits by input only: the same cases land on the same sides whatever their ids or order', async () => {
    const a = await proveTool(tool(RIGHT), call, regexRunner, standard);
    const renumbered = [...cases].reverse().map((c, i) => ({ ...c, id: `r${i}` }));
    const b = await proveTool(tool(RIGHT, renumbered), call, regexRunner, standard);
    const heldInputs = (proof: typeof a) => proof.cases.filter((c) => c.side === 'holdout').map((c) => JSON.stringify(c.input)).sort();
    expect(heldInputs(b)).toEqual(heldInputs(a));
  });

  it('counts a sandbox that cannot run as unmeasured, never against the tool', async () => {
    const broken: ToolCaller = async () => ({ ok: false, failure: 'crashed', error: 'the sandbox could not start', ms: 0 });
    const proof = await proveTool(tool(RIGHT), broken, regexRunner, standard);
    expect(proof.verdict).toMatchObject({ verdict: 'staged', code: 'replay_failed' });
    expect(proof.failed).toBe(0);
  });
});

describe('judging one case', () => {
  const ok = (outputJson: string) => ({ ok: true as const, outputJson, ms: 0 });

  it('compares with expect by deep equality, ignoring key order', async () => {
    expect(sameJsonValue({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    const withObject = { ...manifest, output_schema: undefined };
    expect(await judgeCase({ id: 1, input: {}, expect: { a: 1, b: 2 } }, ok('{"b":2,"a":1}'), withObject, regexRunner)).toMatchObject({ pass: true });
    expect(await judgeCase({ id: 1, input: {}, expect: 1 }, ok('1.0'), withObject, regexRunner)).toMatchObject({ pass: true });
    expect(await judgeCase({ id: 1, input: {}, expect: '1' }, ok('1'), withObject, regexRunner)).toMatchObject({ pass: false });
  });

  it('runs checks on a string output as it is and on other outputs as JSON', async () => {
    const loose = { ...manifest, output_schema: undefined };
    const checks = [{ type: 'regex' as const, value: '^1,234\\.50 EUR$' }];
    expect(await judgeCase({ id: 1, input: {}, checks }, ok('"1,234.50 EUR"'), loose, regexRunner)).toMatchObject({ pass: true });
    expect(await judgeCase({ id: 1, input: {}, checks: [{ type: 'contains', value: '"total"' }] }, ok('{"total":1}'), loose, regexRunner)).toMatchObject({ pass: true });
    expect(await judgeCase({ id: 1, input: {}, checks }, ok('"1234.5"'), loose, regexRunner)).toMatchObject({ pass: false, error: 'check 1 (regex) failed' });
  });

  it('fails an output that breaks the output schema', async () => {
    expect(await judgeCase({ id: 1, input: {}, expect: 'x' }, ok('"x"'), manifest, regexRunner)).toMatchObject({ pass: false, error: expect.stringContaining('output_schema') });
  });

  it('fails a call that broke a limit, with the sandbox error', async () => {
    const timeout = { ok: false as const, failure: 'timeout' as const, error: 'stopped after 1 s: the tool did not finish.', ms: 1000 };
    expect(await judgeCase({ id: 1, input: {}, expect: 1 }, timeout, manifest, regexRunner)).toEqual({ pass: false, error: timeout.error });
  });
});

describe('the repair rule', () => {
  it('shows a repair only the development failures', async () => {
    const proof = await proveTool(tool(NO_DISCOUNT), call, regexRunner, standard);
    const failures = developmentFailures(proof);
    const devFailedIds = proof.cases.filter((c) => c.side === 'dev' && c.pass === false).map((c) => c.id);
    expect(failures.map((f) => f.id)).toEqual(devFailedIds);
    const heldOutIds = new Set(proof.cases.filter((c) => c.side === 'holdout').map((c) => c.id));
    expect(failures.some((f) => heldOutIds.has(f.id))).toBe(false);
    expect(failures[0]).toMatchObject({ input: expect.any(Object), expect: expect.any(Number), actual: expect.any(String), error: expect.any(String) });
  });

  it('keeps a repair only when it passes more cases, never as many or fewer', async () => {
    const current = await proveTool(tool(NO_DISCOUNT), call, regexRunner, standard);
    const better = await proveTool(tool(RIGHT), call, regexRunner, standard);
    const worse = await proveTool(tool('function run() { return 0; }'), call, regexRunner, standard);
    expect(keepRepair(current, better)).toBe(true);
    expect(keepRepair(current, current)).toBe(false);
    expect(keepRepair(current, worse)).toBe(false);
  });
});
