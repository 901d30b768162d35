/**
 * Checks drafted by the review model for a case added from a chat (src/gate/checkDraft.ts): the
 * answer read leniently and checked strictly, the request fitted to the drafting model's window,
 * and every failure an answer the editor can show.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_DRAFT_MAX_TOKENS, MAX_DRAFTED_CHECKS, draftChecks, fittedCheckDraftMessages, parseDraftedChecks } from '../../src/gate/checkDraft';
import { requestFitsFor } from '../../src/app/chatContexts';
import { countRequest } from '../../src/providers/tokenEstimate';
import { charCounter } from './helpers/charCounter';
import { fakeProvider } from './helpers/fakeProvider';

const skill = { name: 'changelog', markdown: '---\nname: changelog\ndescription: Use when writing a changelog entry.\n---\n\nStart every entry with the build number.\n' };
const fitsIn = (tokens: number) => requestFitsFor({ window: { tokens, source: 'set' }, counter: charCounter }, 'the review model');

describe('parseDraftedChecks', () => {
  it('reads a fenced JSON object with its expected output', () => {
    const answer = 'Here you go:\n```json\n{"expected_output": "Starts with the build.", "checks": [{"type": "starts_with", "value": "Build 300"}, {"type": "icontains", "value": "fixed"}]}\n```';
    expect(parseDraftedChecks(answer)).toEqual({
      checks: [
        { type: 'starts_with', value: 'Build 300' },
        { type: 'icontains', value: 'fixed' },
      ],
      expectedOutput: 'Starts with the build.',
      dropped: 0,
    });
  });

  it('reads a bare list, and JSON with prose around it', () => {
    expect(parseDraftedChecks('[{"type": "is_json"}]').checks).toEqual([{ type: 'is_json' }]);
    expect(parseDraftedChecks('Sure. {"checks": [{"type": "regex", "value": "^Build \\\\d+", "flags": "m"}]} Done.').checks).toEqual([{ type: 'regex', value: '^Build \\d+', flags: 'm' }]);
  });

  it('drops what the gate would refuse and keeps the rest, at most the cap', () => {
    const answer = JSON.stringify({
      checks: [
        { type: 'mentions', value: 'x' },
        { type: 'regex', value: '(unclosed' },
        { type: 'icontains_any', value: 'not a list' },
        { type: 'icontains', value: 'build' },
        'a sentence',
      ],
    });
    expect(parseDraftedChecks(answer)).toEqual({ checks: [{ type: 'icontains', value: 'build' }], expectedOutput: null, dropped: 4 });
    const many = JSON.stringify({ checks: Array.from({ length: 9 }, (_, i) => ({ type: 'icontains', value: `word${i}` })) });
    const parsed = parseDraftedChecks(many);
    expect(parsed.checks).toHaveLength(MAX_DRAFTED_CHECKS);
    expect(parsed.dropped).toBe(9 - MAX_DRAFTED_CHECKS);
  });

  it('finds nothing in prose', () => {
    expect(parseDraftedChecks('I would check that the entry names the build.')).toEqual({ checks: [], expectedOutput: null, dropped: 0 });
  });
});

describe('fittedCheckDraftMessages', () => {
  it('sends the whole skill when it fits', () => {
    const messages = fittedCheckDraftMessages(skill, 'Entry for build 300.', fitsIn(4_096))!;
    expect(messages[1]!.content).toContain(skill.markdown);
    expect(messages[1]!.content).toContain('Entry for build 300.');
  });

  it('cuts a long skill to fit the window, keeping the request whole', () => {
    const long = { ...skill, markdown: skill.markdown + 'Another rule of the house style. '.repeat(2_000) };
    const messages = fittedCheckDraftMessages(long, 'Entry for build 300.', fitsIn(2_048))!;
    const tokens = countRequest(charCounter, messages);
    expect(tokens + CHECK_DRAFT_MAX_TOKENS).toBeLessThanOrEqual(Math.floor(2_048 * 0.96));
    // Close to the limit, not cut far more than needed.
    expect(tokens + CHECK_DRAFT_MAX_TOKENS).toBeGreaterThan(Math.floor(2_048 * 0.96) - 40);
    expect(messages[1]!.content).toContain('the rest of SKILL.md is left out');
    expect(messages[1]!.content).toContain('Start every entry with the build number.');
    expect(messages[1]!.content.endsWith('Entry for build 300.')).toBe(true);
  });

  it('gives up when even the request alone does not fit', () => {
    expect(fittedCheckDraftMessages(skill, 'x'.repeat(4_000), fitsIn(1_024))).toBeNull();
  });
});

describe('draftChecks', () => {
  it('sends one request without tools and returns the checks', async () => {
    const fake = fakeProvider([{ text: '{"checks": [{"type": "starts_with", "value": "Build 300"}]}' }]);
    const draft = await draftChecks({ provider: fake.provider, fits: fitsIn(4_096) }, skill, 'Entry for build 300.');
    expect(draft).toEqual({ success: true, checks: [{ type: 'starts_with', value: 'Build 300' }], expectedOutput: null, dropped: 0 });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ maxTokens: CHECK_DRAFT_MAX_TOKENS, temperature: 0 });
    expect(fake.requests[0]!.tools).toBeUndefined();
  });

  it('answers with the reason when the model fails, writes no usable check, or the request does not fit', async () => {
    const failing = fakeProvider([{ error: new Error('the server said 500') }]);
    expect(await draftChecks({ provider: failing.provider, fits: fitsIn(4_096) }, skill, 'Entry for build 300.')).toEqual({ success: false, error: 'the server said 500' });
    const prose = fakeProvider([{ text: 'Check that it names the build.' }]);
    expect(await draftChecks({ provider: prose.provider, fits: fitsIn(4_096) }, skill, 'Entry.')).toEqual({ success: false, error: 'its answer held no checks' });
    const invalid = fakeProvider([{ text: '{"checks": [{"type": "mentions", "value": "x"}, {"type": "vibes"}]}' }]);
    expect(await draftChecks({ provider: invalid.provider, fits: fitsIn(4_096) }, skill, 'Entry.')).toEqual({ success: false, error: 'the 2 checks it wrote are not valid checks' });
    const unused = fakeProvider([]);
    expect(await draftChecks({ provider: unused.provider, fits: fitsIn(256) }, skill, 'x'.repeat(2_000))).toEqual({ success: false, error: 'the request alone does not fit the review model’s window' });
    expect(unused.requests).toHaveLength(0);
  });
});
