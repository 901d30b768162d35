/**
 * Reach (docs/gate.md, "Reach"): one first-chat-shaped request per case, read only until the
 * first tool call; a case is reached when that first action loads the skill; near misses count
 * false triggers; first actions are cached by the exact request, so re-measuring costs nothing;
 * failed requests are neither cached nor counted; the verdict's reason says when a skill that
 * helps is not reached.
 */
import { describe, expect, it } from 'vitest';
import type { ChatProvider, ChatRequest, StreamPart } from '../../../src/providers/provider';
import { loadsSkill, measureReach, reachCasesOf, reachNote, reachWords, type ReachCase } from '../../../src/gate/reach';
import { firstChatRequestBuilder } from '../../../src/gate/reachRequest';
import { MemoryReplayCache } from '../../../src/gate/replayCache';
import { gateParams } from '../../../src/gate/replayRequest';

const SYSTEM = (prompt: string) => `You are Knack.\n<available_skills>\n    - house-font: Fonts for captions in quarterly reports [unverified]\n</available_skills>\n(ranked for: ${prompt})`;

/** A small model's stand-in: loads a skill when its index line shares two words with the request. */
function overlapModel(options: { failOn?: string; afterCall?: () => void } = {}) {
  const requests: ChatRequest[] = [];
  const provider: ChatProvider = {
    id: 'overlap',
    model: 'small-model',
    nativeTools: true,
    async *stream(request): AsyncIterable<StreamPart> {
      requests.push(request);
      const prompt = request.messages.at(-1)!.content;
      if (options.failOn && prompt.includes(options.failOn)) throw new Error('HTTP 503');
      const words = new Set(prompt.toLowerCase().split(/\W+/).filter((w) => w.length > 3));
      const line = /- house-font: (.*) \[/.exec(request.messages[0]!.content)?.[1] ?? '';
      const shared = line.toLowerCase().split(/\W+/).filter((w) => words.has(w)).length;
      if (prompt.startsWith('/')) {
        yield { type: 'text-delta', text: `${prompt.split(' ')[0]} then the answer` };
      } else if (shared >= 2) {
        yield { type: 'tool-call', call: { id: 'c1', name: 'skill_view', arguments: JSON.stringify({ name: 'house-font' }) } };
        // Never read: reach stops at the first tool call.
        options.afterCall?.();
        yield { type: 'text-delta', text: 'more' };
      } else {
        yield { type: 'text-delta', text: 'Here is an answer without any skill.' };
      }
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return { provider, requests };
}

const buildRequest = firstChatRequestBuilder({ buildSystemPrompt: async (prompt) => SYSTEM(prompt), toolSpecs: () => [{ name: 'skill_view', description: 'Load a skill', parameters: { type: 'object' } }] });

const CASES: ReachCase[] = [
  { id: 1, prompt: 'Which fonts for the captions of the quarterly report?', shouldTrigger: true },
  { id: 2, prompt: 'Pick captions fonts please', shouldTrigger: true },
  { id: 3, prompt: 'Make this caption shorter', shouldTrigger: true },
  { id: 4, prompt: 'Quarterly report figures: sum the revenue', shouldTrigger: false },
  { id: 5, prompt: 'Fonts for quarterly captions in my slides', shouldTrigger: false },
];

function input(model: ReturnType<typeof overlapModel>, cache = new MemoryReplayCache()) {
  return { names: ['house-font'], cases: CASES, provider: model.provider, providerId: 'http://127.0.0.1:9/v1', modelKey: 'k', params: gateParams(), buildRequest, cache };
}

describe('measureReach', () => {
  it('counts reached trigger cases and false triggers on near misses, in words', async () => {
    const model = overlapModel();
    const reach = await measureReach(input(model));
    expect(reach).toMatchObject({ reached: 2, triggerCases: 3, falseTriggers: 1, nearMisses: 2, unmeasured: 0, cost: { requests: 5, cacheHits: 0 } });
    expect(reach.cases.map((c) => c.loaded)).toEqual([true, true, false, false, true]);
    expect(reachWords(reach)).toBe('Reached in 2 of 3 cases; loaded by mistake in 1 of 2');
    // The request is the first request of a chat: the real system prompt for this prompt, the tools.
    expect(model.requests[0]).toMatchObject({ messages: [{ role: 'system', content: SYSTEM(CASES[0]!.prompt) }, { role: 'user', content: CASES[0]!.prompt }], tools: [{ name: 'skill_view' }], temperature: 0 });
  });

  it('stops reading at the first tool call', async () => {
    let readOn = 0;
    await measureReach({ ...input(overlapModel({ afterCall: () => readOn++ })), cases: CASES.slice(0, 1) });
    expect(readOn).toBe(0);
  });

  it('re-measuring an unchanged skill and index sends nothing; a changed index line is a new request', async () => {
    const cache = new MemoryReplayCache();
    await measureReach(input(overlapModel(), cache));
    const again = overlapModel();
    const reach = await measureReach(input(again, cache));
    expect(again.requests).toHaveLength(0);
    expect(reach).toMatchObject({ reached: 2, falseTriggers: 1, cost: { requests: 0, cacheHits: 5 } });
    const changed = { ...input(overlapModel(), cache), buildRequest: firstChatRequestBuilder({ buildSystemPrompt: async (p) => SYSTEM(p).replace('[unverified]', '[verified]'), toolSpecs: () => [] }) };
    expect((await measureReach(changed)).cost.requests).toBe(5);
  });

  it('a failed request is neither counted nor cached', async () => {
    const cache = new MemoryReplayCache();
    const reach = await measureReach(input(overlapModel({ failOn: 'Pick' }), cache));
    expect(reach).toMatchObject({ reached: 1, triggerCases: 2, unmeasured: 1 });
    expect(reach.cases[1]!.action).toMatchObject({ kind: 'error' });
    expect((await measureReach(input(overlapModel(), cache))).cost.requests).toBe(1);
  });

  it('the slash form loads the skill; another tool or another skill does not', () => {
    expect(loadsSkill({ kind: 'text', slash: 'House-Font' }, ['house-font'])).toBe(true);
    expect(loadsSkill({ kind: 'tool', name: 'skill_view', skill: 'other' }, ['house-font'])).toBe(false);
    expect(loadsSkill({ kind: 'tool', name: 'skills_list' }, ['house-font'])).toBe(false);
    expect(loadsSkill({ kind: 'text' }, ['house-font'])).toBe(false);
  });

  it('measures the router beside the model', async () => {
    const route = (prompt: string) => (/font/i.test(prompt) ? 'house-font' : null);
    const reach = await measureReach({ ...input(overlapModel()), route });
    expect(reach.router).toEqual({ reached: 2, falseTriggers: 1 });
  });
});

describe('reach cases and the verdict reason', () => {
  it('takes every case with a prompt, near misses included', () => {
    const file = { evals: [{ id: 1, prompt: 'a' }, { id: 2, prompt: 'b', should_trigger: false }, { id: 3, prompt: ' ' }] };
    expect(reachCasesOf(file)).toEqual([{ id: 1, prompt: 'a', shouldTrigger: true }, { id: 2, prompt: 'b', shouldTrigger: false }]);
  });

  it('says when a skill that helps is rarely chosen, and only then', () => {
    const low = { reached: 1, triggerCases: 8, falseTriggers: 0, nearMisses: 0, unmeasured: 0, cases: [], cost: { requests: 0, cacheHits: 0, promptTokens: 0, completionTokens: 0 } };
    const promoted = { verdict: 'promoted', numbers: { dev: { gainSign: 1 } } };
    expect(reachNote(promoted, low)).toContain('only 1 of 8 cases');
    expect(reachNote({ verdict: 'rejected', numbers: { dev: { gainSign: 0 } } }, low)).toBeNull();
    expect(reachNote(promoted, { ...low, reached: 6 })).toBeNull();
  });
});
