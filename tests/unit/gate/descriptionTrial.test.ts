/**
 * The description trial (docs/gate.md, "Description trial"): a stratified split the proposer
 * only sees the training side of; the proposal kept only when held-out reach rises and false
 * triggers do not; discarded otherwise, with the figures; the index line carries the proposal.
 */
import { describe, expect, it } from 'vitest';
import type { ChatProvider, StreamPart } from '../../../src/providers/provider';
import { keepDescription, proposalOf, runDescriptionTrial, splitTrialCases, withIndexDescription } from '../../../src/gate/descriptionTrial';
import type { ReachCase } from '../../../src/gate/reach';
import { firstChatRequestBuilder } from '../../../src/gate/reachRequest';
import { MemoryReplayCache } from '../../../src/gate/replayCache';
import { gateParams } from '../../../src/gate/replayRequest';

const triggers: ReachCase[] = Array.from({ length: 8 }, (_, i) => ({ id: i + 1, prompt: `Draft the changelog entry for build ${i + 1}.`, shouldTrigger: true }));
const misses: ReachCase[] = Array.from({ length: 3 }, (_, i) => ({ id: `n${i}`, prompt: `Summarise the meeting notes of day ${i + 1}, entry by entry.`, shouldTrigger: false }));

const build = firstChatRequestBuilder({ buildSystemPrompt: async () => 'Skills:\n    - changelog: Helps with assorted tasks. [unverified]', toolSpecs: () => [] });

/** Loads the skill when its index line shares two words with the request. */
const overlapModel: ChatProvider = {
  id: 'overlap',
  model: 'small',
  nativeTools: true,
  async *stream(request): AsyncIterable<StreamPart> {
    const prompt = new Set(request.messages.at(-1)!.content.toLowerCase().split(/\W+/).filter((w) => w.length > 3));
    const line = /- changelog: (.*) \[/.exec(request.messages[0]!.content)?.[1] ?? '';
    if (line.toLowerCase().split(/\W+/).filter((w) => prompt.has(w)).length >= 2) {
      yield { type: 'tool-call', call: { id: 'c', name: 'skill_view', arguments: '{"name":"changelog"}' } };
    } else {
      yield { type: 'text-delta', text: 'ok' };
    }
    yield { type: 'finish', reason: 'stop' };
  },
};

const reach = { names: ['changelog'], provider: overlapModel, providerId: 'http://127.0.0.1:9/v1', modelKey: 'k', params: gateParams(), buildRequest: build, cache: new MemoryReplayCache() };

describe('the description trial', () => {
  it('splits per group, holding out 40 % of each; the proposer sees only the training side', async () => {
    const { train, heldOut } = await splitTrialCases([...triggers, ...misses]);
    expect(heldOut.filter((c) => c.shouldTrigger)).toHaveLength(3);
    expect(heldOut.filter((c) => !c.shouldTrigger)).toHaveLength(1);
    expect(train).toHaveLength(7);
    let seen: ReachCase[] = [];
    await runDescriptionTrial({ reach, indexName: 'changelog', description: 'Helps with assorted tasks.', cases: [...triggers, ...misses], propose: async (t) => ((seen = t), 'Use when drafting a changelog entry for a build') });
    expect(seen.map((c) => c.id)).toEqual(train.map((c) => c.id));
  });

  it('keeps a description that reaches more held-out cases without more false triggers', async () => {
    const trial = await runDescriptionTrial({ reach, indexName: 'changelog', description: 'Helps with assorted tasks.', cases: [...triggers, ...misses], propose: async () => 'Use when drafting a changelog entry for a build' });
    expect(trial).toMatchObject({ kept: true, before: 'Helps with assorted tasks.', after: 'Use when drafting a changelog entry for a build' });
    expect(trial!.figures).toEqual({ before: { reached: 0, triggerCases: 3, falseTriggers: 0, nearMisses: 1 }, after: { reached: 3, triggerCases: 3, falseTriggers: 0, nearMisses: 1 } });
  });

  it('discards one that also loads the skill on near misses, with the figures', async () => {
    const trial = await runDescriptionTrial({ reach, indexName: 'changelog', description: 'Helps with assorted tasks.', cases: [...triggers, ...misses], propose: async () => 'Use when drafting any changelog entry or meeting notes entry' });
    expect(trial?.kept).toBe(false);
    expect(trial!.figures.after.falseTriggers).toBeGreaterThan(trial!.figures.before.falseTriggers);
    expect(keepDescription({ reached: 1, triggerCases: 3, falseTriggers: 0, nearMisses: 1 }, { reached: 1, triggerCases: 3, falseTriggers: 0, nearMisses: 1 })).toBe(false);
  });

  it('tries nothing without a different proposal; reads the proposal from the first line', async () => {
    expect(await runDescriptionTrial({ reach, indexName: 'changelog', description: 'Helps with assorted tasks.', cases: triggers, propose: async () => null })).toBeNull();
    expect(proposalOf('\n"Use when drafting changelogs"\nbecause…')).toBe('Use when drafting changelogs');
  });

  it('puts the proposal in the skill index line of the request', async () => {
    const request = await withIndexDescription(build, 'changelog', 'Helps with assorted tasks.', 'Use when X')('p');
    expect(request.messages[0]!.content).toContain('- changelog: Use when X [unverified]');
  });
});
