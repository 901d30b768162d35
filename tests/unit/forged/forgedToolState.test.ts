/**
 * A forged tool's Proof line and the scan's refusal of its code (docs/forged-tools.md, "Refused
 * code"): skill_manage keeps the refusal on the usage record, and the Tools entry says the code
 * was refused and why instead of "no cases".
 */
import { describe, expect, it } from 'vitest';
import { codeRefusal, refusalText, toolProofText, type ForgedToolState, type ToolCodeRefusal } from '../../../src/skills/forgedToolState';
import { createTestEngine, skillContent } from '../helpers/skillTestEngine';

/** Code that passes skill_manage's checks but carries a credential: the scan's verdict is dangerous. */
const LEAKY_CODE = "function run(input) {\n  const token = 'AKIAIOSFODNN7EXAMPLE';\n  return input.net * 2;\n}\n";
const manifest = { name: 'double', description: 'Use to double a price.', input_schema: { type: 'object', properties: { net: { type: 'number' } }, required: ['net'] } };

const AT = '2026-11-01T12:00:00.000Z';
const proven: ForgedToolState = {
  verdict: 'promoted',
  code: 'improved',
  reason: 'Passed every case.',
  hashes: { code: 'a', manifest: 'b', cases: 'c' },
  checked_at: AT,
  passed: 6,
  failed: 0,
  cases: [],
  enabled: true,
  run_count: 0,
  last_run_at: null,
};

describe('codeRefusal', () => {
  it('keeps the findings in the code file only, the worst first, at most three', () => {
    const finding = (file: string, line: number, severity: string) => ({ file, line, severity, description: `${severity} at ${line}`, match: 'x', category: 'c', patternId: 'p' });
    const refusal = codeRefusal(
      { verdict: 'dangerous', findings: [finding('tools/t.js', 4, 'medium'), finding('SKILL.md', 1, 'critical'), finding('tools/t.js', 9, 'critical'), finding('tools/t.js', 2, 'high'), finding('tools/t.js', 1, 'low')] },
      'tools/t.js',
      'held',
      'pending-1',
      AT,
    );
    expect(refusal).toEqual({
      at: AT,
      decision: 'held',
      pending_id: 'pending-1',
      verdict: 'dangerous',
      findings: [
        { line: 9, severity: 'critical', description: 'critical at 9', match: 'x' },
        { line: 2, severity: 'high', description: 'high at 2', match: 'x' },
        { line: 4, severity: 'medium', description: 'medium at 4', match: 'x' },
      ],
    });
  });
});

describe('the Proof line and the refusal sentence', () => {
  const refusal: ToolCodeRefusal = {
    at: AT,
    decision: 'held',
    pending_id: 'pending-1',
    verdict: 'dangerous',
    findings: [{ line: 2, severity: 'critical', description: 'AWS access key', match: 'AKIAIOSFODNN7EXAMPLE' }],
  };

  it('says the code was refused rather than "no cases" when the scan refused it', () => {
    expect(toolProofText({ state: null, fresh: false, caseCount: 0, refusal })).toBe('not proven: the security scan refused its code');
    expect(toolProofText({ state: null, fresh: false, caseCount: 0 })).toBe('not proven: no cases');
    expect(toolProofText({ state: null, fresh: false, caseCount: 8 })).toBe('not proven yet');
    expect(toolProofText({ state: proven, fresh: true, caseCount: 8 })).toBe('promoted');
    expect(toolProofText({ state: proven, fresh: false, caseCount: 8 })).toBe('promoted (files changed since; checking again)');
  });

  it('names the file, the verdict and each finding with its line, and what the user can do', () => {
    expect(refusalText('double', refusal, true)).toBe(
      'The security scan refused tools/double.js (dangerous verdict): line 2: AWS access key (“AKIAIOSFODNN7EXAMPLE”). It waits for your confirmation in Pending.',
    );
    expect(refusalText('double', { ...refusal, decision: 'blocked', pending_id: null, findings: [] }, false)).toBe('The security scan refused tools/double.js (dangerous verdict). Nothing was written.');
    expect(refusalText('double', refusal, false)).toContain('Nothing was written.');
  });
});

describe('skill_manage keeps the refusal of a tool’s code', () => {
  it('a write of tool code the scan holds is staged, and its usage record says why; other writes leave none', async () => {
    const t = createTestEngine();
    expect(await t.manage({ action: 'create', name: 'pricing', content: skillContent('pricing') })).toMatchObject({ success: true });
    expect(await t.manage({ action: 'write_file', name: 'pricing', file_path: 'tools/double.json', file_content: JSON.stringify(manifest) })).toMatchObject({ success: true });
    expect((await t.engine.usage.find('pricing'))?.tool_refusals).toBeUndefined();

    const held = await t.manage({ action: 'write_file', name: 'pricing', file_path: 'tools/double.js', file_content: LEAKY_CODE });
    expect(held).toMatchObject({ success: true, staged: true });
    expect(await t.files.exists('skills/pricing/tools/double.js')).toBe(false);
    const refusal = (await t.engine.usage.find('pricing'))?.tool_refusals?.double;
    expect(refusal).toMatchObject({ decision: 'held', pending_id: held.pending_id, verdict: 'dangerous' });
    expect(refusal!.findings.length).toBeGreaterThan(0);
    expect(refusal!.findings.every((finding) => finding.line === 2)).toBe(true);
  });
});
