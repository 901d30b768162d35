/**
 * Cases from the user's own chats (docs/gate.md, "Independent cases"): which skills a turn
 * loaded (the model's skill_view, or a /<skill> invocation), candidates kept once and never
 * again after a dismissal, and the case a candidate becomes (its provenance and the drafted checks),
 * saved only by the case editor.
 */
import { describe, expect, it } from 'vitest';
import {
  addCandidate,
  candidateKey,
  emptyOutcomes,
  noteLoadedIn,
  noteOutcome,
  outcomeOfNextMessage,
  outcomeWords,
  removeCandidate,
  skillLoadsOfTurn,
  type CandidateCase,
} from '../../src/skills/candidateCases';
import { oftenCorrected } from '../../src/curator/curatorRules';
import { emptyUsageRecord } from '../../src/skills/usageStore';
import { caseFromCandidate, holdsCandidate } from '../../src/app/candidateServices';
import { buildSkillInvocation } from '../../src/skills/skillInvocation';
import type { ChatMessage } from '../../src/providers/provider';

const view = (name: string, extra: Record<string, string> = {}): ChatMessage => ({
  role: 'assistant',
  content: '',
  toolCalls: [{ id: 'c', name: 'skill_view', arguments: JSON.stringify({ name, ...extra }) }],
});

describe('skillLoadsOfTurn', () => {
  it('finds the skills the last turn loaded with skill_view, with the request', () => {
    const messages: ChatMessage[] = [
      { role: 'user', content: 'an earlier request' },
      view('old-skill'),
      { role: 'user', content: 'Draft the changelog entry for build 7.' },
      view('changelog'),
      { role: 'tool', content: '{}', toolCallId: 'c', name: 'skill_view' },
      view('changelog', { file_path: 'references/a.md' }),
      { role: 'assistant', content: 'Done.' },
    ];
    expect(skillLoadsOfTurn(messages)).toEqual([{ skill: 'changelog', prompt: 'Draft the changelog entry for build 7.', via: 'skill_view' }]);
  });

  it('reads a /<skill> invocation as the skill and the request typed after it', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: buildSkillInvocation('changelog', '---\nname: changelog\n---\n\nbody', 'Entry for build 9') }];
    expect(skillLoadsOfTurn(messages)).toEqual([{ skill: 'changelog', prompt: 'Entry for build 9', via: 'slash' }]);
    expect(skillLoadsOfTurn([{ role: 'user', content: 'no skill here' }, { role: 'assistant', content: 'ok' }])).toEqual([]);
  });
});

describe('candidates on the usage record', () => {
  const candidate: CandidateCase = { prompt: 'Entry for build 9', session_id: 's2', session_title: 'Builds', at: '2026-12-01T10:00:00.000Z', via: 'skill_view' };

  it('keeps a candidate once, drops it when added, and never again once dismissed', () => {
    const record = { candidate_cases: [] as CandidateCase[], dismissed_candidates: [] as string[] };
    addCandidate(record, candidate);
    addCandidate(record, { ...candidate, at: 'later' });
    expect(record.candidate_cases).toHaveLength(1);
    removeCandidate(record, candidateKey(candidate), false);
    addCandidate(record, candidate);
    expect(record.candidate_cases).toHaveLength(1);
    removeCandidate(record, candidateKey(candidate), true);
    addCandidate(record, candidate);
    expect(record.candidate_cases).toEqual([]);
  });

  it('becomes a case with its provenance and the next free id', () => {
    expect(caseFromCandidate(candidate, [{ id: 1, prompt: 'a' }, { id: 'x', prompt: 'b' }, { id: 4, prompt: 'c' }])).toEqual({
      id: 5,
      prompt: 'Entry for build 9',
      checks: [],
      knack: { origin: 'chat', session_id: 's2', session_title: 'Builds', created_at: '2026-12-01T10:00:00.000Z' },
    });
  });

  it('takes the checks and the expected output the review model drafted', () => {
    const checks = [{ type: 'icontains' as const, value: 'build 9' }];
    expect(caseFromCandidate(candidate, [], { checks, expectedOutput: 'Names the build.', dropped: 1 })).toMatchObject({ id: 1, checks, expected_output: 'Names the build.' });
  });

  it('is found in a saved file by its request and its chat, not by its request alone', () => {
    const saved = caseFromCandidate(candidate, []);
    expect(holdsCandidate({ evals: [saved] }, candidate)).toBe(true);
    expect(holdsCandidate({ evals: [{ ...saved, knack: { ...saved.knack!, session_id: 'other' } }] }, candidate)).toBe(false);
    expect(holdsCandidate({ evals: [{ id: 1, prompt: candidate.prompt }] }, candidate)).toBe(false);
  });
});

describe('use outcomes', () => {
  it('counts the chats that loaded a skill once each, and what the user did next', () => {
    const record = { use_outcomes: emptyOutcomes() };
    for (const session of ['s1', 's2', 's1', 's3']) noteLoadedIn(record, session);
    noteOutcome(record, outcomeOfNextMessage('No, that is the wrong format.'));
    noteOutcome(record, outcomeOfNextMessage('Thanks! Now the next one.'));
    noteOutcome(record, 'regenerated');
    expect(record.use_outcomes).toMatchObject({ chats: ['s3', 's2', 's1'], corrected: 1, moved_on: 1, regenerated: 1, edited: 0 });
    expect(outcomeWords(record.use_outcomes)).toBe('Loaded in 3 chats; corrected after 1, regenerated after 1');
    expect(outcomeWords(emptyOutcomes())).toBeNull();
  });

  it('tells a correction from moving on by how the next message starts', () => {
    expect(['Actually, use ISO dates.', "That's wrong.", 'you forgot the header', 'not quite'].map(outcomeOfNextMessage)).toEqual(['corrected', 'corrected', 'corrected', 'corrected']);
    expect(['Now do the next build.', 'Nothing else, thanks', 'Notes for tomorrow'].map(outcomeOfNextMessage)).toEqual(['moved_on', 'moved_on', 'moved_on']);
  });

  it('the curator lists skills often corrected after use', () => {
    const often = { ...emptyUsageRecord('changelog'), use_outcomes: { ...emptyOutcomes(), chats: ['a', 'b', 'c'], corrected: 1 } };
    const fine = { ...emptyUsageRecord('fonts'), use_outcomes: { ...emptyOutcomes(), chats: ['a', 'b', 'c', 'd'], corrected: 1 } };
    const rare = { ...emptyUsageRecord('rare'), use_outcomes: { ...emptyOutcomes(), chats: ['a'], corrected: 1 } };
    expect(oftenCorrected([often, fine, rare])).toEqual(['changelog']);
  });
});
