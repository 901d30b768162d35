/**
 * Cases from the user's own chats (docs/gate.md, "Independent cases"): which skills a turn
 * loaded (the model's skill_view, or a /<skill> invocation), candidates kept once and never
 * again after a dismissal, and the case a candidate becomes (its provenance, no checks yet).
 */
import { describe, expect, it } from 'vitest';
import { addCandidate, candidateKey, removeCandidate, skillLoadsOfTurn, type CandidateCase } from '../../src/skills/candidateCases';
import { caseFromCandidate } from '../../src/app/candidateServices';
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
});
